import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { archiveObjectKey, encodeArchiveObject } from '../../shared/archive/layout.js';
import { replayArchive } from '../../shared/archive/replay.js';
import { ReplayCheckpointError, ReplayStoppedError } from '../../shared/archive/replay-errors.js';
import { formatReplaySummary, replayProgressLine } from '../../shared/archive/replay-summary-format.js';
import type { ReplayProgress } from '../../shared/archive/replay-types.js';
import { envelopeJson, REPLAY_ATTRIBUTE } from '../../shared/envelope.js';
import { messageGroupId } from '../../shared/relay/publish-entry.js';
import { aHistory, type HistorySpec, putArchive } from '../helpers/archive-fixtures.js';
import { emulatorForFile } from '../helpers/local.js';
import { waitFor } from '../helpers/wait.js';

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
/** A fresh, empty archive bucket. */
function aBucket(): string {
  const bucket = `archive-${++buckets}`;
  server.createBucket(bucket);
  return bucket;
}

/** Puts one object per hour, each holding the given envelope texts, under `order`/`order.placed`. */
async function putOrderObjects(bucket: string, byHour: Readonly<Record<string, readonly string[]>>): Promise<void> {
  for (const [hour, texts] of Object.entries(byHour)) {
    const Key = archiveObjectKey({ aggregateType: 'order', type: 'order.placed', hour }, 'a');
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: encodeArchiveObject(texts) }));
  }
}

/** An envelope of aggregate `order`/`aggregateId`, of type `order.placed` unless `event` says otherwise. */
const anOrderEnvelope = (
  aggregateId: string,
  sequence: number,
  event: { id: string; time: string; traceparent?: string; tracestate?: string },
) =>
  envelopeJson(
    { source: 'urn:test', aggregateType: 'order', aggregateId, sequenceEpoch: '2026-01-01T00:00:00.000Z' },
    { type: 'order.placed', data: '{}', ...event },
    sequence,
  );

/** A queue to replay to, FIFO when its name ends in `.fifo`. */
const aQueue = (name: string) => server.createQueue(name, name.endsWith('.fifo') ? { attributes: { FifoQueue: 'true' } } : {});

/** The options replaying 1 March 2026 (UTC) of `bucket` to a new queue `queueName`. */
const dayReplay = (bucket: string, queueName: string) => ({
  s3: clients.s3,
  sqs: clients.sqs,
  bucket,
  from: '2026-03-01',
  to: '2026-03-02',
  queueUrl: aQueue(queueName).queueUrl,
});

interface ScenarioSpec extends Omit<HistorySpec, 'startMs'> {
  /** Each of that share of the archive's envelopes written twice, in another object. @default 0 */
  readonly duplicateRatio?: number;
  /** Give the options a fresh checkpoint file. */
  readonly checkpoint?: boolean;
  /** @default '2026-03-02' */
  readonly to?: string;
}

/**
 * A history from {@link START} archived in a fresh bucket, a queue named `queueName` (FIFO when
 * the name ends in `.fifo`), and the options replaying 1 March 2026 (UTC) of that archive to it.
 */
async function aReplayScenario(queueName: string, spec: ScenarioSpec) {
  const history = aHistory({ ...spec, startMs: START });
  const bucket = aBucket();
  await putArchive(clients.s3, bucket, history, { duplicateRatio: spec.duplicateRatio ?? 0 });
  const checkpointPath = spec.checkpoint === true ? join(mkdtempSync(join(tmpdir(), 'replay-')), 'replay.checkpoint') : undefined;
  const options = {
    ...dayReplay(bucket, queueName),
    ...(spec.to === undefined ? {} : { to: spec.to }),
    ...(checkpointPath === undefined ? {} : { checkpointPath }),
  };
  return { history, bucket, options, messages: () => messagesOn(queueName) };
}

/**
 * An archive where the queue refuses order o-1's second event, at 10:20, for good (U+FFFF is JSON
 * but not a character SQS takes); o-1's third event and o-2's first are in the hour after.
 */
