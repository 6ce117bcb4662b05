import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/*
 * The minimal SQS consumer the cold-start benchmark measures the helper's against: the same
 * business write per message, no parsing beyond JSON.parse, no trust checks, no dedup.
 */
const tableName = process.env.BENCH_TABLE_NAME ?? '';
const document = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const envelope = JSON.parse(record.body) as { subject: string };
      await document.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: `COUNTER#${envelope.subject}`, sk: 'COUNTER' },
          UpdateExpression: 'ADD applied :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
    } catch {
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};
