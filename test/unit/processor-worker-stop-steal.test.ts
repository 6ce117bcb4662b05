import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordPublisher } from '../../shared/processor/consumer-context.js';
import type { Lease } from '../../shared/processor/lease.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import type { RelayResult } from '../../shared/relay/index.js';
import { coordinatesOf } from '../../shared/relay/stream-record.js';
import { CountingPublisher, openPublishers, sequenceOf } from '../helpers/counting-publisher.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, recorder, SETTINGS, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  await haltWorkers();
});

/** A publisher whose pages wait for ever, as an SNS that never answers: only the cut-off ends them, failing every record. */
class NeverAnswering implements RecordPublisher {
  readonly waiting = new Set<string>();
  readonly cutOffAt = new Map<string, number>();

  relay(records: readonly _Record[], options?: { signal?: AbortSignal }): Promise<RelayResult> {
    for (const record of records) this.waiting.add(sequenceOf(record));
    return new Promise((resolve) => {
      options?.signal?.addEventListener('abort', () => {
        for (const record of records) this.cutOffAt.set(sequenceOf(record), performance.now());
        resolve({
          outcomes: records.map((record) => ({
            status: 'failed',
            record: coordinatesOf(record),
            reason: 'DEADLINE_REACHED',
            detail: 'cut off',
          })),
          published: 0,
          retried: 0,
          deadLettered: 0,
          ignored: 0,
          failed: records.length,
        });
      });
    });
  }
}

/** A lease table that refuses the hand-over mark for good, as a table without the permission to write it would. */
class RefusingMarks extends MemoryLeaseStore {
  override async handOver(): Promise<Lease> {
    throw Object.assign(new Error('not authorized to perform: dynamodb:UpdateItem'), {
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 400 },
    });
  }
}

describe('a stopping worker whose hand-over marks were refused', () => {
  // With the mark written, nothing is stolen: test/integration/processor-stop-hand-over.test.ts.
  it('may have a lease with a page in flight stolen by a worker below its share: duplicates at most, never a loss', async () => {
    const stream = new SimulatedStream({ initialShards: 3 });
    const leases = new RefusingMarks();
    const hanging = new NeverAnswering();
    const a = recorder();
    const first = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: hanging,
      workerId: 'A',
      observer: a.observer,
      settings: { handOffTimeoutMs: 2000 },
    });
    await first.start();
    expect(first.status().leases).toHaveLength(3);
    // A record on every shard: each of A's consumers has a page in flight.
    for (let id = 0; new Set(stream.shardOfEvent.values()).size < 3; id++) stream.commit({ type: 'order', id: `o${id}` }, 1, 1);
    await waitFor(() => hanging.waiting.size === stream.shardOfEvent.size, { what: "A's pages in flight on every shard" });

    const stopping = first.stop();
    // B holds none: its share is ceil(3 / 2) = 2, no lease is free, and none is marked as handed over, so it steals from A.
    const publisher = new CountingPublisher();
    const second = worker({ source: new StreamSource(stream, stream.streamArn), leases, publisher, workerId: 'B' });
    await second.start();
    await waitFor(() => second.status().leases.length === 1, { what: 'B to steal a lease from the stopping A' });
    const stolenAt = performance.now();
    const stolen = second.status().leases[0]!;
    const record = stream.shards.find((shard) => shard.id === stolen)!.records[0]!;
    // B publishes the page A still has in flight.
    await waitFor(() => publisher.published.get(sequenceOf(record)) === 1, { what: 'B to publish the stolen shard’s record' });
    // A learns of it at its next renewal (no scan runs once stopping), and cuts its page short at once.
    await waitFor(() => hanging.cutOffAt.has(sequenceOf(record)), { what: "A's page on the stolen shard cut off" });
    expect(hanging.cutOffAt.get(sequenceOf(record))! - stolenAt).toBeLessThan(SETTINGS.renewIntervalMs + SETTINGS.failoverMs / 2);
    expect(a.seen.lost).toContain(stolen);
    // The other pages are cut off handOffTimeoutMs into the stop, and their leases released for B.
    await stopping;
    expect(a.seen.released.sort()).toEqual(
      stream.shards
        .map((shard) => shard.id)
        .filter((id) => id !== stolen)
        .sort(),
    );
    expect(leases.rows.get(stolen)?.leaseOwner).toBe('B');
    const records = stream.shards.flatMap((shard) => shard.records.map(sequenceOf));
    await waitFor(() => records.every((sequence) => publisher.published.has(sequence)), { what: 'B to publish every record A did not' });
  });
});

describe('a lease taken by another worker while its page is in flight', () => {
  it("does not move the new owner's checkpoint back when the page's publishing ends", async () => {
    const stream = new SimulatedStream();
    for (let seq = 1; seq <= 3; seq++) stream.commit({ type: 'order', id: 'a' }, seq, 1);
    const shard = stream.shards[0]!.id;
    const [first, second, third] = stream.shards[0]!.records.map(sequenceOf) as [string, string, string];
    const leases = new MemoryLeaseStore();
    /** B takes the lease while A publishes its first page, and checkpoints past it before A's publish returns. */
    class OvertakenPublisher extends CountingPublisher {
      override async relay(records: readonly _Record[]): Promise<RelayResult> {
        const row = leases.rows.get(shard)!;
        if (row.leaseOwner === 'A') await leases.checkpoint((await leases.take(row, 'B'))!, 'B', third);
        return super.relay(records);
      }
    }
    const publisher = new OvertakenPublisher();
    const lost: string[] = [];
    const exits: string[] = [];
    // Renewals and scans far apart: A learns of B's take from its own checkpoint write, not before it.
    const a = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher,
      workerId: 'A',
      settings: { failoverMs: 30_000, renewIntervalMs: 5_000, leaseScanIntervalMs: 5_000, readLimit: 1 },
      observer: { leaseLost: (_shard, reason) => lost.push(reason), consumerExited: (_shard, exit) => exits.push(exit) },
    });
    await a.start();

    await waitFor(() => exits.length === 1, { what: "A's consumer to exit" });
    expect(exits).toEqual(['lease-lost']);
    expect(lost).toEqual([expect.stringMatching(/checkpoint failed because the lease changed/)]);
    // B's checkpoint stands: A's write, conditional on the counter and owner it held, was refused.
    expect(leases.rows.get(shard)).toMatchObject({ leaseOwner: 'B', checkpoint: third });
    // A published its page in flight, and at most the page read while that page's checkpoint was
    // under way: duplicates of B's at most, and none once the checkpoint found the lease taken.
    expect([...publisher.published.keys()]).toEqual([first, second].slice(0, publisher.published.size));
    expect(publisher.published.has(third)).toBe(false);
  });
});
