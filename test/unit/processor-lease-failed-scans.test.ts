import { describe, expect, it } from 'vitest';
import { processorSettings } from '../../shared/processor/index.js';
import type { FailedAttempts, Lease, LeaseStore } from '../../shared/processor/lease.js';
import { LeaseCoordinator } from '../../shared/processor/lease-coordinator.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';

/** One worker's view of a shared lease table whose `Scan` fails while `failing` (throttled, cut off). */
class FailingScans implements LeaseStore {
  failing = false;
  failed = 0;
  constructor(private readonly table: LeaseStore) {}
  list = async (): Promise<Lease[]> => {
    if (this.failing) {
      this.failed++;
      throw Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ThrottlingException' });
    }
    return this.table.list();
  };
  create = (key: string, parents: readonly string[]) => this.table.create(key, parents);
  renew = (lease: Lease, owner: string) => this.table.renew(lease, owner);
  take = (lease: Lease, owner: string) => this.table.take(lease, owner);
  checkpoint = (lease: Lease, owner: string, checkpoint: string) => this.table.checkpoint(lease, owner, checkpoint);
  recordFailure = (lease: Lease, owner: string, failed: FailedAttempts) => this.table.recordFailure(lease, owner, failed);
  release = (lease: Lease, owner: string) => this.table.release(lease, owner);
  handOver = (lease: Lease, owner: string) => this.table.handOver(lease, owner);
  remove = (lease: Lease) => this.table.remove(lease);
}

describe('lease expiry after the scanning worker’s own scans failed (LeaseCoordinator, on a fake clock)', () => {
  const settings = processorSettings({ failoverMs: 10_000, renewIntervalMs: 3000 }); // scans every 500 ms

  /**
   * Worker w1 takes the lease and renews it every `renewIntervalMs` until `ownerDiesAt`; w2 scans
   * every `leaseScanIntervalMs`, its scans failing from `outage[0]` to `outage[1]`.
   */
  async function drill(p: { ownerDiesAt: number; outage: readonly [number, number] }) {
    let now = 0;
    const table = new MemoryLeaseStore();
    await table.create('s1', []);
    const events = { acquired: () => {}, lost: () => {} };
    const owner = new LeaseCoordinator(table, 'w1', settings, events, () => now);
    const scans = new FailingScans(table);
    const other = new LeaseCoordinator(scans, 'w2', settings, events, () => now);
    await owner.scan();
    let lastOwnerWrite = 0;
    let takenAt: number | undefined;
    for (now = 0; now <= 40_000 && takenAt === undefined; now += 10) {
      if (now > 0 && now < p.ownerDiesAt && now % settings.renewIntervalMs === 0) {
        await owner.renewAll();
        lastOwnerWrite = now;
      }
      scans.failing = now >= p.outage[0] && now < p.outage[1];
      if (now % settings.leaseScanIntervalMs !== 0) continue;
      // The worker's scan loop reports a failed scan and tries again on its next tick.
      await other.scan().catch(() => undefined);
      if (other.held.has('s1')) takenAt = now;
    }
    return { takenAt, lastOwnerWrite, failedScans: scans.failed };
  }

  it('never takes the lease of a live owner on the first scan that succeeds after a run of failed ones', async () => {
    // Longer than the failover time: the last successful scan before the outage is 10 s old when it ends.
    const { takenAt, failedScans } = await drill({ ownerDiesAt: Number.POSITIVE_INFINITY, outage: [1000, 11_000] });
    expect(failedScans).toBe(20);
    expect(takenAt).toBeUndefined();
  });

  it('still takes a dead owner’s lease, at most the failover time after the first scan that succeeds again', async () => {
    const outage = [1000, 11_000] as const;
    const { takenAt, lastOwnerWrite } = await drill({ ownerDiesAt: 10_000, outage });
    expect(lastOwnerWrite).toBe(9000);
    expect(takenAt).toBeDefined();
    expect(takenAt! - outage[1]).toBeLessThanOrEqual(settings.failoverMs);
  });

  it('takes a dead owner’s lease on time when it died long before the outage', async () => {
    const { takenAt, lastOwnerWrite } = await drill({ ownerDiesAt: 1000, outage: [20_000, 21_000] });
    expect(takenAt).toBeDefined();
    expect(takenAt! - lastOwnerWrite).toBeLessThanOrEqual(settings.failoverMs);
  });
});
