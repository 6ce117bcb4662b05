import { DynamoDBStreamsClient, type DynamoDBStreamsClientConfig, errorTypeRegistries } from '@aws-sdk/client-dynamodb-streams';
import { SNSClient, type SNSClientConfig } from '@aws-sdk/client-sns';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { StreamRecordsJsonCodec } from './stream-records-codec.js';

interface ClientWithStack {
  readonly middlewareStack: { remove(name: string): boolean };
}

/**
 * Without a logger, the SDK still builds the redacted copy of every request and response it
 * would log (its logger middleware calls the no-op logger with them): a walk of each
 * `GetRecords` page and each `PublishBatch` request that nobody reads. With a logger given,
 * the middleware stays.
 */
function withoutUnreadLogCopies<C extends ClientWithStack>(client: C, config: { logger?: unknown }): C {
  if (config.logger === undefined) client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/**
 * A DynamoDB Streams client for reading outbox records: attribute values are decoded straight
 * from the response's JSON (about a quarter of the default decoding's CPU for a `GetRecords`
 * page), and nothing is prepared for a logger that is not there. Results and errors are those
 * of a plain `DynamoDBStreamsClient`.
 *
 * @example
 * ```ts
 * const streams = streamsClient({ region: 'eu-west-1' });
 * ```
 */
export function streamsClient(config: DynamoDBStreamsClientConfig = {}): DynamoDBStreamsClient {
  const client = new DynamoDBStreamsClient({
    protocolSettings: {
      defaultNamespace: 'com.amazonaws.dynamodbstreams',
      errorTypeRegistries,
      xmlNamespace: 'http://dynamodb.amazonaws.com/doc/2012-08-10/',
      version: '2012-08-10',
      serviceTarget: 'DynamoDBStreams_20120810',
      jsonCodec: new StreamRecordsJsonCodec(),
    },
    ...config,
  });
  return withoutUnreadLogCopies(client, config);
}

/** An SNS client that prepares nothing for a logger that is not there; see {@link streamsClient}. */
export const snsClient = (config: SNSClientConfig = {}): SNSClient => withoutUnreadLogCopies(new SNSClient(config), config);

/** An SQS client that prepares nothing for a logger that is not there; see {@link streamsClient}. */
export const sqsClient = (config: SQSClientConfig = {}): SQSClient => withoutUnreadLogCopies(new SQSClient(config), config);
