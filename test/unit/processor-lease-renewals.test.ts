import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Lease } from '../../shared/processor/lease.js';
import { LeaseCoordinator } from '../../shared/processor/lease-coordinator.js';
import { processorSettings } from '../../shared/processor/settings.js';
import { WorkerClock } from '../../shared/processor/worker-clock.js';
import { renewLoop } from '../../shared/processor/worker-loops.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { waitFor } from '../helpers/wait.js';

/** A lease table where renewing one lease (a throttled write the SDK retries) does not end until the test lets it. */
class OneSlowRenewal extends MemoryLeaseStore {
  readonly renewals = new Map<string, number>();
  endSlowRenewal: () => void = () => undefined;
  private readonly held = new Promise<void>((resolve) => {
    this.endSlowRenewal = resolve;
  });

  constructor(private readonly slowKey: string) {
    super();
  }

  override async renew(lease: Lease, owner: string): Promise<Lease> {
    this.renewals.set(lease.leaseKey, (this.renewals.get(lease.leaseKey) ?? 0) + 1);
    if (lease.leaseKey === this.slowKey) await this.held;
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
    const store = new OneSlowRenewal('slow');
    await store.create('slow', []);
    await store.create('fast', []);
    const coordinator = new LeaseCoordinator(store, 'A', settings, { acquired: () => undefined, lost: () => undefined });
    await coordinator.scan();
    expect([...coordinator.held.keys()].sort()).toEqual(['fast', 'slow']);

    const clock = new WorkerClock();
    clocks.push(clock);
    const loop = renewLoop(clock, settings.renewIntervalMs, coordinator, () => undefined);
    try {
      await waitFor(() => store.renewals.get('slow') === 1, { what: 'the slow renewal to begin' });
      const before = store.renewals.get('fast') ?? 0;
      // Waiting for the slow one, the fast lease was renewed once a round and no more: unrenewed while the slow
      // write lasts, it expires, its consumer stops publishing and another worker may take it.
      await waitFor(() => (store.renewals.get('fast') ?? 0) >= before + 3, {
        what: 'three renewals of the fast lease while the slow renewal lasts',
        timeoutMs: 5000,
      });
      expect(store.renewals.get('slow')).toBe(1);
      expect(coordinator.held.has('fast')).toBe(true);
    } finally {
      store.endSlowRenewal();
      clock.stop();
      await loop;
    }
  });
});

describe('the renewal loop', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('leaves no timer of a round behind once the round has ended', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let rounds = 0;
    const coordinator = {
      msUntilExpiry: () => Number.POSITIVE_INFINITY,
      renewAll: async () => {
        rounds++;
        return true;
      },
    };
    const clock = new WorkerClock();
    clocks.push(clock);
    const loop = renewLoop(clock, 1000, coordinator, () => undefined, Date.now);
    try {
      expect(vi.getTimerCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(1000);
      expect(rounds).toBe(1);
      // The round ended at once: only the wait for the next one is left, not the round's bound as well.
      expect(vi.getTimerCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(1000);
      expect(rounds).toBe(2);
      expect(vi.getTimerCount()).toBe(1);
    } finally {
      clock.stop();
      await loop;
    }
    expect(vi.getTimerCount()).toBe(0);
  });
});
