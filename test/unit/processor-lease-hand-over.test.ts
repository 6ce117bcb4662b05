import { describe, expect, it } from 'vitest';
import { HeldLease } from '../../shared/processor/held-lease.js';
import type { Lease } from '../../shared/processor/lease.js';
import { planLeases } from '../../shared/processor/lease-balance.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';

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
