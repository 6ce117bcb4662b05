import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from '../../shared/backoff.js';
import type { RecordPublisher } from '../../shared/processor/consumer-context.js';
import type { FailurePolicy } from '../../shared/processor/failure-policy.js';
import { HeldLease } from '../../shared/processor/held-lease.js';
import { processorSettings } from '../../shared/processor/index.js';
import { TRIM_HORIZON } from '../../shared/processor/lease.js';
import type { GivenUpRecords } from '../../shared/processor/on-failure-writer.js';
import { RetryBudget } from '../../shared/processor/retry-budget.js';
import { ShardConsumer } from '../../shared/processor/shard-consumer.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import type { RecordOutcome, RelayResult } from '../../shared/relay/index.js';
import { coordinatesOf } from '../../shared/relay/stream-record.js';
import { Gate } from '../helpers/gate.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

const aggregateOf = (record: _Record): string => record.dynamodb?.NewImage?.aggregateId?.S ?? '';
const sequenceOf = (record: _Record): string => record.dynamodb!.SequenceNumber!;

/**
 * Relays as the relay core does for one failing aggregate: its records fail (the first
 * `PUBLISH_FAILED`, later ones held back behind it), every other record is delivered.
 */
class FailingPublisher implements RecordPublisher {
  readonly attempts = new Map<string, number>();
  readonly delivered: string[] = [];

  constructor(private readonly failing: (record: _Record) => boolean) {}

  async relay(records: readonly _Record[]): Promise<RelayResult> {
    await Promise.resolve();
    const stuck = new Set<string>();
    const outcomes = records.map((record): RecordOutcome => {
      this.attempts.set(sequenceOf(record), (this.attempts.get(sequenceOf(record)) ?? 0) + 1);
      const aggregate = aggregateOf(record);
      if (stuck.has(aggregate))
        return { status: 'failed', record: coordinatesOf(record), reason: 'BLOCKED_BY_EARLIER_FAILURE', detail: '' };
      if (this.failing(record)) {
        stuck.add(aggregate);
        return { status: 'failed', record: coordinatesOf(record), reason: 'DEAD_LETTER_FAILED', detail: 'the relay DLQ is down' };
      }
      this.delivered.push(sequenceOf(record));
      return { status: 'delivered', record: coordinatesOf(record), published: 1, deadLettered: 0 };
    });
    const failed = outcomes.filter((o) => o.status === 'failed').length;
    return { outcomes, published: records.length - failed, retried: 0, deadLettered: 0, ignored: 0, failed };
  }
}

/** The on-failure destination as a list; it refuses every write while `state.down`. */
function destination(bounds: FailurePolicy['bounds'], state = { down: false }) {
  const written: { given: GivenUpRecords; key: string }[] = [];
  const writeFailures: GivenUpRecords[] = [];
  const policy: FailurePolicy = {
    bounds,
    write: async (given) => {
      await Promise.resolve();
      if (state.down) throw Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' });
      return `outbox-processor/${given.shardId}/object-${written.length + 1}`;
    },
    gaveUp: (given, key) => written.push({ given, key }),
    writeFailed: (_error, given) => writeFailures.push(given),
  };
  return { policy, written, writeFailures };
}

let stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(stops.map((stop) => stop()));
  stops = [];
  await haltWorkers();
});

