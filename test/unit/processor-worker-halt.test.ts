import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaseLostError } from '../../shared/processor/errors.js';
import { HeldLease } from '../../shared/processor/held-lease.js';
import type { Lease } from '../../shared/processor/lease.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { CountingPublisher, openPublishers } from '../helpers/counting-publisher.js';
import { Gate } from '../helpers/gate.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, recorder, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

/** A lease table whose checkpoints wait at a gate, as a write to a throttled table waits on the SDK's retries. */
class GatedCheckpoints extends MemoryLeaseStore {
  readonly gate = new Gate();
  checkpointsStarted = 0;

  override async checkpoint(lease: Lease, owner: string, checkpoint: string): Promise<Lease> {
    this.checkpointsStarted++;
    await this.gate.passed();
    return super.checkpoint(lease, owner, checkpoint);
  }
}

const stores: GatedCheckpoints[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) store.gate.open();
  openPublishers();
  await haltWorkers();
  vi.restoreAllMocks();
});

describe('a halted worker', () => {
  it('reports no lease lost, not even by a renewal that was queued behind a checkpoint when it halted', async () => {
    const stream = new SimulatedStream();
    const leases = new GatedCheckpoints();
    stores.push(leases);
    const { seen, observer } = recorder();
    const w = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: new CountingPublisher(),
      workerId: 'A',
      observer,
    });
    await w.start();
    await waitFor(() => w.status().leases.length === 1, { what: 'A to take the lease' });

    leases.gate.close();
    stream.commit({ type: 'order', id: 'o1' }, 1, 1);
    await waitFor(() => leases.checkpointsStarted === 1, { what: "the page's checkpoint waiting at the lease table" });
    const renewals = vi.spyOn(HeldLease.prototype, 'renew');
    await waitFor(() => renewals.mock.calls.length > 0, { what: 'a renewal queued behind the checkpoint' });

    const halted = w.halt();
    leases.gate.open();
    await halted;

    // The queued renewal found the lease dropped by the halt: a crash reports nothing.
    await expect(renewals.mock.results[0]!.value).rejects.toBeInstanceOf(LeaseLostError);
    expect(seen.lost).toEqual([]);
    expect(seen.released).toEqual([]);
    expect(w.status().state).toBe('stopped');
  });
});
