import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Lease } from '../../shared/processor/lease.js';
import { planLeases } from '../../shared/processor/lease-balance.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { CountingPublisher, openPublishers } from '../helpers/counting-publisher.js';
import { handOverMarkTests } from '../helpers/lease-store-hand-over.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, recorder, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  await haltWorkers();
  vi.restoreAllMocks();
});

const lease = (leaseKey: string, leaseOwner?: string, handingOver = false): Lease => ({
  leaseKey,
  ...(leaseOwner === undefined ? {} : { leaseOwner }),
  leaseCounter: 1,
  checkpoint: '100',
  parentShardIds: [],
  ownerSwitchesSinceCheckpoint: 0,
  ...(handingOver ? { handingOver: true as const } : {}),
});
const never = () => false;

describe('lease balancing (planLeases) with leases being handed over', () => {
  it('steals none of a stopping owner’s leases, though it holds them all and I hold none', () => {
    const leases = ['s1', 's2', 's3'].map((key) => lease(key, 'stopping', true));
    const plan = planLeases({ leases, me: 'w1', held: new Set(), isExpired: never, maxSteal: 1 });
    // The stopping owner is not counted as a live worker: once released, the three are mine.
    expect(plan).toEqual({ take: [], steal: [], target: 3 });
  });

  it('steals from no other owner either while leases are handed over: they are about to be free', () => {
    const leases = [...['s1', 's2', 's3'].map((key) => lease(key, 'stopping', true)), ...['s4', 's5', 's6'].map((key) => lease(key, 'w2'))];
    const plan = planLeases({ leases, me: 'w1', held: new Set(), isExpired: never, maxSteal: 1 });
    expect(plan).toEqual({ take: [], steal: [], target: 3 });
  });

  it('takes a lease handed over whose owner stopped renewing it (died while stopping), as any expired lease', () => {
    const leases = [lease('s1', 'stopping', true), lease('s2', 'stopping', true)];
    const plan = planLeases({ leases, me: 'w1', held: new Set(), isExpired: (l) => l.leaseKey === 's1', maxSteal: 1 });
    expect(plan.take.map((l) => l.leaseKey)).toEqual(['s1']);
    expect(plan.steal).toEqual([]);
  });

  it('steals as before once no lease is handed over', () => {
    const leases = ['s1', 's2', 's3', 's4'].map((key) => lease(key, 'w2'));
    const plan = planLeases({ leases, me: 'w1', held: new Set(), isExpired: never, maxSteal: 1 });
    expect(plan.steal).toHaveLength(1);
  });
});

describe('memory lease store: the hand-over mark (as the DynamoDB lease table has it)', () => {
  handOverMarkTests(async () => {
    const table = new MemoryLeaseStore();
    await table.create('shard-1', []);
    return { table, held: (await table.take((await table.list())[0]!, 'A'))! };
  });
});

/** A memory lease table whose marks can be made to fail, as a throttled (or refused) write does. */
class MarkingStore extends MemoryLeaseStore {
  markFailures = 0;
  /** What a failed mark throws. */
  markError: () => Error = () =>
    Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
  attempts = 0;
  marks = 0;
  /** Called with each mark's number (1 for the first) as it reaches the table. */
  onAttempt: (attempt: number) => void = () => undefined;

  override async handOver(lease: Lease, owner: string): Promise<Lease> {
    this.onAttempt(++this.attempts);
    if (this.markFailures > 0) {
      this.markFailures--;
      throw this.markError();
    }
    const marked = await super.handOver(lease, owner);
    this.marks++;
    return marked;
  }
}