async function aRefusalAcrossHours(): Promise<string> {
  const event = (aggregateId: string, sequence: number, time: string) =>
    anOrderEnvelope(aggregateId, sequence, { id: `${aggregateId}-${sequence}`, time });
  const refused = JSON.stringify({ ...JSON.parse(event('o-1', 2, '2026-03-01T10:20:00.000Z')), note: '\uffff' });
  const bucket = aBucket();
  await putOrderObjects(bucket, {
    '2026-03-01T10': [event('o-1', 1, '2026-03-01T10:10:00.000Z'), refused],
    '2026-03-01T11': [event('o-1', 3, '2026-03-01T11:10:00.000Z'), event('o-2', 1, '2026-03-01T11:10:00.000Z')],
  });
  return bucket;
}

describe('replayArchive', () => {
  it('sends exactly the events of one type in the range, each once, in per-aggregate order, marked as a replay', async () => {
    // Several days, the times of one write in ten ahead of the next one's by up to 20 s: some straddle an hour.
    const {
      history,
      options,
      messages: replayed,
    } = await aReplayScenario('replay-one-type.fifo', {
      events: 2_000,
      aggregates: 40,
      types: TYPES,
      spanMs: 3 * DAY,
      skewMs: 20_000,
      duplicateRatio: 0.05,
    });
    const from = new Date(START + DAY / 2);
    const to = new Date(START + 2 * DAY + 3_600_000 * 5.5);

    const summary = await replayArchive({ ...options, from, to, types: ['order.paid'] });

    const expected = history.filter(
      (e) => e.type === 'order.paid' && Date.parse(e.time) >= from.getTime() && Date.parse(e.time) < to.getTime(),
    );
    const messages = replayed();
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
    const { bucket, options, messages } = await aReplayScenario('replay-corrupt', {
      events: 60,
      aggregates: 6,
      types: ['order.placed'],
      spanMs: 3_600_000 * 3,
    });
    const partition = { aggregateType: 'order', type: 'order.placed', hour: '2026-03-01T01' };
    const notGzip = archiveObjectKey(partition, 'not-gzip');
    const badLines = archiveObjectKey(partition, 'bad-lines');
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: notGzip, Body: 'plain text, not gzip' }));
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: badLines, Body: encodeArchiveObject(['{"id":', '{"id":"x"}']) }));
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'events/v1/stray.txt', Body: gzipSync('x') }));

    const summary = await replayArchive(options);

    expect(summary.status).toBe('completed');
    expect(summary.sent).toBe(60);
    expect(messages()).toHaveLength(60);
    expect(summary.corrupt).toEqual([
      { key: badLines, line: 1, reason: expect.stringContaining('not JSON') },
      { key: badLines, line: 2, reason: expect.stringContaining('not an outbox envelope') },
      { key: notGzip, reason: expect.stringContaining('is not gzip') },
    ]);
  }, 60_000);

  it('sends nothing in a dry run, and counts what it would send', async () => {
    const { options, messages } = await aReplayScenario('replay-dry', {
      events: 100,
      aggregates: 10,
      types: TYPES,
      spanMs: DAY,
      duplicateRatio: 0.2,
    });

    const summary = await replayArchive({ ...options, dryRun: true });

    expect(summary).toMatchObject({ status: 'dry-run', sent: 100 });
    expect(messages()).toHaveLength(0);
  });

  it('says a dry run stopped half-way is interrupted, with partial counts, and sends nothing', async () => {
    const { options, messages } = await aReplayScenario('replay-dry-stop', { events: 100, aggregates: 10, types: TYPES, spanMs: DAY });
    const stop = new AbortController();

    const summary = await replayArchive({ ...options, dryRun: true, signal: stop.signal, onProgress: (p) => p.sent > 0 && stop.abort() });

    expect(summary).toMatchObject({ status: 'interrupted', dryRun: true });
    expect(summary.sent).toBeGreaterThan(0);
    expect(summary.sent).toBeLessThan(100);
    expect(formatReplaySummary(summary)).toMatch(
      /^DRY RUN interrupted — nothing was sent, and the counts are partial\n[\s\S]*would send +\d+/,
    );
    expect(messages()).toHaveLength(0);
  });

  it('goes on from its checkpoint after a stop half-way: every event sent, none twice', async () => {
    const { history, options, messages } = await aReplayScenario('replay-stop.fifo', {
      events: 1_500,
      aggregates: 30,
      types: TYPES,
      spanMs: 2 * DAY,
      skewMs: 20_000,
      duplicateRatio: 0.05,
      checkpoint: true,
      to: '2026-03-03',
    });
    const stop = new AbortController();

    const first = await replayArchive({ ...options, signal: stop.signal, onProgress: (p) => p.sent >= 600 && stop.abort() });
    expect(first.status).toBe('interrupted');
    expect(first.sent).toBeGreaterThanOrEqual(600);
    expect(first.sent).toBeLessThan(1_500);
    const second = await replayArchive(options);

    expect(second).toMatchObject({ status: 'completed', replayId: first.replayId, sent: 1_500 - first.sent });
    expect(second.resumedFrom).toMatch(/^2026-03-0[12]T\d\d$/);
    const ids = messages().map((m) => (JSON.parse(m.body) as { id: string }).id);
    expect(ids).toHaveLength(1_500);
    expect(new Set(ids)).toEqual(new Set(history.map((e) => e.id)));
    for (const [aggregate, sequences] of sequencesByAggregate(messages().map((m) => m.body))) {
      expect(inOrder(sequences), `${aggregate}: ${sequences.join(',')}`).toBe(true);
    }
    const again = await replayArchive(options);
    expect(again).toMatchObject({ status: 'completed', sent: 0, notes: [expect.stringContaining('completed')] });
  }, 120_000);

  it('after a crash, sends again only what was in flight when it stopped, and misses nothing', async () => {
    const { history, options, messages } = await aReplayScenario('replay-crash', {
      events: 800,
      aggregates: 40,
      types: TYPES,
      spanMs: DAY,
      skewMs: 20_000,
      checkpoint: true,
    });
    // From the 30th request on, the queue takes the messages but the answers never come back: the run
    // hangs as a killed process would, with whatever its checkpoint file held then.
    let requests = 0;
    const dying = {
      send: async (command: Parameters<SQSClient['send']>[0]) => {
        const output = await clients.sqs.send(command as never);
        if (++requests >= 30) await new Promise(() => {});
        return output;
      },
    } as unknown as SQSClient;
    void replayArchive({ ...options, sqs: dying, concurrency: 4 });
    await waitFor(() => requests >= 30, { what: "the run's 30th request" });

    const resumed = await replayArchive(options);

    expect(resumed.status).toBe('completed');
    const ids = messages().map((m) => (JSON.parse(m.body) as { id: string }).id);
    expect(new Set(ids)).toEqual(new Set(history.map((e) => e.id)));
    // At most the 4 requests in flight (10 events each) came twice.
    expect(ids.length - 800).toBeGreaterThan(0);
    expect(ids.length - 800).toBeLessThanOrEqual(40);
  }, 120_000);

  it('rejects going on from a checkpoint of another selection, naming what differs, and sends nothing', async () => {
    const { history, options, messages } = await aReplayScenario('replay-mismatch', {
      events: 50,
      aggregates: 5,
      types: TYPES,
      spanMs: DAY,
      checkpoint: true,
    });
    const stop = new AbortController();
    stop.abort();
    await replayArchive({ ...options, signal: stop.signal });

    const refused = replayArchive({ ...options, types: ['order.paid'] });

    await expect(refused).rejects.toThrow(ReplayCheckpointError);
    await expect(refused).rejects.toMatchObject({
      code: 'REPLAY_CHECKPOINT_MISMATCH',
      differences: ['types: none in the checkpoint, ["order.paid"] given'],
    });
    expect(messages()).toHaveLength(0);
    const restarted = await replayArchive({ ...options, types: ['order.paid'], restart: true });
    expect(restarted.sent).toBe(history.filter((e) => e.type === 'order.paid').length);
  });

  it('sends an aggregate in sequence order when a write that committed first has a time in the next hour', async () => {
    // Event 1's write started last but committed first: its time is after the hour boundary, event 2's before it.
    const at = (time: string, sequence: number) => anOrderEnvelope('o-skew', sequence, { id: `skew-${sequence}`, time });
    const bucket = aBucket();
    await putOrderObjects(bucket, {
      '2026-03-01T10': [at('2026-03-01T10:59:59.400Z', 2)],
      '2026-03-01T11': [at('2026-03-01T11:00:00.900Z', 1)],
    });
    const order = async (name: string, holdBackMs?: number) => {
      await replayArchive({ ...dayReplay(bucket, name), ...(holdBackMs === undefined ? {} : { holdBackMs }) });
      return messagesOn(name).map((m) => (JSON.parse(m.body) as { aggregatesequence: number }).aggregatesequence);
    };

    expect(await order('skew-held.fifo')).toEqual([1, 2]);
    // Without the hold-back, the hour boundary splits them the wrong way round.
    expect(await order('skew-unheld.fifo', 0)).toEqual([2, 1]);
  });

  it('holds back the later events of an aggregate whose event the queue refused, in the hours after it too', async () => {
    const bucket = await aRefusalAcrossHours();

    const summary = await replayArchive(dayReplay(bucket, 'refused-later-hour'));

    expect(
      messagesOn('refused-later-hour')
        .map((m) => (JSON.parse(m.body) as { id: string }).id)
        .sort(),
    ).toEqual(['o-1-1', 'o-2-1']);
    expect(summary.refused.map((r) => [r.eventId, r.reason.startsWith('held back') ? 'held back' : 'refused'])).toEqual([
      ['o-1-2', 'refused'],
      ['o-1-3', 'held back'],
    ]);
    expect(summary.sent).toBe(2);
  });

  it('still holds back the later events of an aggregate whose event was refused after a stop, once resumed from the checkpoint', async () => {
    const bucket = await aRefusalAcrossHours();
    const options = { ...dayReplay(bucket, 'refused-resumed'), checkpointPath: join(mkdtempSync(join(tmpdir(), 'replay-')), 'cp') };
    const stop = new AbortController();

    // Stopped once the hour of the refusal is done: the checkpoint is all the resumed run knows of it.
    const first = await replayArchive({
      ...options,
      signal: stop.signal,
      onProgress: (p) => p.hour === '2026-03-01T10' && p.hoursDone === 11 && stop.abort(),
    });
    const resumed = await replayArchive(options);

    expect(first).toMatchObject({ status: 'interrupted', sent: 1 });
    expect(resumed).toMatchObject({ status: 'completed', resumedFrom: '2026-03-01T11', sent: 1 });
    expect(resumed.refused.map((r) => [r.eventId, r.reason])).toEqual([
      ['o-1-3', 'held back: earlier event o-1-2 of its aggregate was refused'],
    ]);
    expect(
      messagesOn('refused-resumed')
        .map((m) => (JSON.parse(m.body) as { id: string }).id)
        .sort(),
    ).toEqual(['o-1-1', 'o-2-1']);
  });

  it('counts, after a resume, the hours done before it too: the progress reaches the whole range', async () => {
    const { options } = await aReplayScenario('replay-progress-resumed', {
      events: 240,
      aggregates: 12,
      types: ['order.placed'],
      spanMs: DAY,
      checkpoint: true,
    });
    const stop = new AbortController();
    await replayArchive({ ...options, signal: stop.signal, onProgress: (p) => p.hoursDone === 5 && stop.abort() });
    const seen: ReplayProgress[] = [];

    const resumed = await replayArchive({ ...options, onProgress: (p) => seen.push(p) });

    expect(resumed).toMatchObject({ status: 'completed', resumedFrom: '2026-03-01T05' });
    expect(Math.min(...seen.map((p) => p.hoursDone))).toBe(5);
    expect(seen.at(-1)).toMatchObject({ hour: '2026-03-01T23', hoursDone: 24, hours: 24 });
    expect(replayProgressLine(seen.at(-1) as ReplayProgress)).toContain('(24/24 done)');
  });

  it('fails with the summary so far when an object cannot be read for good, and the same call goes on after it is fixed', async () => {
    const { options, messages } = await aReplayScenario('replay-denied', {
      events: 200,
      aggregates: 10,
      types: ['order.placed'],
      spanMs: DAY,
      checkpoint: true,
    });
    // Objects of the afternoon are not readable by this role.
    const denying = {
      send: (command: { input: { Key?: string } }) => {
        if (/hour=1[2-9]/.test(command.input.Key ?? '')) {
          return Promise.reject(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }));
        }
        return clients.s3.send(command as never);
      },
    } as unknown as S3Client;

    const failed = replayArchive({ ...options, s3: denying });

    await expect(failed).rejects.toThrow(ReplayStoppedError);
    const error = (await failed.catch((e: unknown) => e)) as ReplayStoppedError;
    expect(error.message).toContain('AccessDenied');
    expect(error.summary.status).toBe('interrupted');
    expect(error.summary.sent).toBe(messages().length);
    expect(error.summary.sent).toBeGreaterThan(0);
    const rest = await replayArchive(options);
    expect(rest.sent + error.summary.sent).toBe(200);
    expect(messages()).toHaveLength(200);
    expect(new Set(messages().map((m) => (JSON.parse(m.body) as { id: string }).id)).size).toBe(200);
  });

  it('replays the events of a type whose name is too long for a key, and only those, under their whole name', async () => {
    // 120 CJK characters: 1,080 bytes URI-encoded, so each is kept under a shortened, hashed segment.
    const long = `注文${'確'.repeat(118)}`;
    const sibling = `注文${'確'.repeat(117)}済`;
    const {
      history,
      options,
      messages: replayed,
    } = await aReplayScenario('replay-long-type', {
      events: 60,
      aggregates: 6,
      types: [long, sibling, 'order.placed'],
      spanMs: DAY,
    });

    const summary = await replayArchive({ ...options, types: [long] });

    const expected = history.filter((e) => e.type === long);
    expect(expected.length).toBeGreaterThan(0);
    expect(summary).toMatchObject({ status: 'completed', sent: expected.length, sentByType: { [long]: expected.length }, corrupt: [] });
    const messages = replayed();
    expect(new Set(messages.map((m) => (JSON.parse(m.body) as { id: string }).id))).toEqual(new Set(expected.map((e) => e.id)));
    expect(new Set(messages.map((m) => m.messageAttributes.type?.StringValue))).toEqual(new Set([long]));
  });

  it("sends each event with its envelope's trace context as traceparent and tracestate attributes, beside the replay's mark", async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const envelope = (sequence: number, trace: { traceparent?: string; tracestate?: string }) =>
      anOrderEnvelope('o-trace', sequence, { id: `trace-${sequence}`, time: `2026-03-01T10:0${sequence}:00.000Z`, ...trace });
    const bucket = aBucket();
    await putOrderObjects(bucket, { '2026-03-01T10': [envelope(1, { traceparent, tracestate: 'vendor=abc' }), envelope(2, {})] });

    const summary = await replayArchive(dayReplay(bucket, 'replay-trace'));

    const attributes = Object.fromEntries(
      messagesOn('replay-trace').map((m) => [
        (JSON.parse(m.body) as { id: string }).id,
        Object.fromEntries(Object.entries(m.messageAttributes).map(([name, value]) => [name, value.StringValue])),
      ]),
    );
    const common = { type: 'order.placed', aggregatetype: 'order', [REPLAY_ATTRIBUTE]: summary.replayId };
    expect(attributes).toEqual({ 'trace-1': { ...common, traceparent, tracestate: 'vendor=abc' }, 'trace-2': common });
  });

  it('lists only the days the archive has, over a range of more than a year', async () => {
    const { options } = await aReplayScenario('replay-sparse', { events: 100, aggregates: 5, types: TYPES, spanMs: 2 * DAY });
    const listings: string[] = [];
    const counting = {
      send: (command: { constructor: { name: string }; input: { Prefix?: string } }) => {
        if (command.constructor.name === 'ListObjectsV2Command') listings.push(command.input.Prefix ?? '');
        return clients.s3.send(command as never);
      },
    } as unknown as S3Client;

    const summary = await replayArchive({ ...options, s3: counting, from: '2025-01-01', to: '2026-03-05' });

    expect(summary.sent).toBe(100);
    // The aggregate types, their event types, each type's days, then each (type, day) with objects: 1 + 1 + 3 + 3 × 2.
    expect(listings).toHaveLength(11);
  });
});
