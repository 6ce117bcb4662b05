import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { HeldLease } from '../../shared/processor/held-lease.js';
import { LeaseLostError, ProcessorOptionsError, processorSettings } from '../../shared/processor/index.js';
import { type Lease, type LeaseStore, SHARD_END, TRIM_HORIZON } from '../../shared/processor/lease.js';
import { planLeases } from '../../shared/processor/lease-balance.js';
import { LeaseCoordinator } from '../../shared/processor/lease-coordinator.js';
import { leaseExpiresAfterMs } from '../../shared/processor/settings.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

const lease = (leaseKey: string, leaseOwner?: string, checkpoint = '100'): Lease => ({
  leaseKey,
  ...(leaseOwner === undefined ? {} : { leaseOwner }),
  leaseCounter: 1,
  checkpoint,
  parentShardIds: [],
  ownerSwitchesSinceCheckpoint: 0,
});
const never = () => false;

describe('lease balancing (planLeases)', () => {
  it('takes free and expired leases before stealing, up to the fair share', () => {
    const leases = [lease('s1'), lease('s2', 'dead'), lease('s3', 'w2'), lease('s4', 'w2'), lease('s5', 'w2')];
    const plan = planLeases({ leases, me: 'w1', held: new Set(), isExpired: (l) => l.leaseOwner === 'dead', maxSteal: 1 });
    expect(plan.target).toBe(3);
    expect(plan.take.map((l) => l.leaseKey).sort()).toEqual(['s1', 's2']);
    expect(plan.steal).toEqual([]);
  });

  it('steals a bounded number from the most loaded worker when nothing is free', () => {
    const leases = ['s1', 's2', 's3', 's4', 's5', 's6'].map((k) => lease(k, 'w2'));
    const plan = planLeases({ leases, me: 'w1', held: new Set(), isExpired: never, maxSteal: 2 });
    expect(plan.target).toBe(3);
    expect(plan.steal).toHaveLength(2);
    expect(plan.steal.every((l) => l.leaseOwner === 'w2')).toBe(true);
  });

  it('leaves finished leases alone and does not count them', () => {
    const leases = [lease('s1', undefined, SHARD_END), lease('s2', 'w2')];
    const plan = planLeases({ leases, me: 'w1', held: new Set(), isExpired: never, maxSteal: 1 });
    expect(plan).toEqual({ take: [], steal: [], target: 1 });
  });

  it('takes back at once a lease in its own name that it does not work on (a restart with the same id)', () => {
    const plan = planLeases({ leases: [lease('s1', 'w1')], me: 'w1', held: new Set(), isExpired: never, maxSteal: 1 });
    expect(plan.take.map((l) => l.leaseKey)).toEqual(['s1']);
  });

  fcTest.prop([fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 8 }), fc.array(fc.nat(), { minLength: 40, maxLength: 40 })])(
    'converges from any assignment, free leases included, to holdings within one of each other, every lease held',
    (leaseCount, workerCount, initial) => {
      const workers = Array.from({ length: workerCount }, (_, i) => `w${i}`);
      // One draw in workerCount + 1 leaves the lease free.
      const owners = new Map<string, string | undefined>(
        Array.from({ length: leaseCount }, (_, i) => [`s${i}`, workers[initial[i]! % (workerCount + 1)]]),
      );
      for (let round = 0; round < 200; round++) {
        let moved = false;
        for (const me of workers) {
          const leases = [...owners].map(([key, owner]) => lease(key, owner));
          const mine = new Set([...owners].filter(([, o]) => o === me).map(([k]) => k));
          const plan = planLeases({ leases, me, held: mine, isExpired: never, maxSteal: 1, random: () => 0.5 });
          for (const l of [...plan.take, ...plan.steal]) {
            owners.set(l.leaseKey, me);
            moved = true;
          }
        }
        if (!moved) break;
      }
      expect([...owners.values()].filter((o) => o === undefined)).toEqual([]);
      const counts = workers.map((w) => [...owners.values()].filter((o) => o === w).length);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    },
  );
});

