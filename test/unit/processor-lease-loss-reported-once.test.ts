import { describe, expect, it } from 'vitest';
import type { HeldLease } from '../../shared/processor/held-lease.js';
import type { Lease } from '../../shared/processor/lease.js';
import { type HandOverOutcome, LeaseCoordinator } from '../../shared/processor/lease-coordinator.js';
import { processorSettings } from '../../shared/processor/settings.js';
import { Gate } from '../helpers/gate.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { waitFor } from '../helpers/wait.js';

/** A lease table whose hand-over marks wait at a gate, then fail throttled (`throttle`) or go on as the table has them. */
class GatedMarks extends MemoryLeaseStore {
  readonly gate = new Gate();
  throttle = false;
  marksStarted = 0;

  override async handOver(lease: Lease, owner: string): Promise<Lease> {
    this.marksStarted++;
    await this.gate.passed();
    if (this.throttle) {
      // The next attempt waits at the gate again.
      this.gate.close();
      throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
    }
    return super.handOver(lease, owner);
  }
}

/** A coordinator holding lease `s1`, recording what it reports, with a mark of `s1` waiting at the gate. */
async function markingAtTheGate() {
  const store = new GatedMarks();
  await store.create('s1', []);
  const lost: string[] = [];
  const failedMarks: HandOverOutcome[] = [];
  const coordinator = new LeaseCoordinator(store, 'A', processorSettings({ failoverMs: 10_000 }), {
    acquired: () => undefined,
    lost: (_held, reason) => lost.push(reason),
    handOverFailed: (_held, _error, outcome) => failedMarks.push(outcome),
  });
  await coordinator.scan();
  const held = coordinator.held.get('s1') as HeldLease;
  store.gate.close();
  const ended = new AbortController();
  const marked = coordinator.handOverAll(ended.signal);
  await waitFor(() => store.marksStarted === 1, { what: 'the mark to reach the lease table' });
  return { store, coordinator, held, lost, failedMarks, ended, marked };
}

describe('a lease lost while its hand-over mark is in flight', () => {
  it('is reported lost once when a scan found it taken and the mark then fails on it', async () => {
    const { store, coordinator, lost, marked } = await markingAtTheGate();
    await store.take(store.rows.get('s1')!, 'B');

    await coordinator.scan();
    expect(lost).toEqual(['the lease table shows owner B']);
    store.gate.open();
    await marked;

    expect(lost).toEqual(['the lease table shows owner B']);
    expect(coordinator.held.has('s1')).toBe(false);
  });

  it('is reported once when its consumer gave it up first and the mark then fails', async () => {
    const { store, coordinator, held, lost, failedMarks, marked } = await markingAtTheGate();
    store.throttle = true;
    // What the worker does when a consumer exits with 'lease-lost' (it dropped the lease, unwritten too long).
    held.drop('not written for 8000 ms, so another worker may take it');
    coordinator.lose(held, held.lostBecause ?? 'lost');

    store.gate.open();
    await marked;

    expect(lost).toEqual(['not written for 8000 ms, so another worker may take it']);
    expect(failedMarks).toEqual([]);
    expect(coordinator.held.has('s1')).toBe(false);
  });
});

describe('a hand-over mark that fails once every consumer has exited', () => {
  it('is reported as not needed, not as given up with the lease open to a steal', async () => {
    const { store, coordinator, failedMarks, ended, marked } = await markingAtTheGate();
    store.throttle = true;
    ended.abort();

    store.gate.open();
    await marked;

    expect(failedMarks).toEqual(['not-needed']);
    expect(store.marksStarted).toBe(1);
    expect(coordinator.held.has('s1')).toBe(true);
  });

  it('is retried while a consumer is still at work, and reported as not needed once none is', async () => {
    const { store, failedMarks, ended, marked } = await markingAtTheGate();
    store.throttle = true;
    store.gate.open();
    await waitFor(() => store.marksStarted === 2, { what: 'the mark retried' });
    expect(failedMarks).toEqual(['retrying']);

    ended.abort();
    store.gate.open();
    await marked;
    expect(failedMarks).toEqual(['retrying', 'not-needed']);
  });
});

describe('a lease its consumer gave up, then found by a renewal', () => {
  it('is reported lost for the reason it was given up, not as taken by another worker', async () => {
    const store = new MemoryLeaseStore();
    await store.create('s1', []);
    const lost: string[] = [];
    const coordinator = new LeaseCoordinator(store, 'A', processorSettings({ failoverMs: 10_000 }), {
      acquired: () => undefined,
      lost: (_held, reason) => lost.push(reason),
    });
    await coordinator.scan();
    const held = coordinator.held.get('s1') as HeldLease;
    // The consumer dropped it (unwritten too long); the renewal loop comes round before the consumer's exit is handled.
    held.drop('not written for 8000 ms, so another worker may take it');

    await expect(coordinator.renewAll()).resolves.toBe(true);

    expect(lost).toEqual(['not written for 8000 ms, so another worker may take it']);
    expect(store.rows.get('s1')!.leaseOwner).toBe('A');
    expect(coordinator.held.has('s1')).toBe(false);
  });
});
