import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from 'dynamodb-outbox';
import { orderProjection } from './projection.js';

/** Environment of the example consumer Lambda. */
export const EXAMPLE_CONSUMER_ENV = Object.freeze({
  /** Table holding the order views and the inbox records (the outbox table or the consumer's own). */
  tableName: 'CONSUMER_TABLE_NAME',
});

const tableName = requireEnv(EXAMPLE_CONSUMER_ENV.tableName);
const document = DynamoDBDocumentClient.from(new DynamoDBClient({}));

/** SQS-triggered; the event source mapping must enable `ReportBatchItemFailures`. */
export const { handler } = orderProjection({ inbox: { document, tableName } });