describe('held lease', () => {
  it('serialises renewals and checkpoints so its own writes never collide on the counter', async () => {
    const store = new MemoryLeaseStore();
    await store.create('s1', []);
    const taken = (await store.take((await store.list())[0]!, 'w1'))!;
    const held = new HeldLease(store, 'w1', taken);
    await Promise.all([held.renew(), held.checkpoint('200'), held.renew(), held.checkpoint('300')]);
    expect(store.rows.get('s1')).toMatchObject({ leaseOwner: 'w1', checkpoint: '300', leaseCounter: taken.leaseCounter + 4 });
  });

  it('takes the other free leases when one take fails, reports the read before the failure, and throws the failure after', async () => {
    const store = new MemoryLeaseStore();
    await store.create('s1', []);
    await store.create('s2', []);
    const throttled = Object.assign(Object.create(store) as LeaseStore, {
      take: async (l: Lease, owner: string) => {
        if (l.leaseKey === 's1')
          throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name: 'ThrottlingException' });
        return store.take(l, owner);
      },
    });
    const coordinator = new LeaseCoordinator(throttled, 'w1', processorSettings(), { acquired: () => {}, lost: () => {} });
    let reads = 0;

    await expect(coordinator.scan(() => reads++)).rejects.toThrow('Rate of requests exceeds the allowed throughput');

    expect(reads).toBe(1);
    expect([...coordinator.held.keys()]).toEqual(['s2']);
  });

  it('dates a write that follows one whose answer was lost no later than the lost one, which may be the write applied', async () => {
    const store = new MemoryLeaseStore();
    await store.create('s1', []);
    const taken = (await store.take((await store.list())[0]!, 'w1'))!;
    let clock = 1_000;
    // The first renewal is applied, but its answer never comes: the caller sees a timeout. The
    // next, at the old counter, finds the lease as that one left it and recognises it as its own,
    // as DynamoDbLeaseTable does with ReturnValuesOnConditionCheckFailure.
    let calls = 0;
    const flaky: LeaseStore = Object.assign(Object.create(store) as LeaseStore, {
      renew: async (l: Lease, owner: string) => {
        calls++;
        if (calls === 1) {
          await store.renew(l, owner);
          throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
        }
        if (calls === 2) return { ...store.rows.get('s1')! };
        return store.renew(l, owner);
      },
    });
    const held = new HeldLease(flaky, 'w1', taken, () => clock);

    clock = 3_300;
    await expect(held.renew()).rejects.toThrow('socket hang up');
    // The table moved at 3.3 s; another worker dates the change from then, and so must this one.
    clock = 6_000;
    await expect(held.renew()).resolves.toBeUndefined();
    expect(held.writtenAt).toBe(3_300);
    // A write with nothing unconfirmed before it counts from its own issue.
    clock = 8_000;
    await held.renew();
    expect(held.writtenAt).toBe(8_000);
  });

  it('fails with LeaseLostError once another worker took the lease, and writes nothing after', async () => {
    const store = new MemoryLeaseStore();
    await store.create('s1', []);
    const held = new HeldLease(store, 'w1', (await store.take((await store.list())[0]!, 'w1'))!);
    await store.take((await store.list())[0]!, 'w2');
    await expect(held.checkpoint('200')).rejects.toBeInstanceOf(LeaseLostError);
    expect(held.lost).toBe(true);
    await expect(held.renew()).rejects.toThrow(/another worker holds or took it/);
    expect(store.rows.get('s1')).toMatchObject({ leaseOwner: 'w2', checkpoint: TRIM_HORIZON, ownerSwitchesSinceCheckpoint: 2 });
  });
});

describe('processor settings', () => {
  it('derives renewal and scan intervals from the failover time', () => {
    expect(processorSettings({ failoverMs: 3000 })).toMatchObject({ failoverMs: 3000, renewIntervalMs: 1000, leaseScanIntervalMs: 375 });
    expect(processorSettings()).toMatchObject({ failoverMs: 10_000, renewIntervalMs: 3333 });
  });

  it('rejects a renewal interval above half the failover time, saying what is allowed', () => {
    expect(() => processorSettings({ failoverMs: 1000, renewIntervalMs: 800 })).toThrow(ProcessorOptionsError);
    expect(() => processorSettings({ failoverMs: 1000, renewIntervalMs: 800 })).toThrow(
      /renewIntervalMs: got 800; allowed: a whole number from 10 to 500/,
    );
  });

  it('rejects renewal and scan intervals that leave a live owner no margin before it looks expired', () => {
    expect(() => processorSettings({ failoverMs: 1000, renewIntervalMs: 500, leaseScanIntervalMs: 250 })).toThrow(
      /renewIntervalMs: got renewIntervalMs 500 and leaseScanIntervalMs 250; allowed: renewIntervalMs \+ 2 × leaseScanIntervalMs at most 700 \(70 % of failoverMs 1000\)/,
    );
    expect(() => processorSettings({ failoverMs: 1000, leaseScanIntervalMs: 250 })).toThrow(/leaseScanIntervalMs: got renewIntervalMs 333/);
    expect(processorSettings({ failoverMs: 1000, renewIntervalMs: 500, leaseScanIntervalMs: 100 }).leaseScanIntervalMs).toBe(100);
  });

  fcTest.prop([fc.integer({ min: 200, max: 600_000 })])('derives intervals that every failover time accepts', (failoverMs) => {
    expect(() => processorSettings({ failoverMs })).not.toThrow();
  });

  it('rejects an unknown option by name', () => {
    expect(() => processorSettings({ failover: 5 } as never)).toThrow(/option failover: unknown key "failover"; allowed: failoverMs/);
  });
});