/** A consumer of the stream's one shard, holding its lease, with retries a few ms apart. */
async function consume(
  stream: SimulatedStream,
  publisher: RecordPublisher,
  failures?: FailurePolicy,
  handOffTimeoutMs?: number,
  { leases = new MemoryLeaseStore(), owner = 'A' } = {},
) {
  const shard = stream.shards[0]!.id;
  await leases.create(shard, []);
  const held = new HeldLease(leases, owner, (await leases.take(leases.rows.get(shard)!, owner))!);
  const stopping = new AbortController();
  let stoppedAt = 0;
  const failed: unknown[] = [];
  const consumer = new ShardConsumer(held, {
    source: new StreamSource(stream, stream.streamArn),
    publisher,
    settings: processorSettings({
      retryMaxDelayMs: 5,
      idleMinDelayMs: 1,
      idleMaxDelayMs: 5,
      ...(handOffTimeoutMs === undefined ? {} : { handOffTimeoutMs }),
    }),
    parentsFinished: () => true,
    stopping: stopping.signal,
    stoppingFor: () => (stopping.signal.aborted ? Date.now() - stoppedAt : undefined),
    sleep,
    processed: () => {},
    failed: (error) => failed.push(error),
    cutOff: () => {},
    checkpointFailed: () => {},
    trimmed: () => {},
    ...(failures === undefined ? {} : { failures }),
  });
  const run = consumer.run();
  const stop = () => {
    stoppedAt ||= Date.now();
    stopping.abort();
    return run;
  };
  stops.push(stop);
  return { checkpoint: () => leases.rows.get(shard)!.checkpoint, failed, stop };
}

/** bad#1, good#1, bad#2, good#2: one page, in that order. */
function streamWithFailingAggregate() {
  const stream = new SimulatedStream();
  stream.commit({ type: 'order', id: 'bad' }, 1, 1);
  stream.commit({ type: 'order', id: 'good' }, 1, 1);
  stream.commit({ type: 'order', id: 'bad' }, 2, 1);
  stream.commit({ type: 'order', id: 'good' }, 2, 1);
  const records = stream.shards[0]!.records;
  return { stream, records, sequences: records.map(sequenceOf) };
}

