import { afterEach, describe, expect, it } from 'vitest';
import { HeldLease } from '../../shared/processor/held-lease.js';
import type { Lease } from '../../shared/processor/lease.js';
import { planLeases } from '../../shared/processor/lease-balance.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { CountingPublisher, openPublishers } from '../helpers/counting-publisher.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, recorder, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  await haltWorkers();
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

describe('held lease: the hand-over mark', () => {
  it('writes nothing on a store without the mark, and leaves the lease held', async () => {
    const store = new MemoryLeaseStore();
    await store.create('shard-1', []);
    const taken = (await store.take(store.rows.get('shard-1')!, 'A'))!;
    const held = new HeldLease(store, 'A', taken);
    const writes = store.writes;

    await held.handOver();

    expect(store.writes).toBe(writes);
    expect(held.lost).toBe(false);
    await held.release();
    expect(store.rows.get('shard-1')!.leaseOwner).toBeUndefined();
  });
});

/** A memory lease table with the hand-over mark, whose marks can be made to fail as a throttled write does. */
class MarkingStore extends MemoryLeaseStore {
  markFailures = 0;
  marks = 0;

  async handOver(lease: Lease, owner: string): Promise<Lease> {
    if (this.markFailures > 0) {
      this.markFailures--;
      throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
    }
    const marked: Lease = { ...(await this.renew(lease, owner)), handingOver: true };
    this.rows.set(lease.leaseKey, marked);
    this.marks++;
    return { ...marked };
  }
}

describe('a stopping worker marking its leases', () => {
  async function started(leases: MarkingStore, observe: (recorded: ReturnType<typeof recorder>) => object = (r) => r.observer) {
    const stream = new SimulatedStream();
    const a = recorder();
    const w = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: new CountingPublisher(),
      workerId: 'A',
      observer: observe(a),
      // Renewals and scans seldom: the stop's mark is the write that finds the lease taken.
      settings: { failoverMs: 16_000, renewIntervalMs: 4000, leaseScanIntervalMs: 1000 },
    });
    await w.start();
    await waitFor(() => w.status().leases.length === 1, { what: 'A to take the lease' });
    return { w, a, shard: stream.shards[0]!.id };
  }

  it('marks each lease before it releases it', async () => {
    const leases = new MarkingStore();
    const { w, a, shard } = await started(leases);

    await w.stop();

    expect(leases.marks).toBe(1);
    expect(a.seen.released).toEqual([shard]);
    expect(a.seen.errors).toEqual([]);
    expect(leases.rows.get(shard)!.leaseOwner).toBeUndefined();
  });

  it('reports a mark that failed and still hands the lease over', async () => {
    const leases = new MarkingStore();
    leases.markFailures = 1;
    const { w, a, shard } = await started(leases);

    await w.stop();

    expect(a.seen.errors.map((e) => e.message)).toEqual([
      `shard ${shard}: marking the lease as handed over failed; another worker may steal it before it is released`,
    ]);
    expect(a.seen.released).toEqual([shard]);
    expect(a.seen.lost).toEqual([]);
    expect(leases.rows.get(shard)!.leaseOwner).toBeUndefined();
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