describe('stream source', () => {
  it('follows DescribeStream pagination and reports lineage and closed shards', async () => {
    const stream = new SimulatedStream({ initialShards: 3, pageSize: 2 });
    stream.split(stream.shards[0]!.id);
    stream.split(stream.shards[3]!.id);
    const shards = await new StreamSource(stream, stream.streamArn).listShards();
    expect(shards).toHaveLength(7);
    expect(shards.filter((s) => s.closed).map((s) => s.shardId)).toEqual([stream.shards[0]!.id, stream.shards[3]!.id]);
    expect(shards.filter((s) => s.parentShardId === stream.shards[0]!.id)).toHaveLength(2);
  });

  it('reports an expired iterator as a result, not an error', async () => {
    const stream = new SimulatedStream({ expiryRate: 1 });
    const source = new StreamSource(stream, stream.streamArn);
    const start = await source.iterator(stream.shards[0]!.id, TRIM_HORIZON);
    await expect(source.read((start as { iterator: string }).iterator)).resolves.toEqual({ status: 'expired' });
  });
});

describe('lease expiry (LeaseCoordinator, on a fake clock)', () => {
  const settings = processorSettings({ failoverMs: 1000, renewIntervalMs: 500, leaseScanIntervalMs: 100 });

  async function drill(ownerDiesAt: number): Promise<{ takenAt: number | undefined; lastOwnerWrite: number }> {
    let now = 0;
    const store = new MemoryLeaseStore();
    await store.create('s1', []);
    const events = { acquired: () => {}, lost: () => {} };
    const owner = new LeaseCoordinator(store, 'w1', settings, events, () => now);
    const other = new LeaseCoordinator(store, 'w2', settings, events, () => now);
    await owner.scan();
    let lastOwnerWrite = 0;
    let takenAt: number | undefined;
    for (now = 0; now <= 6000 && takenAt === undefined; now += 10) {
      if (now < ownerDiesAt && now % settings.renewIntervalMs === 0 && now > 0) {
        await owner.renewAll();
        lastOwnerWrite = now;
      }
      if (now % settings.leaseScanIntervalMs === 0) {
        await other.scan();
        if (other.held.has('s1')) takenAt = now;
      }
    }
    return { takenAt, lastOwnerWrite };
  }

  it('never takes the lease of an owner that keeps renewing', async () => {
    expect((await drill(Number.POSITIVE_INFINITY)).takenAt).toBeUndefined();
  });

  it('takes a dead owner’s lease no later than the failover time after its last write', async () => {
    for (const diesAt of [510, 740, 990, 1230]) {
      const { takenAt, lastOwnerWrite } = await drill(diesAt);
      expect(takenAt).toBeDefined();
      expect(takenAt! - lastOwnerWrite).toBeLessThanOrEqual(settings.failoverMs);
      expect(takenAt! - lastOwnerWrite).toBeGreaterThan(settings.renewIntervalMs);
    }
  });
});

