import { afterEach, describe, expect, it } from 'vitest';
import type { Lease } from '../../shared/processor/lease.js';
import { LeaseCoordinator } from '../../shared/processor/lease-coordinator.js';
import { processorSettings } from '../../shared/processor/settings.js';
import { WorkerClock } from '../../shared/processor/worker-clock.js';
import { renewLoop } from '../../shared/processor/worker-loops.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { waitFor } from '../helpers/wait.js';

/** A lease table where renewing one lease takes `slowMs` (a throttled write the SDK retries), the others none. */
class OneSlowRenewal extends MemoryLeaseStore {
  readonly renewedAt = new Map<string, number[]>();

  constructor(
    private readonly slowKey: string,
    private readonly slowMs: number,
  ) {
    super();
  }

  override async renew(lease: Lease, owner: string): Promise<Lease> {
    const times = this.renewedAt.get(lease.leaseKey) ?? [];
    times.push(performance.now());
    this.renewedAt.set(lease.leaseKey, times);
    if (lease.leaseKey === this.slowKey) await new Promise((resolve) => setTimeout(resolve, this.slowMs));
    return super.renew(lease, owner);
  }
}

const clocks: WorkerClock[] = [];
afterEach(() => {
  for (const clock of clocks.splice(0)) clock.stop();
});

describe('lease renewals', () => {
  it("renews each lease every interval, however long another lease's renewal takes", async () => {
    const settings = processorSettings({ failoverMs: 400, renewIntervalMs: 50, leaseScanIntervalMs: 20 });
    const store = new OneSlowRenewal('slow', 300);
    await store.create('slow', []);
    await store.create('fast', []);
    const coordinator = new LeaseCoordinator(store, 'A', settings, { acquired: () => undefined, lost: () => undefined });
    await coordinator.scan();
    expect([...coordinator.held.keys()].sort()).toEqual(['fast', 'slow']);

    const clock = new WorkerClock();
    clocks.push(clock);
    const loop = renewLoop(clock, settings.renewIntervalMs, coordinator, () => undefined);
    await waitFor(() => (store.renewedAt.get('slow')?.length ?? 0) >= 3, { what: 'three renewals of the slow lease', timeoutMs: 5000 });
    clock.stop();
    await loop;

    // Waiting for the slow one, the fast lease was renewed once a round, as often as the slow one: it went
    // unrenewed for an interval plus the slow write (350 ms), near the 360 ms after which its consumer stops
    // publishing and another worker may take it. Counted, not timed: each slow write spans several intervals.
    const fast = store.renewedAt.get('fast')?.length ?? 0;
    const slow = store.renewedAt.get('slow')?.length ?? 0;
    expect(fast).toBeGreaterThanOrEqual(2 * slow);
    expect(coordinator.held.has('fast')).toBe(true);
  });
});
