import { getEventListeners } from 'node:events';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { HeldLease } from '../../shared/processor/held-lease.js';
import { processorSettings } from '../../shared/processor/index.js';
import { publishCutoff } from '../../shared/processor/publish-cutoff.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';

describe('publishCutoff', () => {
  /** A lease written just now, held. */
  const held = {
    leaseKey: 'shard-1',
    lost: false,
    lostBecause: undefined,
    writtenAt: 0,
    now: () => 0,
    dropped: new AbortController().signal,
  } as unknown as HeldLease;
  const settings = processorSettings({ failoverMs: 16_000, renewIntervalMs: 1000, leaseScanIntervalMs: 4000, handOffTimeoutMs: 100 });

  it('aborts its signal as soon as the lease is dropped, with no timer run, and says why', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const store = new MemoryLeaseStore();
    await store.create('shard-1', []);
    const taken = (await store.take(store.rows.get('shard-1')!, 'A'))!;
    const lease = new HeldLease(store, 'A', taken, () => 0, 0);
    const stopping = new AbortController();
    const cutoff = publishCutoff(lease, settings, { stopping: stopping.signal, stoppingFor: () => undefined });

    lease.drop('the lease table shows owner B');

    expect(cutoff.signal.aborted).toBe(true);
    expect(cutoff.reason).toBe('the lease of shard-1 is no longer held: the lease table shows owner B');
    expect(cutoff.mayPublish()).toBe(false);
    cutoff.dispose();
    expect([getEventListeners(lease.dropped, 'abort').length, vi.getTimerCount()]).toEqual([0, 0]);
  });

  it("takes its listener off the worker's stop signal and clears its timer when disposed, whether or not it cut off", () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const stopping = new AbortController();
    let stoppedFor: number | undefined;
    const worker = { stopping: stopping.signal, stoppingFor: () => stoppedFor };

    const quiet = publishCutoff(held, settings, worker);
    expect([getEventListeners(stopping.signal, 'abort').length, vi.getTimerCount()]).toEqual([1, 1]);
    quiet.dispose();
    expect([getEventListeners(stopping.signal, 'abort').length, vi.getTimerCount()]).toEqual([0, 0]);

    // Cut off by the stop: the listener rescheduled the timer for the hand-off; mayPublish() then finds it reached.
    const cut = publishCutoff(held, settings, worker);
    stoppedFor = 0;
    stopping.abort();
    expect(cut.mayPublish()).toBe(true);
    stoppedFor = 100;
    expect(cut.mayPublish()).toBe(false);
    expect(cut.reason).toBe('the worker has been stopping for 100 ms (handOffTimeoutMs)');
    expect([getEventListeners(stopping.signal, 'abort').length, vi.getTimerCount()]).toEqual([0, 0]);
  });

  it("takes its listener off the lease's dropped signal when disposed, so a lease held for many pages keeps none", async () => {
    const store = new MemoryLeaseStore();
    await store.create('shard-1', []);
    const taken = (await store.take(store.rows.get('shard-1')!, 'A'))!;
    const lease = new HeldLease(store, 'A', taken, () => 0, 0);
    const worker = { stopping: new AbortController().signal, stoppingFor: () => undefined };

    for (let page = 0; page < 20; page++) {
      const cutoff = publishCutoff(lease, settings, worker);
      expect(getEventListeners(lease.dropped, 'abort')).toHaveLength(1);
      expect(cutoff.mayPublish()).toBe(true);
      cutoff.dispose();
    }

    expect(getEventListeners(lease.dropped, 'abort')).toHaveLength(0);
    expect(lease.dropped.aborted).toBe(false);
  });
});