describe('lease expiry under write latency and slow scans (on a fake clock)', () => {
  /**
   * An owner that renews every `renewIntervalMs`, each renewal landing `latencyMs` after it was
   * issued (and the next one issued `renewIntervalMs` after that), and another worker whose scans
   * take `scanMs` and read the table halfway through. The owner dies after `renewals` renewals;
   * when `live`, the drill ends there instead.
   */
  async function drill(p: {
    failoverMs: number;
    renewIntervalMs: number;
    leaseScanIntervalMs: number;
    latencyMs: number;
    scanMs: number;
    offset: number;
    renewals: number;
    live?: boolean;
  }) {
    const settings = processorSettings({
      failoverMs: p.failoverMs,
      renewIntervalMs: p.renewIntervalMs,
      leaseScanIntervalMs: p.leaseScanIntervalMs,
    });
    let now = 0;
    const store = new MemoryLeaseStore();
    await store.create('s1', []);
    const scanned: LeaseStore = {
      list: async () => {
        now += p.scanMs / 2;
        const rows = await store.list();
        now += p.scanMs / 2;
        return rows;
      },
      create: (key, parents) => store.create(key, parents),
      renew: (lease, owner) => store.renew(lease, owner),
      take: (lease, owner) => store.take(lease, owner),
      checkpoint: (lease, owner, checkpoint) => store.checkpoint(lease, owner, checkpoint),
      recordFailure: (lease, owner, failed) => store.recordFailure(lease, owner, failed),
      release: (lease, owner) => store.release(lease, owner),
      handOver: (lease, owner) => store.handOver(lease, owner),
      remove: (lease) => store.remove(lease),
    };
    const events = { acquired: () => {}, lost: () => {} };
    const owner = new LeaseCoordinator(store, 'w1', settings, events, () => now);
    const other = new LeaseCoordinator(scanned, 'w2', settings, events, () => now);
    await owner.scan();
    const scanPeriod = p.leaseScanIntervalMs + p.scanMs;
    const renewPeriod = p.renewIntervalMs + p.latencyMs;
    let nextScan = 0;
    let nextLanding = (p.offset % scanPeriod) + renewPeriod;
    let lastOwnerWrite = 0;
    for (let renewed = 0; ; ) {
      if (renewed < p.renewals && nextLanding <= nextScan + p.scanMs / 2) {
        now = nextLanding;
        await owner.renewAll();
        lastOwnerWrite = now;
        renewed++;
        nextLanding += renewPeriod;
        continue;
      }
      if (renewed >= p.renewals && (p.live || nextScan > lastOwnerWrite + 2 * p.failoverMs)) return { takenAt: undefined, lastOwnerWrite };
      now = nextScan;
      await other.scan();
      if (other.held.has('s1')) return { takenAt: now, lastOwnerWrite };
      nextScan = now + p.leaseScanIntervalMs;
    }
  }

  const timings = fc.integer({ min: 200, max: 20_000 }).chain((failoverMs) =>
    fc.record({
      failoverMs: fc.constant(failoverMs),
      renewIntervalMs: fc.integer({ min: 10, max: Math.floor(failoverMs / 2) }),
      leaseScanIntervalMs: fc.integer({ min: Math.max(10, Math.floor(failoverMs / 50)), max: Math.floor(failoverMs / 4) }),
      latencyMs: fc.integer({ min: 0, max: Math.floor(failoverMs / 10) }),
      scanMs: fc.integer({ min: 0, max: Math.floor(failoverMs / 20) }),
      offset: fc.nat({ max: 100_000 }),
    }),
  );
  /** Accepted settings only: the others are refused at start-up. */
  const accepted = ({
    failoverMs,
    renewIntervalMs,
    leaseScanIntervalMs,
  }: {
    failoverMs: number;
    renewIntervalMs: number;
    leaseScanIntervalMs: number;
  }): boolean => {
    try {
      processorSettings({ failoverMs, renewIntervalMs, leaseScanIntervalMs });
      return true;
    } catch (error) {
      if (error instanceof ProcessorOptionsError) return false;
      throw error;
    }
  };

  fcTest.prop([timings], {
    // A renewal landing 20 ms late with renewals at half and scans at a quarter of the failover time.
    examples: [[{ failoverMs: 1000, renewIntervalMs: 500, leaseScanIntervalMs: 250, latencyMs: 20, scanMs: 0, offset: 0 }]],
  })('never judges a live owner dead when its writes land up to a tenth of the failover time late', async (t) => {
    if (!accepted(t)) return;
    const { takenAt } = await drill({ ...t, renewals: 20 * Math.ceil(t.failoverMs / t.renewIntervalMs), live: true });
    expect(takenAt).toBeUndefined();
  });

  fcTest.prop([timings, fc.integer({ min: 0, max: 5 })])(
    'takes a dead owner’s lease no later than the failover time (plus two and a half scans) after its last write',
    async (t, renewals) => {
      if (!accepted(t)) return;
      const { takenAt, lastOwnerWrite } = await drill({ ...t, renewals });
      expect(takenAt).toBeDefined();
      // The write is seen by a scan's read at most a scan period after it, dated to that scan's
      // end (half a scan later), and the lease taken at the first scan end past the expiry.
      expect(takenAt! - lastOwnerWrite).toBeLessThanOrEqual(t.failoverMs + (5 * t.scanMs) / 2);
    },
  );

  fcTest.prop([timings, fc.integer({ min: 0, max: 5 })], {
    // Scans of 3 s in a 10 s failover: dated to their start, writes looked up to two scans older than they were.
    examples: [[{ failoverMs: 10_000, renewIntervalMs: 3333, leaseScanIntervalMs: 500, latencyMs: 0, scanMs: 3000, offset: 1700 }, 2]],
  })('never takes a lease before its owner gives it up, however long the scans take', async (t, renewals) => {
    if (!accepted(t)) return;
    const { takenAt, lastOwnerWrite } = await drill({ ...t, scanMs: t.scanMs * 20, renewals });
    // The owner publishes until leaseExpiresAfterMs after its last write, by its own clock.
    if (takenAt !== undefined) expect(takenAt - lastOwnerWrite).toBeGreaterThanOrEqual(leaseExpiresAfterMs(t));
  });
});
