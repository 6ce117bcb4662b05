import { afterEach, describe, expect, it } from 'vitest';
import { IncompleteShardListingError, StreamCallTimeoutError } from '../../shared/processor/errors.js';
import { ProcessorStartError } from '../../shared/processor/index.js';
import type { Lease } from '../../shared/processor/lease.js';
import { isTransientFailure } from '../../shared/processor/retries.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { CountingPublisher, openPublishers } from '../helpers/counting-publisher.js';
import { Gate } from '../helpers/gate.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { answerHungCalls, awsError, FaultyStreams } from '../helpers/processor-faulty-streams.js';
import { haltWorkers, recorder, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  answerHungCalls();
  openPublishers();
  await haltWorkers();
});

/** A lease table whose next scans fail with the errors queued, and whose takes fail with `takeRefusal` once `takesAllowed` are spent. */
class FailingLeaseStore extends MemoryLeaseStore {
  readonly listFailures: Error[] = [];
  takesAllowed = Number.POSITIVE_INFINITY;
  takeRefusal: Error | undefined;

  override async list(): Promise<Lease[]> {
    const failure = this.listFailures.shift();
    if (failure !== undefined) throw failure;
    return super.list();
  }

  /** Takes after the first `takesBeforeGate` wait at `takeGate` while it is closed. */
  takesBeforeGate = Number.POSITIVE_INFINITY;
  readonly takeGate = new Gate();
  takesStarted = 0;
  readonly marked: string[] = [];

  override async take(lease: Lease, owner: string): Promise<Lease | undefined> {
    if (this.takesStarted++ >= this.takesBeforeGate) await this.takeGate.passed();
    if (this.takesAllowed-- <= 0 && this.takeRefusal !== undefined) throw this.takeRefusal;
    return super.take(lease, owner);
  }

  override async handOver(lease: Lease, owner: string): Promise<Lease> {
    this.marked.push(lease.leaseKey);
    return super.handOver(lease, owner);
  }
}

function starting(options: { shards?: number } = {}) {
  const stream = new SimulatedStream({ initialShards: options.shards ?? 1 });
  const streams = new FaultyStreams(stream);
  const leases = new FailingLeaseStore();
  const { seen, observer } = recorder();
  const publisher = new CountingPublisher();
  const w = worker({ source: new StreamSource(streams, stream.streamArn), leases, publisher, workerId: 'A', observer });
  return { stream, streams, leases, seen, w, publisher };
}

