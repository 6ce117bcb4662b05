import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TranslateConfig } from '@aws-sdk/lib-dynamodb';

/**
 * A DocumentClient over a real DynamoDBClient (its middleware, its serializer) whose transport
 * keeps each request body and answers it with success, in memory; `inputs` holds each command's
 * input as middleware of the initialize step sees it.
 */
export function capturingClient(translateConfig?: TranslateConfig) {
  const bodies: Record<string, unknown>[] = [];
  const inputs: unknown[] = [];
  const requestHandler = {
    handle: async (request: { body: string | Uint8Array }) => {
      // Read as bytes: the SDK's JSON body is a Uint8Array whose string methods it warns about.
      bodies.push(JSON.parse(typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body)));
      const headers = { 'content-type': 'application/x-amz-json-1.0' };
      return { response: { statusCode: 200, headers, body: Readable.from([Buffer.from('{}')]) } };
    },
  };
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://dynamodb.invalid',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    requestHandler,
  });
  client.middlewareStack.add(
    (next) => (args) => {
      inputs.push(args.input);
      return next(args);
    },
    { step: 'initialize', name: 'keepInput' },
  );
  return { client, document: DynamoDBDocumentClient.from(client, translateConfig), bodies, inputs };
}
