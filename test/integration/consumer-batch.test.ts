import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import type { ConsumerOptions, TransactionContext } from '../../shared/consumer/types.js';
import { anEnvelope, anSqsEvent, anSqsRecord } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-batch'));
});

afterAll(() => clients.destroy());

function consumerWith(name: string, handlers: ConsumerOptions['handlers'], extra: Partial<ConsumerOptions> = {}) {
  const telemetry = recordingTelemetry();
  const consumer = createConsumer({
    name,
    handlers,
    inbox: { document: clients.document, tableName },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    ...extra,
  });
  return { consumer, ...telemetry };
}

const noteWrite = (key: string, ctx: TransactionContext) =>
  ctx.write({ Put: { TableName: tableName, Item: { pk: `NOTE#${ctx.consumer}#${key}`, sk: 'NOTE' } } });

describe('FIFO batch semantics (Lambda handler)', () => {
  it('reports the failed message and the later messages of its group failed, unprocessed, and lets other groups go on', async () => {
    const handled: string[] = [];
    const { consumer } = consumerWith('fifo-batch', {
      'order.placed': {
        handle: (event, ctx) => {
          const key = `${event.subject}${event.sequence}`;
          if (key === 'A2') throw new Error('A2 cannot be handled yet');
          handled.push(key);
          noteWrite(key, ctx);
        },
      },
    });
    const record = (aggregateId: string, sequence: number) =>
      anSqsRecord(anEnvelope({ aggregateId, sequence }).body, `order#${aggregateId}`, `${aggregateId}${sequence}`);
    const event = anSqsEvent([record('A', 1), record('B', 1), record('A', 2), record('B', 2), record('A', 3), record('C', 1)]);

    const response = await consumer.handler(event);

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'A2' }, { itemIdentifier: 'A3' }]);
    expect(handled).toEqual(['A1', 'B1', 'B2', 'C1']);
  });

  it('processes every message of a standard batch even when one fails', async () => {
    const handled: string[] = [];
    const { consumer } = consumerWith(
      'standard-batch',
      {
        'order.placed': {
          handle: (event, ctx) => {
            if (event.subject === 'bad') throw new Error('boom');
            handled.push(event.subject);
            noteWrite(event.subject, ctx);
          },
        },
      },
      { concurrency: 3 },
    );
    const records = ['s1', 'bad', 's2', 's3'].map((id) => anSqsRecord(anEnvelope({ aggregateId: id }).body, undefined, `m-${id}`));

    const response = await consumer.handler(anSqsEvent(records));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-bad' }]);
    expect(handled.sort()).toEqual(['s1', 's2', 's3']);
  });
});

describe('inbox transaction limits', () => {
  it('fails an event whose handler adds more writes than one transaction takes, writing nothing', async () => {
    const { consumer } = consumerWith('greedy', {
      'order.placed': {
        handle: (event, ctx) => {
          for (let i = 0; i < 100; i++) noteWrite(`${event.id}-${i}`, ctx);
        },
      },
    });
    const event = anEnvelope({ aggregateId: 'greedy-1' });

    const result = await consumer.process([{ messageId: 'g-1', body: event.body }]);

    const outcome = result.outcomes[0];
    expect(outcome?.status).toBe('failed');
    expect(outcome?.status === 'failed' && outcome.error).toMatchObject({
      code: 'INVALID_INBOX_WRITE',
      message: expect.stringContaining('added 100 writes; allowed: at most 99'),
    });
    const { Item } = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: { pk: `NOTE#greedy#${event.id}-0`, sk: 'NOTE' } }),
    );
    expect(Item).toBeUndefined();
  });
});

describe('sequence tracking', () => {
  it('reports a gap and a late arrival as a log line and a metric', async () => {
    const { consumer, logs, counts } = consumerWith(
      'tracked',
      { 'order.placed': { handle: (event, ctx) => noteWrite(`${event.subject}-${event.sequence}`, ctx) } },
      { sequenceTracking: true },
    );
    const deliver = (sequence: number) =>
      consumer.process([{ messageId: `t-${sequence}`, body: anEnvelope({ aggregateId: 'trk', sequence }).body }]);

    await deliver(1);
    await deliver(2);
    expect(counts.get('SequenceGaps')).toBeUndefined();

    await deliver(4);
    const gap = logs.find((l) => l.message.startsWith('Sequence gap'));
    expect(gap?.attributes).toMatchObject({ aggregateId: 'trk', missing: 1, received: { sequence: 4 }, last: { sequence: 2 } });
    expect(counts.get('SequenceGaps')).toBe(1);

    await deliver(3);
    const late = logs.find((l) => l.message.startsWith('Out-of-order'));
    expect(late?.attributes).toMatchObject({ aggregateId: 'trk', received: { sequence: 3 }, last: { sequence: 4 } });
    expect(counts.get('SequenceOutOfOrder')).toBe(1);
  });

  it('treats a new slot epoch starting at 1 as in order, and one starting later as a gap', async () => {
    const { consumer, counts } = consumerWith(
      'tracked-epochs',
      { 'order.placed': { handle: (event, ctx) => noteWrite(`${event.sequenceepoch}-${event.sequence}`, ctx) } },
      { sequenceTracking: true },
    );
    const deliver = (sequenceEpoch: string, sequence: number) =>
      consumer.process([{ messageId: 'e', body: anEnvelope({ aggregateId: 'ep', sequence, sequenceEpoch }).body }]);

    await deliver('2026-01-01T00:00:00.000Z', 7);
    await deliver('2026-02-01T00:00:00.000Z', 1);
    expect(counts.get('SequenceGaps')).toBeUndefined();
    await deliver('2026-03-01T00:00:00.000Z', 3);
    expect(counts.get('SequenceGaps')).toBe(1);
  });
});
