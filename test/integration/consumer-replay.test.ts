import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMER_LAG_METRIC, consumerMetrics, createConsumer } from '../../shared/consumer/consumer.js';
import { sequenceKey } from '../../shared/consumer/sequence-tracker.js';
import type { ConsumerMessage, ConsumerOptions, TransactionContext } from '../../shared/consumer/types.js';
import { REPLAY_ATTRIBUTE } from '../../shared/envelope.js';
import { anEnvelope, anSqsEvent, anSqsRecord, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { captureEmf } from '../helpers/metrics.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-replay'));
});

afterAll(() => clients.destroy());

/** A tracked consumer of `order.placed` whose handler notes each event's position and replay id. */
function trackedConsumer(name: string, extra: Partial<ConsumerOptions> = {}) {
  const telemetry = recordingTelemetry();
  const seen: { sequence: number; replayId: string | undefined }[] = [];
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    handlers: {
      'order.placed': {
        handle: (event, ctx: TransactionContext) => {
          seen.push({ sequence: event.aggregatesequence, replayId: ctx.replayId });
        },
      },
    },
    inbox: { document: clients.document, tableName },
    sequenceTracking: true,
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    ...extra,
  });
  return { consumer, seen, ...telemetry };
}

/** A message as replay sends it: the envelope's JSON, unchanged, marked with the replay's id. */
const replayed = (body: string, replayId = 'replay-1'): ConsumerMessage => ({
  messageId: `replayed-${Math.random().toString(36).slice(2)}`,
  body,
  messageAttributes: {
    [REPLAY_ATTRIBUTE]: { dataType: 'String', stringValue: replayId },
    type: { dataType: 'String', stringValue: 'order.placed' },
    aggregatetype: { dataType: 'String', stringValue: 'order' },
  },
});
const live = (body: string): ConsumerMessage => ({ messageId: `live-${Math.random().toString(36).slice(2)}`, body });

async function positionOf(consumer: string, aggregateId: string): Promise<number | undefined> {
  const { Item } = await clients.document.send(new GetCommand({ TableName: tableName, Key: sequenceKey(consumer, 'order', aggregateId) }));
  return Item?.lastSequence as number | undefined;
}

