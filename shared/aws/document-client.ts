/**
 * The DocumentClient that the write helper and the consumer's inbox send through, from the client
 * an app gives. An app whose own AWS SDK does not satisfy this package's range gets a second copy
 * of it, and its clients are of that copy: an older copy's clients cannot send this package's
 * commands (their commands bring their own serializer, so the client has none, and the SDK
 * refuses to assemble a request). This copy's `DynamoDBDocumentClient.from` takes such a client
 * on the configuration it was made with, and warns it did so; a client of this copy, or of one
 * that sends its commands, is used as it is.
 */

import { DynamoDBDocumentClient, type TranslateConfig } from '@aws-sdk/lib-dynamodb';

/**
 * `client` as a DocumentClient of this package's copy of the SDK, with the options set on it: a
 * DocumentClient of this copy as it is, any other SDK client (a plain `DynamoDBClient`, or a
 * client of another copy) wrapped, a test double without a configuration as it is.
 */
export function documentClientOf(client: object): DynamoDBDocumentClient {
  if (client instanceof DynamoDBDocumentClient) return client;
  // A client is known by what it has, not by its class: another copy's classes are others.
  const { config, middlewareStack } = client as { config?: { translateConfig?: TranslateConfig }; middlewareStack?: unknown };
  if (typeof config !== 'object' || config === null || typeof middlewareStack !== 'object' || middlewareStack === null) {
    return client as DynamoDBDocumentClient;
  }
  return DynamoDBDocumentClient.from(client as never, config.translateConfig);
}
