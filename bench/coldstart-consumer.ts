import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createConsumer } from '../shared/consumer/index.js';

/*
 * A consumer Lambda built with the consumer helper, as a user writes one (docs/consumers.md), for
 * the cold-start benchmark: the inbox by transaction, the business write as the event's.
 */
const tableName = process.env.BENCH_TABLE_NAME ?? '';
const document = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const { handler } = createConsumer({
  name: 'coldstart',
  sources: [process.env.BENCH_SOURCE ?? ''],
  inbox: { document, tableName },
  handlers: {
    'order.placed': {
      handle: (event, ctx) =>
        ctx.write({
          Update: {
            TableName: tableName,
            Key: { pk: `COUNTER#${event.subject}`, sk: 'COUNTER' },
            UpdateExpression: 'ADD applied :one',
            ExpressionAttributeValues: { ':one': 1 },
          },
        }),
    },
  },
});
