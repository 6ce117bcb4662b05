import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { vi } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { inboxKey } from '../../shared/consumer/inbox.js';
import type { TransactItem } from '../../shared/consumer/types.js';
import type { LocalClients } from '../../shared/local/clients.js';
import { anEnvelope, TEST_SOURCE } from './envelopes.js';
import { recordingTelemetry } from './recording-telemetry.js';

/** The key of an event's view item, which the handlers of {@link consumerWriteBatch} write. */
export const viewKey = (eventId: string) => ({ pk: `VIEW#${eventId}`, sk: 'VIEW' });

/**
 * A batch of two events through a consumer on DynamoDB Local, for tests of what a handler's write
 * may hold: `runBatch(name, commit, write)` runs it under consumer `name`, the first event's handler
 * adding `write(viewKey)`, the second's a plain Put of its view; it returns their envelopes and
 * outcomes, how many requests carried the first event's write (none when it is refused before
 * sending) and how many group transactions failed (commit: 'batch'). `get` and `inboxRecord` read back.
 */
export function consumerWriteBatch(clients: LocalClients, table: () => string) {
  const get = async (Key: Record<string, unknown>) =>
    (await clients.document.send(new GetCommand({ TableName: table(), Key, ConsistentRead: true }))).Item;
  const inboxRecord = (consumer: string, eventId: string) => get(inboxKey(consumer, { source: TEST_SOURCE, id: eventId }));

  async function runBatch(name: string, commit: 'event' | 'batch', write: (key: { pk: string; sk: string }) => TransactItem) {
    const telemetry = recordingTelemetry();
    const consumer = createConsumer({
      name,
      sources: [TEST_SOURCE],
      handlers: {
        'order.placed': {
          handle: (event, ctx) => {
            const key = viewKey(event.id);
            ctx.write(event.subject.endsWith('bad') ? write(key) : { Put: { TableName: table(), Item: { ...key, ok: true } } });
          },
        },
      },
      inbox: { document: clients.document, tableName: table() },
      logger: telemetry.logger,
      metrics: telemetry.metrics,
      commit,
    });
    const bad = anEnvelope({ aggregateId: `${name}-bad` });
    const good = anEnvelope({ aggregateId: `${name}-good` });
    const send = vi.spyOn(clients.document, 'send');
    try {
      const { outcomes, batchItemFailures } = await consumer.process([
        { messageId: 'm1', body: bad.body },
        { messageId: 'm2', body: good.body },
      ]);
      const badKey = viewKey(bad.id).pk;
      const sentBad = send.mock.calls.filter(([command]) => JSON.stringify(command.input ?? {}).includes(badKey)).length;
      // A group taken apart after its transaction failed (commit: 'batch').
      const groupFailed = telemetry.logs.filter((log) => log.message.startsWith("The batch's group transaction failed")).length;
      return { bad, good, outcomes, batchItemFailures, sentBad, groupFailed };
    } finally {
      send.mockRestore();
    }
  }

  return { get, inboxRecord, runBatch };
}