describe('the stream processor’s bounds on a failing record', () => {
  it('writes the failing record and those held back behind it to the on-failure destination once the retries are spent, then goes on', async () => {
    const { stream, sequences } = streamWithFailingAggregate();
    const publisher = new FailingPublisher((record) => aggregateOf(record) === 'bad');
    const { policy, written } = destination({ maxRetryAttempts: 2, maxRecordAgeSeconds: -1 });
    const { checkpoint } = await consume(stream, publisher, policy);
    await waitFor(() => written.length === 1, { what: 'the on-failure object' });
    expect(written[0]!.given).toMatchObject({ condition: 'RetryAttemptsExhausted', attempts: 3 });
    expect(written[0]!.given.records.map(sequenceOf)).toEqual([sequences[0], sequences[2]]);
    expect(publisher.attempts.get(sequences[0]!)).toBe(3);
    await waitFor(() => checkpoint() === sequences[3], { what: 'the checkpoint past the page' });
    const later = stream.commit({ type: 'order', id: 'good' }, 3, 1);
    await waitFor(() => publisher.delivered.includes(sequenceOf(stream.shards[0]!.records.at(-1)!)), { what: `${later} published` });
    expect(written).toHaveLength(1);
  });

  it('counts on from the attempts the previous holder kept in the lease when the lease moves to another worker', async () => {
    const { stream, sequences } = streamWithFailingAggregate();
    const leases = new MemoryLeaseStore();
    const kept = () => leases.rows.get(stream.shards[0]!.id)?.failedAttempts;
    const { policy, written } = destination({ maxRetryAttempts: 4, maxRecordAgeSeconds: -1 });
    // The first worker's third attempt waits until it is told to stop, so it cannot use up the retries alone.
    const failing = new FailingPublisher((r) => aggregateOf(r) === 'bad');
    const gate = new Gate();
    let calls = 0;
    const gated: RecordPublisher = {
      relay: async (records) => {
        if (++calls === 3) gate.close();
        await gate.passed();
        return failing.relay(records as readonly _Record[]);
      },
    };
    const first = await consume(stream, gated, policy, undefined, { leases });
    await waitFor(() => calls === 3, { what: 'the third attempt under way' });
    expect(kept()).toEqual({ sequenceNumber: sequences[0], attempts: 2 });
    const stopped = first.stop();
    gate.open();
    await stopped;
    const before = kept()!;
    expect(before.sequenceNumber).toBe(sequences[0]);
    // The second worker takes the lease over (as after a crash or a rebalance) and gives up at the fifth attempt in all.
    const publisher = new FailingPublisher((r) => aggregateOf(r) === 'bad');
    const second = await consume(stream, publisher, policy, undefined, { leases, owner: 'B' });
    await waitFor(() => written.length === 1, { what: 'the on-failure object' });
    expect(written[0]!.given).toMatchObject({ condition: 'RetryAttemptsExhausted', attempts: 5 });
    expect(publisher.attempts.get(sequences[0]!)).toBe(5 - before.attempts);
    await waitFor(() => second.checkpoint() === sequences[3], { what: 'the checkpoint past the page' });
    expect(kept()).toBeUndefined();
  });

  it('gives a failing record up at its first failure once it is older than maxRecordAgeSeconds', async () => {
    const { stream, records, sequences } = streamWithFailingAggregate();
    records[0]!.dynamodb!.ApproximateCreationDateTime = new Date(Date.now() - 120_000);
    const publisher = new FailingPublisher((record) => aggregateOf(record) === 'bad');
    const { policy, written } = destination({ maxRetryAttempts: -1, maxRecordAgeSeconds: 60 });
    const { checkpoint } = await consume(stream, publisher, policy);
    await waitFor(() => written.length === 1, { what: 'the on-failure object' });
    expect(written[0]!.given).toMatchObject({ condition: 'RecordAgeExceeded', attempts: 1 });
    await waitFor(() => checkpoint() === sequences[3], { what: 'the checkpoint past the page' });
  });

  it('retries a failing record without end when both bounds are -1, and never checkpoints past it', async () => {
    const { stream, sequences } = streamWithFailingAggregate();
    const publisher = new FailingPublisher((record) => aggregateOf(record) === 'bad');
    const { policy, written } = destination({ maxRetryAttempts: -1, maxRecordAgeSeconds: -1 });
    const { checkpoint, failed } = await consume(stream, publisher, policy);
    await waitFor(() => (publisher.attempts.get(sequences[0]!) ?? 0) >= 15, { what: 'fifteen attempts' });
    expect(written).toEqual([]);
    expect(checkpoint()).toBe(TRIM_HORIZON);
    expect(String(failed[0])).toContain(`record ${sequences[0]} failed to publish; retrying from it`);
  });

  it('keeps the checkpoint before the failing record while the on-failure destination refuses the write, and retries the write alone', async () => {
    const { stream, sequences } = streamWithFailingAggregate();
    const publisher = new FailingPublisher((record) => aggregateOf(record) === 'bad');
    const bucket = { down: true };
    const { policy, written, writeFailures } = destination({ maxRetryAttempts: 0, maxRecordAgeSeconds: -1 }, bucket);
    const { checkpoint } = await consume(stream, publisher, policy);
    await waitFor(() => writeFailures.length >= 3, { what: 'three refused writes' });
    expect(written).toEqual([]);
    expect(checkpoint()).toBe(TRIM_HORIZON);
    bucket.down = false;
    await waitFor(() => written.length === 1, { what: 'the write that gets through' });
    expect(publisher.attempts.get(sequences[0]!)).toBe(1);
    await waitFor(() => checkpoint() === sequences[3], { what: 'the checkpoint past the page' });
  });

  it('aborts an on-failure write that hangs once the stop has waited handOffTimeoutMs, and leaves the records to the next holder', async () => {
    const { stream } = streamWithFailingAggregate();
    const publisher = new FailingPublisher((record) => aggregateOf(record) === 'bad');
    const aborted: unknown[] = [];
    let writes = 0;
    const policy: FailurePolicy = {
      bounds: { maxRetryAttempts: 0, maxRecordAgeSeconds: -1 },
      // An S3 that never answers: the write ends only when its signal aborts.
      write: (_given, signal) => {
        writes++;
        return new Promise<string>((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            aborted.push(signal.reason);
            reject(signal.reason);
          });
        });
      },
      gaveUp: () => {},
      writeFailed: () => {},
    };
    const { checkpoint, stop } = await consume(stream, publisher, policy, 50);
    await waitFor(() => writes === 1, { what: 'the on-failure write in flight' });
    await stop();
    expect(aborted).toHaveLength(1);
    expect(String(aborted[0])).toContain('handOffTimeoutMs');
    expect(checkpoint()).toBe(TRIM_HORIZON);
  });

  it('names the spent bounds but retries on when it has no on-failure destination', async () => {
    const { stream, sequences } = streamWithFailingAggregate();
    const publisher = new FailingPublisher((record) => aggregateOf(record) === 'bad');
    const { policy } = destination({ maxRetryAttempts: 1, maxRecordAgeSeconds: -1 });
    const { checkpoint, failed } = await consume(stream, publisher, { ...policy, write: undefined });
    await waitFor(() => failed.length >= 3, { what: 'three failed attempts' });
    expect(String(failed[2])).toContain('RetryAttemptsExhausted after 3 attempts, but the processor has no on-failure destination');
    expect(checkpoint()).toBe(TRIM_HORIZON);
    expect(sequences).toHaveLength(4);
  });

  it('counts every record of a page given up on as processed once, the delivered ones behind the failed record too', async () => {
    // good#1, bad#1, good#2, bad#2: the first attempt delivers good#1 and good#2, the retry (from bad#1) good#2 again.
    const stream = new SimulatedStream();
    for (const seq of [1, 2]) for (const id of ['good', 'bad']) stream.commit({ type: 'order', id }, seq, 1);
    const sequences = stream.shards[0]!.records.map(sequenceOf);
    const leases = new MemoryLeaseStore();
    let batchRecords = 0;
    const keys: string[] = [];
    const w = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: new FailingPublisher((record) => aggregateOf(record) === 'bad'),
      workerId: 'A',
      retryBounds: { maxRetryAttempts: 1, maxRecordAgeSeconds: -1 },
      onFailure: async (given) => {
        keys.push(`object-${given.records.map(sequenceOf).join('-')}`);
        return keys.at(-1)!;
      },
      observer: { batch: (report) => (batchRecords += report.records) },
    });
    await w.start();
    const checkpoint = () => leases.rows.get(stream.shards[0]!.id)?.checkpoint;
    await waitFor(() => checkpoint() === sequences[3], { what: 'the checkpoint past the page given up on' });
    expect(keys).toEqual([`object-${sequences[1]}-${sequences[3]}`]);
    expect(w.status()).toMatchObject({ recordsProcessed: 4, eventsPublished: 3 });
    expect(batchRecords).toBe(4);

    stream.commit({ type: 'order', id: 'good' }, 3, 1);
    const last = sequenceOf(stream.shards[0]!.records.at(-1)!);
    await waitFor(() => checkpoint() === last, { what: 'the checkpoint of the record after the page' });
    expect(w.status()).toMatchObject({ recordsProcessed: 5, eventsPublished: 4 });
    expect(batchRecords).toBe(5);
  });

  it('counts a record ignored behind the failed one in the report of the rest of the page only, not in that of the part before', async () => {
    // good, bad, skip (not the processor's: ignored): the part before bad holds no ignored record.
    const stream = new SimulatedStream();
    for (const id of ['good', 'bad', 'skip']) stream.commit({ type: 'order', id }, 1, 1);
    const sequences = stream.shards[0]!.records.map(sequenceOf);
    const publisher = new FailingPublisher((record) => aggregateOf(record) === 'bad');
    const relay = publisher.relay.bind(publisher);
    publisher.relay = async (records) => {
      const result = await relay(records);
      const outcomes = result.outcomes.map(
        (outcome, i): RecordOutcome =>
          aggregateOf(records[i]!) === 'skip' ? { status: 'ignored', record: outcome.record, reason: 'not the processor’s' } : outcome,
      );
      const ignored = outcomes.filter((outcome) => outcome.status === 'ignored').length;
      return { ...result, outcomes, ignored, published: result.published - ignored };
    };
    const leases = new MemoryLeaseStore();
    const reports: { records: number; ignored: number }[] = [];
    const w = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher,
      workerId: 'A',
      retryBounds: { maxRetryAttempts: 1, maxRecordAgeSeconds: -1 },
      onFailure: async (given) => `object-${given.records.map(sequenceOf).join('-')}`,
      observer: { batch: ({ records, ignored }) => reports.push({ records, ignored }) },
    });
    await w.start();
    await waitFor(() => leases.rows.get(stream.shards[0]!.id)?.checkpoint === sequences[2], { what: 'the checkpoint past the page' });
    expect(reports).toEqual([
      { records: 1, ignored: 0 },
      { records: 2, ignored: 1 },
    ]);
    expect(w.status()).toMatchObject({ recordsProcessed: 3, eventsPublished: 1 });
  });

  it('fails the whole page, checkpointing none of it, when a failed record has no sequence number', async () => {
    const { stream, sequences } = streamWithFailingAggregate();
    const publisher = new FailingPublisher(() => false);
    const relay = publisher.relay.bind(publisher);
    publisher.relay = async (records) => {
      const result = await relay(records);
      // The last record's outcome fails without its coordinates.
      const outcomes = [...result.outcomes.slice(0, -1), { status: 'failed', record: {}, reason: 'PUBLISH_FAILED', detail: '' } as const];
      return { ...result, outcomes, failed: 1 };
    };
    const { checkpoint } = await consume(stream, publisher);
    await waitFor(() => (publisher.attempts.get(sequences[0]!) ?? 0) >= 3, { what: 'the page retried from its first record' });
    expect(checkpoint()).toBe(TRIM_HORIZON);
  });
});