describe('replayed events in the consumer helper', () => {
  it('reports no gap for a replayed event past a gap, counts it as replayed, tells the handler and moves the position forward', async () => {
    const { consumer, seen, logs, counts } = trackedConsumer('replay-gap');

    await consumer.process([live(anEnvelope({ aggregateId: 'g-1', sequence: 1 }).body)]);
    const result = await consumer.process([replayed(anEnvelope({ aggregateId: 'g-1', sequence: 4 }).body, 'replay-gap-1')]);

    expect(result.outcomes.map((o) => o.status)).toEqual(['processed']);
    expect(seen).toEqual([
      { sequence: 1, replayId: undefined },
      { sequence: 4, replayId: 'replay-gap-1' },
    ]);
    expect(counts.get('SequenceGaps')).toBeUndefined();
    expect(logs.filter((l) => l.message.startsWith('Sequence gap'))).toEqual([]);
    expect(counts.get('ReplayedEvents')).toBe(1);
    expect(counts.get('EventsProcessed')).toBe(2);
    expect(await positionOf('replay-gap', 'g-1')).toBe(4);

    // A live event after the replayed one is measured from the position the replay left.
    await consumer.process([live(anEnvelope({ aggregateId: 'g-1', sequence: 5 }).body)]);
    expect(counts.get('SequenceGaps')).toBeUndefined();
  });

  it('skips a replayed duplicate of an event already applied, through the inbox, and counts it as a duplicate and as replayed', async () => {
    const { consumer, seen, counts } = trackedConsumer('replay-duplicate');
    const event = anEnvelope({ aggregateId: 'd-1', sequence: 1 });

    await consumer.process([live(event.body)]);
    const result = await consumer.process([replayed(event.body)]);

    expect(result.outcomes).toEqual([expect.objectContaining({ status: 'duplicate', eventId: event.id })]);
    expect(result.batchItemFailures).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(counts.get('DuplicateEvents')).toBe(1);
    expect(counts.get('ReplayedEvents')).toBe(1);
    expect(counts.get('SequenceOutOfOrder')).toBeUndefined();
  });

  it('raises no out-of-order alarm for a replayed event older than the live ones, and leaves the position where the live ones put it', async () => {
    const { consumer, seen, logs, counts } = trackedConsumer('replay-late');

    await consumer.process([live(anEnvelope({ aggregateId: 'l-1', sequence: 5 }).body)]);
    await consumer.process([live(anEnvelope({ aggregateId: 'l-1', sequence: 6 }).body)]);
    const result = await consumer.process([replayed(anEnvelope({ aggregateId: 'l-1', sequence: 3 }).body)]);

    expect(result.outcomes.map((o) => o.status)).toEqual(['processed']);
    expect(seen.map((s) => s.sequence)).toEqual([5, 6, 3]);
    expect(counts.get('SequenceOutOfOrder')).toBeUndefined();
    expect(logs.filter((l) => l.message.startsWith('Out-of-order'))).toEqual([]);
    expect(counts.get('ReplayedEvents')).toBe(1);
    expect(await positionOf('replay-late', 'l-1')).toBe(6);

    // A live event arriving late is still reported: the marker relaxes replayed events only.
    await consumer.process([live(anEnvelope({ aggregateId: 'l-1', sequence: 2 }).body)]);
    expect(counts.get('SequenceOutOfOrder')).toBe(1);
  });

  it('reads the marker of a Lambda SQS record too, and keeps a replayed event out of HandledLag', async () => {
    const metrics = consumerMetrics('replay-lag', { AWS_LAMBDA_FUNCTION_NAME: 'replay-fn' });
    const written = captureEmf(metrics);
    const replayIds: (string | undefined)[] = [];
    const consumer = createConsumer({
      name: 'replay-lag',
      sources: [TEST_SOURCE],
      handlers: { 'order.placed': { idempotency: 'claim', handle: (_event, ctx) => void replayIds.push(ctx.replayId) } },
      inbox: { document: clients.document, tableName },
      metrics,
    });
    const record: SQSRecord = {
      ...anSqsRecord(anEnvelope({ aggregateId: 'h-1', sequence: 1 }).body),
      messageAttributes: { [REPLAY_ATTRIBUTE]: { dataType: 'String', stringValue: 'replay-lambda' } },
    };

    expect((await consumer.handler(anSqsEvent([record]))).batchItemFailures).toEqual([]);

    expect(replayIds).toEqual(['replay-lambda']);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ EventsProcessed: 1, ReplayedEvents: 1 });
    expect(written.some((line) => CONSUMER_LAG_METRIC in line)).toBe(false);
  });

  it('rejects a message whose replay marker carries no String value, before any handler runs', async () => {
    const { consumer, seen } = trackedConsumer('replay-malformed');
    const message: ConsumerMessage = {
      ...live(anEnvelope({ aggregateId: 'm-1', sequence: 1 }).body),
      messageAttributes: { [REPLAY_ATTRIBUTE]: { dataType: 'Binary' } },
    };

    const result = await consumer.process([message]);

    expect(result.outcomes).toEqual([expect.objectContaining({ status: 'rejected' })]);
    const outcome = result.outcomes[0] as Extract<(typeof result.outcomes)[0], { status: 'rejected' }>;
    expect(outcome.error.code).toBe('ATTRIBUTE_MISMATCH');
    expect(outcome.error.message).toContain(`${REPLAY_ATTRIBUTE} of message`);
    expect(outcome.error.message).toContain("allowed: a String holding the replay's id, or no such attribute");
    expect(seen).toEqual([]);
  });

  it('rejects a marked event of a source the consumer does not trust: the marker never stands for trust', async () => {
    const { consumer, seen } = trackedConsumer('replay-untrusted');
    const forged = JSON.stringify({ ...JSON.parse(anEnvelope({ aggregateId: 'u-1', sequence: 1 }).body), source: 'urn:someone:else' });

    const result = await consumer.process([replayed(forged)]);

    expect(result.outcomes).toEqual([expect.objectContaining({ status: 'rejected' })]);
    expect((result.outcomes[0] as { error: { code: string } }).error.code).toBe('UNTRUSTED_SOURCE');
    expect(seen).toEqual([]);
  });
});