describe('worker start-up', () => {
  it('retries a throttled DescribeStream, reporting each failure, and starts', async () => {
    const { stream, streams, seen, w } = starting();
    streams.describeFailures.push(awsError('LimitExceededException', 400), awsError('LimitExceededException', 400));
    await w.start();
    expect(w.status()).toMatchObject({ state: 'running', leases: [stream.shards[0]!.id] });
    expect(seen.errors.map((e) => e.message)).toEqual([
      `starting: the first shard sync of ${stream.streamArn} failed; retrying`,
      `starting: the first shard sync of ${stream.streamArn} failed; retrying`,
    ]);
  });

  it('retries a lease table scan that fails with a server error or a network error, and starts', async () => {
    const { stream, leases, seen, w } = starting();
    leases.listFailures.push(awsError('InternalServerError', 500), Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await w.start();
    expect(w.status()).toMatchObject({ state: 'running', leases: [stream.shards[0]!.id] });
    expect(seen.errors).toHaveLength(2);
  });

  it('rejects the start at once, naming the step, when the stream does not exist', async () => {
    const { stream, streams, w } = starting();
    streams.describeFailures.push(
      awsError('ResourceNotFoundException', 400, `Requested resource not found: Stream: ${stream.streamArn} not found`),
    );
    const error = await w.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProcessorStartError);
    expect((error as Error).message).toMatch(
      /the first shard sync of .* failed with ResourceNotFoundException: Requested resource not found/,
    );
    expect(streams.calls.describe).toBe(1);
    expect(w.status().state).toBe('stopped');
  });

  it('fails for good on a refused lease write, after handing over the leases the start took', async () => {
    const { leases, seen, w } = starting({ shards: 2 });
    leases.takesAllowed = 1;
    leases.takeRefusal = awsError('AccessDeniedException', 400, 'not authorized to perform: dynamodb:UpdateItem');
    await expect(w.start()).rejects.toThrow(/the first lease table scan failed with AccessDeniedException/);
    expect(seen.acquired).toHaveLength(1);
    expect(seen.released).toEqual(seen.acquired);
    expect([...leases.rows.values()].map((lease) => lease.leaseOwner)).toEqual([undefined, undefined]);
  });

  it('releases a lease its first scan takes once the stop began, unmarked: no consumer ran on it, no page was in flight', async () => {
    const { leases, seen, w } = starting({ shards: 2 });
    leases.takesBeforeGate = 1;
    leases.takeGate.close();
    const started = w.start();
    await waitFor(() => seen.acquired.length === 1 && leases.takesStarted === 2, { what: 'one lease taken, the second take waiting' });

    const stopped = w.stop();
    leases.takeGate.open();
    await stopped;
    await expect(started).resolves.toBeUndefined();

    // The lease taken before the stop had a consumer, so it was marked; the one taken after had none.
    const [first] = seen.acquired;
    expect(leases.marked).toEqual([first]);
    expect(seen.released.toSorted()).toEqual([...leases.rows.keys()].toSorted());
    // Each release follows the report of its take, the one taken after the stop's too.
    expect(seen.acquired.toSorted()).toEqual(seen.released.toSorted());
    expect([...leases.rows.values()].map((lease) => [lease.leaseOwner, lease.handingOver])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
  });

  it('releases such a lease at once, not once the other consumers are done: none would take it meanwhile', async () => {
    const { stream, leases, seen, w, publisher } = starting({ shards: 2 });
    leases.takesBeforeGate = 1;
    leases.takeGate.close();
    publisher.hold();
    const started = w.start();
    await waitFor(() => seen.acquired.length === 1 && leases.takesStarted === 2, { what: 'one lease taken, the second take waiting' });
    const first = seen.acquired[0]!;
    for (let id = 1; publisher.inFlight === 0; id++) {
      const [event] = stream.commit({ type: 'order', id: `o${id}` }, 1, 1);
      if (stream.shardOfEvent.get(event!) === first)
        await waitFor(() => publisher.inFlight === 1, { what: `a page of ${first} in flight` });
    }

    const stopped = w.stop();
    leases.takeGate.open();
    const second = [...leases.rows.keys()].find((key) => key !== first)!;
    // The page of the first lease is still in flight, its lease marked; the second, taken unmarked, is free already.
    await waitFor(() => seen.released.includes(second), { what: `${second} released while ${first}'s page is in flight` });
    expect(publisher.inFlight).toBe(1);
    expect(leases.rows.get(second)!.leaseOwner).toBeUndefined();
    expect(leases.rows.get(first)).toMatchObject({ leaseOwner: 'A', handingOver: true });

    publisher.open();
    await stopped;
    await expect(started).resolves.toBeUndefined();
    expect(seen.released.toSorted()).toEqual([first, second].toSorted());
    expect(leases.marked).toEqual([first]);
  });

  it('ends a start that keeps retrying when the worker is stopped', async () => {
    const { streams, seen, w } = starting();
    for (let i = 0; i < 1000; i++) streams.describeFailures.push(awsError('ThrottlingException', 400));
    const started = w.start();
    await waitFor(() => seen.errors.length >= 2, { what: 'two failed attempts' });
    await w.stop();
    await expect(started).resolves.toBeUndefined();
    expect(w.status()).toMatchObject({ state: 'stopped', leases: [] });
  });
});

describe('which start-up failures are retried', () => {
  it.each<[string, unknown]>([
    ['throttling (a 400 named LimitExceededException)', awsError('LimitExceededException', 400)],
    ['a server error', awsError('InternalServerError', 500)],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' })],
    ['a timed-out call', new StreamCallTimeoutError('DescribeStream', 'arn:stream', 10_000)],
    ['an incomplete shard listing', new IncompleteShardListingError('arn:stream', 'returned no stream description')],
  ])('retries %s', (_, error) => {
    expect(isTransientFailure(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a stream not found', awsError('ResourceNotFoundException', 400)],
    ['access denied', awsError('AccessDeniedException', 400)],
    [
      'missing credentials',
      Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }),
    ],
    ['a missing region', new Error('Region is missing')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'shardId')")],
  ])('fails fast on %s, which waiting does not cure', (_, error) => {
    expect(isTransientFailure(error)).toBe(false);
  });
});
