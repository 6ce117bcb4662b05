import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createConsumer } from '../../shared/consumer/consumer.js';
import type { ConsumerOptions } from '../../shared/consumer/types.js';
import { TEST_SOURCE } from './envelopes.js';
import { recordingTelemetry } from './recording-telemetry.js';

/** The counter item `countingConsumer(name, …)` adds to for an aggregate. */
const counterKey = (name: string, aggregateId: string) => ({ pk: `COUNT#${name}#${aggregateId}`, sk: 'COUNT' });

/**
 * A consumer of `order.placed` (from {@link TEST_SOURCE}) whose handler adds 1 to the `applied`
 * count of a counter item of the event's aggregate, in the inbox's transaction: an event applied
 * twice counts 2. Its inbox is `tableName` through `document`; logs and metrics are recorded.
 */
export function countingConsumer(name: string, document: DynamoDBDocumentClient, tableName: string, extra: Partial<ConsumerOptions> = {}) {
  const telemetry = recordingTelemetry();
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    inbox: { document, tableName },
    handlers: {
      'order.placed': {
        handle: (event, ctx) =>
          ctx.write({
            Update: {
              TableName: tableName,
              Key: counterKey(name, event.subject ?? ''),
              UpdateExpression: 'ADD applied :one',
              ExpressionAttributeValues: { ':one': 1 },
            },
          }),
      },
    },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    ...extra,
  });
  return { consumer, ...telemetry };
}

/** How many times `countingConsumer(name, …)` applied an event of `aggregateId` (`undefined`: never). */
export async function appliedCount(document: DynamoDBDocumentClient, tableName: string, name: string, aggregateId: string) {
  const { Item } = await document.send(new GetCommand({ TableName: tableName, Key: counterKey(name, aggregateId), ConsistentRead: true }));
  return Item?.applied as number | undefined;
}
