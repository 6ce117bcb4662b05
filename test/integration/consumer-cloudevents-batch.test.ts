import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createConsumer } from '../../shared/consumer/consumer.js';
import type { ConsumerOptions, MessageOutcome, TransactionContext } from '../../shared/consumer/types.js';
import { batchBody } from '../../shared/envelope.js';
import { anEnvelope, anSqsEvent, anSqsRecord, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-ce-batch'));
});

afterAll(() => clients.destroy());

function consumerWith(name: string, handlers: ConsumerOptions['handlers']) {
  const telemetry = recordingTelemetry();
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    handlers,
    inbox: { document: clients.document, tableName },
    sequenceTracking: true,
    logger: telemetry.logger,
    metrics: telemetry.metrics,
  });
  return { consumer, ...telemetry };
}

const noteWrite = (key: string, ctx: TransactionContext) =>
  ctx.write({ Put: { TableName: tableName, Item: { pk: `NOTE#${ctx.consumer}#${key}`, sk: 'NOTE' } } });

/** A batch message of `aggregateId`'s events `first`…`last`, as the relay publishes it. */
const batchRecord = (aggregateId: string, first: number, last: number, messageId: string, type = 'order.placed') =>
  anSqsRecord(
    batchBody(
      Array.from(
        { length: last - first + 1 },
        (_, i) => anEnvelope({ id: `${aggregateId}-${first + i}`, aggregateId, sequence: first + i, type }).body,
      ),
    ),
    `order#${aggregateId}`,
    messageId,
  );

const statuses = (outcome: MessageOutcome | undefined) =>
  outcome !== undefined && outcome.status !== 'skipped' ? outcome.events?.map((e) => e.status) : undefined;

describe('a consumer of CloudEvents batch messages', () => {
  it('handles each event of a batch in order, once, and acknowledges a redelivery as duplicates', async () => {
    const handled: string[] = [];
    const { consumer, counts } = consumerWith('ce-batch-order', {
      'order.placed': {
        handle: (event, ctx) => {
          handled.push(`${event.subject}${event.aggregatesequence}`);
          noteWrite(event.id, ctx);
        },
      },
    });
    const event = anSqsEvent([batchRecord('A', 1, 4, 'm1'), batchRecord('A', 5, 6, 'm2')]);

    const first = await consumer.process(event.Records.map((r) => ({ messageId: r.messageId, body: r.body, messageGroupId: 'order#A' })));
    expect(first.batchItemFailures).toEqual([]);
    expect(handled).toEqual(['A1', 'A2', 'A3', 'A4', 'A5', 'A6']);
    expect(first.outcomes[0]).toMatchObject({ status: 'processed', messageId: 'm1', eventId: 'A-4' });
    expect(statuses(first.outcomes[0])).toEqual(['processed', 'processed', 'processed', 'processed']);
    expect(counts.get('EventsProcessed')).toBe(6);
    expect(counts.get('SequenceGaps')).toBeUndefined();

    const again = await consumer.handler(event);
    expect(again.batchItemFailures).toEqual([]);
    expect(handled).toHaveLength(6);
    expect(counts.get('DuplicateEvents')).toBe(6);
  });

  it('stops a batch at its failing event and its group behind it; the retry skips the events already handled', async () => {
    const handled: string[] = [];
    let broken = true;
    const { consumer } = consumerWith('ce-batch-fail', {
      'order.placed': {
        handle: (event, ctx) => {
          const key = `${event.subject}${event.aggregatesequence}`;
          if (broken && key === 'B3') throw new Error('B3 cannot be handled yet');
          handled.push(key);
          noteWrite(event.id, ctx);
        },
      },
    });
    const event = anSqsEvent([batchRecord('B', 1, 5, 'b1'), batchRecord('B', 6, 7, 'b2'), batchRecord('C', 1, 2, 'c1')]);

    const response = await consumer.handler(event);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'b1' }, { itemIdentifier: 'b2' }]);
    expect(handled).toEqual(['B1', 'B2', 'C1', 'C2']);

    broken = false;
    const retry = await consumer.process(
      [batchRecord('B', 1, 5, 'b1'), batchRecord('B', 6, 7, 'b2')].map((r) => ({
        messageId: r.messageId,
        body: r.body,
        messageGroupId: 'order#B',
      })),
    );
    expect(retry.batchItemFailures).toEqual([]);
    expect(statuses(retry.outcomes[0])).toEqual(['duplicate', 'duplicate', 'processed', 'processed', 'processed']);
    expect(handled).toEqual(['B1', 'B2', 'C1', 'C2', 'B3', 'B4', 'B5', 'B6', 'B7']);
  });

  it('rejects a batch at the event whose data fails its schema, having handled the events before it', async () => {
    const handled: number[] = [];
    const { consumer } = consumerWith('ce-batch-schema', {
      'order.placed': {
        schema: z.object({ total: z.number().max(100) }),
        handle: (event, ctx) => {
          handled.push(event.aggregatesequence);
          noteWrite(event.id, ctx);
        },
      },
    });
    const bodies = [10, 20, 500, 30].map((total, i) => anEnvelope({ aggregateId: 'D', sequence: i + 1, data: { total } }).body);
    const { outcomes, batchItemFailures } = await consumer.process([
      { messageId: 'd1', body: batchBody(bodies), messageGroupId: 'order#D' },
    ]);
    expect(batchItemFailures).toEqual([{ itemIdentifier: 'd1' }]);
    expect(outcomes[0]).toMatchObject({ status: 'rejected', error: { code: 'SCHEMA_VALIDATION_FAILED' } });
    expect(statuses(outcomes[0])).toEqual(['processed', 'processed', 'rejected']);
    expect(handled).toEqual([1, 2]);
  });

  it('rejects a batch with an event of a type it has no handler for before handling any of its events', async () => {
    const handled: string[] = [];
    const { consumer } = consumerWith('ce-batch-unknown', { 'order.placed': { handle: (event) => void handled.push(event.id) } });
    const body = batchBody([
      anEnvelope({ aggregateId: 'E', sequence: 1 }).body,
      anEnvelope({ aggregateId: 'E', sequence: 2, type: 'order.lost' }).body,
    ]);
    const { outcomes } = await consumer.process([{ messageId: 'e1', body }]);
    expect(outcomes[0]).toMatchObject({ status: 'rejected', error: { code: 'UNKNOWN_EVENT_TYPE' } });
    expect(handled).toEqual([]);
  });
});
