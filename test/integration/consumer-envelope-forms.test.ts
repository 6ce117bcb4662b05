import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { sequenceKey } from '../../shared/consumer/sequence-tracker.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-envelope-forms'));
});

afterAll(() => clients.destroy());

/** A tracking consumer whose handler notes each event's position, and a delivery of one envelope of either form. */
function trackingConsumer(name: string) {
  const telemetry = recordingTelemetry();
  const seen: number[] = [];
  const consumer = createConsumer({
    sources: [TEST_SOURCE],
    name,
    inbox: { document: clients.document, tableName },
    sequenceTracking: true,
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    handlers: {
      'order.placed': {
        handle: (event, ctx) => {
          seen.push(event.aggregatesequence);
          ctx.write({ Put: { TableName: tableName, Item: { pk: `NOTE#${name}#${event.aggregatesequence}`, sk: 'NOTE' } } });
        },
      },
    },
  });
  const deliver = async (sequence: number, legacy: boolean) => {
    const { body } = anEnvelope({ aggregateId: name, sequence, legacy });
    const { outcomes } = await consumer.process([{ messageId: `${name}-${sequence}`, body }]);
    return outcomes[0]?.status;
  };
  return { deliver, seen, ...telemetry };
}

describe('envelopes of an earlier relay and of this one', () => {
  it('handles old events 1..3 (numeric sequence) then new events 4..5 (aggregatesequence) of one aggregate without a gap', async () => {
    const { deliver, seen, counts } = trackingConsumer('switch');

    const statuses = [];
    for (const sequence of [1, 2, 3]) statuses.push(await deliver(sequence, true));
    for (const sequence of [4, 5]) statuses.push(await deliver(sequence, false));

    expect(statuses).toEqual(['processed', 'processed', 'processed', 'processed', 'processed']);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(counts.get('SequenceGaps')).toBeUndefined();
    expect(counts.get('SequenceOutOfOrder')).toBeUndefined();
    const { Item } = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: sequenceKey('switch', 'order', 'switch'), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ lastSequence: 5 });
  });

  it('reports a gap and a late event across the switch, as within one form', async () => {
    const { deliver, counts, logs } = trackingConsumer('switch-gap');

    await deliver(1, true);
    await deliver(2, true);
    await deliver(4, false);
    await deliver(3, true);

    expect(counts.get('SequenceGaps')).toBe(1);
    expect(logs.find((l) => l.message.startsWith('Sequence gap'))?.attributes).toMatchObject({
      missing: 1,
      last: { sequence: 2 },
      received: { sequence: 4 },
    });
    expect(counts.get('SequenceOutOfOrder')).toBe(1);
    expect(logs.find((l) => l.message.startsWith('Out-of-order'))?.attributes).toMatchObject({
      last: { sequence: 4 },
      received: { sequence: 3 },
    });
  });
});
