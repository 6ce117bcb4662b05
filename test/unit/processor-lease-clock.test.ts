import { afterEach, describe, expect, it, vi } from 'vitest';
import { processorSettings } from '../../shared/processor/index.js';
import { LeaseCoordinator } from '../../shared/processor/lease-coordinator.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('lease timing when the wall clock is stepped (LeaseCoordinator’s own clock)', () => {
  const settings = processorSettings({ failoverMs: 10_000 });
  const events = { acquired: () => {}, lost: () => {} };

  it('takes no live owner’s lease when the wall clock jumps an hour forward between two scans', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const table = new MemoryLeaseStore();
    await table.create('s1', []);
    const owner = new LeaseCoordinator(table, 'w1', settings, events);
    const other = new LeaseCoordinator(table, 'w2', settings, events);
    await owner.scan();
    await other.scan();
    expect(owner.held.has('s1')).toBe(true);

    await owner.renewAll();
    vi.setSystemTime(Date.now() + 3_600_000);
    await other.scan();

    expect(other.held.has('s1')).toBe(false);
    expect(owner.held.has('s1')).toBe(true);
  });
});