describe('a stopping worker marking its leases', () => {
  async function started(
    leases: MarkingStore,
    observe: (recorded: ReturnType<typeof recorder>) => object = (r) => r.observer,
    settings: object = {},
  ) {
    const stream = new SimulatedStream();
    const publisher = new CountingPublisher();
    const a = recorder();
    const w = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher,
      workerId: 'A',
      observer: observe(a),
      // Renewals and scans seldom: the stop's mark is the write that finds the lease taken.
      settings: { failoverMs: 16_000, renewIntervalMs: 4000, leaseScanIntervalMs: 1000, ...settings },
    });
    await w.start();
    await waitFor(() => w.status().leases.length === 1, { what: 'A to take the lease' });
    return { w, a, shard: stream.shards[0]!.id, stream, publisher };
  }

  /** A stops while a page of its shard is being published, held until the test opens the publisher. */
  async function stoppingWithPageInFlight(started: {
    w: { stop(): Promise<void> };
    stream: SimulatedStream;
    publisher: CountingPublisher;
  }) {
    started.publisher.hold();
    started.stream.commit({ type: 'order', id: 'o1' }, 1, 1);
    await waitFor(() => started.publisher.inFlight === 1, { what: "A's page in flight" });
    return { stopped: started.w.stop() };
  }

  const RETRYING = (shard: string) => `shard ${shard}: marking the lease as handed over failed; retrying`;
  const GIVEN_UP = (shard: string) =>
    `shard ${shard}: marking the lease as handed over failed; another worker may steal it before it is released`;

  it('marks each lease before it releases it', async () => {
    const leases = new MarkingStore();
    const { w, a, shard } = await started(leases);

    await w.stop();

    expect(leases.marks).toBe(1);
    expect(a.seen.released).toEqual([shard]);
    expect(a.seen.errors).toEqual([]);
    expect(leases.rows.get(shard)!.leaseOwner).toBeUndefined();
  });

  it('reports a mark that failed and still hands the lease over, released before the retry is due or after it', async () => {
    const leases = new MarkingStore();
    leases.markFailures = 1;
    const { w, a, shard } = await started(leases);

    await w.stop();

    expect(a.seen.errors.map((e) => e.message)).toEqual([RETRYING(shard)]);
    expect(a.seen.released).toEqual([shard]);
    expect(a.seen.lost).toEqual([]);
    expect(leases.rows.get(shard)!.leaseOwner).toBeUndefined();
  });

  it('retries a throttled mark while the page in flight finishes, so the lease is marked before its release', async () => {
    const leases = new MarkingStore();
    leases.markFailures = 2;
    const a = await started(leases);

    const { stopped } = await stoppingWithPageInFlight(a);
    await waitFor(() => leases.rows.get(a.shard)?.handingOver === true, { what: "A's lease marked after two throttled marks" });
    expect(leases.attempts).toBe(3);
    a.publisher.open();
    await stopped;

    expect(a.a.seen.errors.map((e) => e.message)).toEqual([RETRYING(a.shard), RETRYING(a.shard)]);
    expect(a.a.seen.released).toEqual([a.shard]);
    expect(a.a.seen.lost).toEqual([]);
    expect(leases.rows.get(a.shard)).not.toHaveProperty('handingOver');
    expect(leases.rows.get(a.shard)!.leaseOwner).toBeUndefined();
  });

  it('gives a throttled mark up once the stop has taken handOffTimeoutMs, reported, and still hands the lease over', async () => {
    const HAND_OFF_MS = 20_000;
    // The worker's monotonic clock, moved on by the test: the third mark fails once the stop has
    // taken handOffTimeoutMs, however fast or slow the machine runs the first two.
    const monotonic = performance.now.bind(performance);
    let skippedMs = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => monotonic() + skippedMs);
    const leases = new MarkingStore();
    leases.markFailures = Number.POSITIVE_INFINITY;
    leases.onAttempt = (attempt) => {
      if (attempt === 3) skippedMs += HAND_OFF_MS;
    };
    // A failover time that the skip leaves far from: only the hand-off time runs out.
    const a = await started(leases, undefined, { failoverMs: 60_000, handOffTimeoutMs: HAND_OFF_MS });

    const { stopped } = await stoppingWithPageInFlight(a);
    await waitFor(() => a.a.seen.errors.some((e) => e.message === GIVEN_UP(a.shard)), { what: 'the mark given up' });
    a.publisher.open();
    await stopped;

    const messages = a.a.seen.errors.map((e) => e.message).filter((m) => m.includes('handed over'));
    expect(messages).toEqual([RETRYING(a.shard), RETRYING(a.shard), GIVEN_UP(a.shard)]);
    expect(leases.attempts).toBe(3);
    expect(a.a.seen.released).toEqual([a.shard]);
    expect(leases.rows.get(a.shard)!.leaseOwner).toBeUndefined();
  });

  it('does not retry a mark refused for good (access denied): reported as given up at once', async () => {
    const leases = new MarkingStore();
    leases.markFailures = Number.POSITIVE_INFINITY;
    leases.markError = () =>
      Object.assign(new Error('not authorized to perform: dynamodb:UpdateItem'), {
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 400 },
      });
    const a = await started(leases);

    const { stopped } = await stoppingWithPageInFlight(a);
    await waitFor(() => a.a.seen.errors.length > 0, { what: 'the failed mark reported' });
    a.publisher.open();
    await stopped;

    expect(a.a.seen.errors.map((e) => e.message)).toEqual([GIVEN_UP(a.shard)]);
    expect(leases.attempts).toBe(1);
    expect(a.a.seen.released).toEqual([a.shard]);
  });

  it('loses a lease the mark finds taken, reported once, and releases nothing of it', async () => {
    const leases = new MarkingStore();
    const { w, a, shard } = await started(leases);
    // Another worker took it just now; A's mark (or a renewal before it) finds it taken.
    await expect(leases.take(leases.rows.get(shard)!, 'B')).resolves.toMatchObject({ leaseOwner: 'B' });

    await w.stop();

    expect(a.seen.lost).toEqual([shard]);
    expect(a.seen.released).toEqual([]);
    expect(a.seen.errors).toEqual([]);
    // A failed condition is not retried.
    expect(leases.attempts).toBeLessThanOrEqual(1);
    expect(leases.rows.get(shard)!.leaseOwner).toBe('B');
  });

  it('still stops when the observer throws at the loss the mark found, and reports that', async () => {
    const leases = new MarkingStore();
    const { w, a, shard } = await started(leases, (r) => ({
      ...r.observer,
      leaseLost: () => {
        throw new Error('observer failed');
      },
    }));
    await expect(leases.take(leases.rows.get(shard)!, 'B')).resolves.toMatchObject({ leaseOwner: 'B' });

    await w.stop();

    expect(a.seen.errors.map((e) => [e.message, (e.error as Error).message])).toEqual([
      ['marking the leases as handed over failed', 'observer failed'],
    ]);
    expect(w.status().state).toBe('stopped');
  });
});
