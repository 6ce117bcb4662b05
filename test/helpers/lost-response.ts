import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';

/**
 * A DocumentClient on the run's DynamoDB Local whose first `commandName` request is applied but
 * whose answer is lost (`ECONNRESET`): the SDK's retry strategy then sends it again, as it does
 * in production after a reset connection or a timeout once the write went through.
 */
export function losingFirstAnswerOf(commandName: string): DynamoDBDocumentClient {
  const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
  let lost = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === commandName && !lost) {
        lost = true;
        throw Object.assign(new Error('socket hang up (the answer was lost after the write was applied)'), { code: 'ECONNRESET' });
      }
      return result;
    },
    { step: 'finalizeRequest', name: 'loseFirstAnswer' },
  );
  return DynamoDBDocumentClient.from(client);
}