describe('RetryBudget', () => {
  const record = (sequenceNumber: string, ageMs = 0): _Record => ({
    dynamodb: { SequenceNumber: sequenceNumber, ApproximateCreationDateTime: new Date(Date.now() - ageMs) },
  });

  it('spends maxRetryAttempts retries, so maxRetryAttempts + 1 attempts, and counts a later record from one', () => {
    const budget = new RetryBudget({ maxRetryAttempts: 2, maxRecordAgeSeconds: -1 });
    expect([1, 2, 3].map(() => budget.failed(record('10')))).toEqual([
      { attempts: 1 },
      { attempts: 2 },
      { attempts: 3, spent: 'RetryAttemptsExhausted' },
    ]);
    expect(budget.failed(record('20'))).toEqual({ attempts: 1 });
  });

  it('gives up at the first failure with maxRetryAttempts 0, and never with -1', () => {
    expect(new RetryBudget({ maxRetryAttempts: 0, maxRecordAgeSeconds: -1 }).failed(record('10'))).toEqual({
      attempts: 1,
      spent: 'RetryAttemptsExhausted',
    });
    const unlimited = new RetryBudget({ maxRetryAttempts: -1, maxRecordAgeSeconds: -1 });
    for (let i = 0; i < 100; i++) expect(unlimited.failed(record('10', 10 * 86_400_000)).spent).toBeUndefined();
  });

  it('gives a record up on age before attempts, and starts over after reset()', () => {
    const budget = new RetryBudget({ maxRetryAttempts: 5, maxRecordAgeSeconds: 60 });
    expect(budget.failed(record('10', 59_000))).toEqual({ attempts: 1 });
    expect(budget.failed(record('10', 61_000))).toEqual({ attempts: 2, spent: 'RecordAgeExceeded' });
    budget.reset();
    expect(budget.failed(record('10'))).toEqual({ attempts: 1 });
  });
});
