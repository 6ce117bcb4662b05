import { gzipSync } from 'node:zlib';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { archiveObjectKey, encodeArchiveObject } from '../../shared/archive/layout.js';
import { replayArchive } from '../../shared/archive/replay.js';
import { REPLAY_ATTRIBUTE } from '../../shared/envelope.js';
import { messageGroupId } from '../../shared/relay/publish-entry.js';
import { aHistory, type HistoryEvent, putArchive } from '../helpers/archive-fixtures.js';
import { emulatorForFile } from '../helpers/local.js';

const { server, clients } = await emulatorForFile();

const DAY = 86_400_000;
const START = Date.parse('2026-03-01T00:00:00Z');
const TYPES = ['order.placed', 'order.paid', 'order.shipped'];

/** Every message on a queue, in each group's (FIFO) or the queue's order. */
function messagesOn(name: string) {
  const state = server.inspectQueue(name);
  if (state === undefined) throw new Error(`no queue ${name}`);
  return [...state.messages.ready, ...state.messages.delayed, ...state.messages.inflight.map((e) => e.message)];
}

/** Per aggregate, the sequences in the order the queue holds them. */
function sequencesByAggregate(bodies: readonly string[]): Map<string, number[]> {
  const byAggregate = new Map<string, number[]>();
  for (const body of bodies) {
    const envelope = JSON.parse(body) as { subject: string; aggregatesequence: number };
    byAggregate.set(envelope.subject, [...(byAggregate.get(envelope.subject) ?? []), envelope.aggregatesequence]);
  }
  return byAggregate;
}

const inOrder = (sequences: readonly number[]) => sequences.every((s, i) => i === 0 || s > (sequences[i - 1] as number));

let buckets = 0;
async function archiveOf(events: readonly HistoryEvent[], options?: Parameters<typeof putArchive>[3]) {
  const bucket = `archive-${++buckets}`;
  server.createBucket(bucket);
  await putArchive(clients.s3, bucket, events, options);
  return bucket;
}

describe('replayArchive', () => {
  it('sends exactly the events of one type in the range, each once, in per-aggregate order, marked as a replay', async () => {
    // Several days, the times of one write in ten ahead of the next one's by up to 20 s: some straddle an hour.
    const history = aHistory({ events: 2_000, aggregates: 40, types: TYPES, startMs: START, spanMs: 3 * DAY, skewMs: 20_000 });
    const bucket = await archiveOf(history, { duplicateRatio: 0.05 });
    const queue = server.createQueue('replay-one-type.fifo', { attributes: { FifoQueue: 'true' } });
    const from = new Date(START + DAY / 2);
    const to = new Date(START + 2 * DAY + 3_600_000 * 5.5);

    const summary = await replayArchive({
      s3: clients.s3,
      sqs: clients.sqs,
      bucket,
      from,
      to,
      types: ['order.paid'],
      queueUrl: queue.queueUrl,
    });

    const expected = history.filter(
      (e) => e.type === 'order.paid' && Date.parse(e.time) >= from.getTime() && Date.parse(e.time) < to.getTime(),
    );
    const messages = messagesOn('replay-one-type.fifo');
    const ids = messages.map((m) => (JSON.parse(m.body) as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(expected.map((e) => e.id)));
    expect(summary).toMatchObject({ status: 'completed', sent: expected.length, sentByType: { 'order.paid': expected.length } });
    expect(summary.duplicates).toBeGreaterThan(0);
    expect(summary.corrupt).toEqual([]);
    // Unchanged: the very text the relay published.
    const bodies = new Map(history.map((e) => [e.id, e.body]));
    for (const message of messages) {
      const event = JSON.parse(message.body) as { id: string; subject: string; type: string; aggregatetype: string };
      expect(message.body).toBe(bodies.get(event.id));
      expect(message.messageAttributes[REPLAY_ATTRIBUTE]?.StringValue).toBe(summary.replayId);
      expect(message.messageAttributes.type?.StringValue).toBe('order.paid');
      expect(message.messageAttributes.aggregatetype?.StringValue).toBe('order');
      expect(message.messageGroupId).toBe(messageGroupId({ aggregateType: 'order', aggregateId: event.subject }));
      expect(message.messageDeduplicationId).toBe(event.id);
    }
    for (const [aggregate, sequences] of sequencesByAggregate(messages.map((m) => m.body))) {
      expect(inOrder(sequences), `${aggregate}: ${sequences.join(',')}`).toBe(true);
    }
  }, 120_000);

  it('reports a corrupt object and a line that is not an envelope by key and line, skips them, and completes', async () => {
    const history = aHistory({ events: 60, aggregates: 6, types: ['order.placed'], startMs: START, spanMs: 3_600_000 * 3 });
    const bucket = await archiveOf(history);
    const partition = { aggregateType: 'order', type: 'order.placed', hour: '2026-03-01T01' };
    const notGzip = archiveObjectKey(partition, 'not-gzip');
    const badLines = archiveObjectKey(partition, 'bad-lines');
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: notGzip, Body: 'plain text, not gzip' }));
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: badLines, Body: encodeArchiveObject(['{"id":', '{"id":"x"}']) }));
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'events/v1/stray.txt', Body: gzipSync('x') }));
    const queue = server.createQueue('replay-corrupt');

    const summary = await replayArchive({
      s3: clients.s3,
      sqs: clients.sqs,
      bucket,
      from: '2026-03-01',
      to: '2026-03-02',
      queueUrl: queue.queueUrl,
    });

    expect(summary.status).toBe('completed');
    expect(summary.sent).toBe(60);
    expect(messagesOn('replay-corrupt')).toHaveLength(60);
    expect(summary.corrupt).toEqual([
      { key: badLines, line: 1, reason: expect.stringContaining('not JSON') },
      { key: badLines, line: 2, reason: expect.stringContaining('not an outbox envelope') },
      { key: notGzip, reason: expect.stringContaining('is not gzip') },
    ]);
  }, 60_000);

  it('sends nothing in a dry run, and counts what it would send', async () => {
    const history = aHistory({ events: 100, aggregates: 10, types: TYPES, startMs: START, spanMs: DAY });
    const bucket = await archiveOf(history, { duplicateRatio: 0.2 });
    const queue = server.createQueue('replay-dry');

    const summary = await replayArchive({
      s3: clients.s3,
      sqs: clients.sqs,
      bucket,
      from: '2026-03-01',
      to: '2026-03-02',
      queueUrl: queue.queueUrl,
      dryRun: true,
    });

    expect(summary).toMatchObject({ status: 'dry-run', sent: 100 });
    expect(messagesOn('replay-dry')).toHaveLength(0);
  });
});
