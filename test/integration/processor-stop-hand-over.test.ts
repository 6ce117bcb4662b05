import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { CountingPublisher, openPublishers, sequenceOf } from '../helpers/counting-publisher.js';
import { freshLeaseTable } from '../helpers/lease-tables.js';
import { testClients } from '../helpers/local.js';
import { haltWorkers, recorder, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

const clients = testClients();
afterAll(() => clients.destroy());
afterEach(async () => {
  openPublishers();
  await haltWorkers();
});

/**
 * Timings with room for DynamoDB Local's latency on a loaded machine; the stop is not cut short
 * while the test holds A's pages.
 */
const TIMINGS = { failoverMs: 3000, renewIntervalMs: 300, leaseScanIntervalMs: 100, handOffTimeoutMs: 60_000 };

describe('a stopping worker on the DynamoDB lease table', () => {
  it('marks its leases as handed over, so a worker below its share steals none while its pages finish, and takes them all once released', async () => {
    const leases = await freshLeaseTable(clients);
    const stream = new SimulatedStream({ initialShards: 3 });
    const shards = stream.shards.map((shard) => shard.id).sort();
    const slow = new CountingPublisher();
    const a = recorder();
    const first = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: slow,
      workerId: 'A',
      observer: a.observer,
      settings: TIMINGS,
    });
    await first.start();
    await waitFor(() => first.status().leases.length === 3, { what: 'A to take the three leases' });
    // A record on every shard: each of A's consumers has a page in flight until the test lets them through.
    slow.hold();
    for (let id = 0; new Set(stream.shardOfEvent.values()).size < 3; id++) stream.commit({ type: 'order', id: `o${id}` }, 1, 1);
    await waitFor(() => slow.inFlight === 3, { what: "A's pages in flight on every shard" });

    const stopping = first.stop();
    await waitFor(async () => (await leases.list()).every((lease) => lease.leaseOwner === 'A' && lease.handingOver === true), {
      what: "A's leases marked as handed over",
    });
    // B holds none: its share is 3, and none is free. Without the mark it would steal from A.
    const b = recorder();
    const publisher = new CountingPublisher();
    const second = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher,
      workerId: 'B',
      observer: b.observer,
      settings: TIMINGS,
    });
    await second.start();
    const scans = b.seen.scans;
    await waitFor(() => b.seen.scans >= scans + 10, { what: 'ten lease scans of B' });
    expect(second.status().leases).toEqual([]);

    // A's pages go out, are checkpointed, and every lease is released: B takes them all, and repeats none.
    slow.open();
    await stopping;
    expect(a.seen.lost).toEqual([]);
    expect(a.seen.released.sort()).toEqual(shards);
    await waitFor(() => second.status().leases.length === 3, { what: 'B to take the three released leases' });
    const records = stream.shards.flatMap((shard) => shard.records.map(sequenceOf));
    // A page read ahead during the stop is left to B: each record is published once, by one of them.
    const publications = (sequence: string) => (slow.published.get(sequence) ?? 0) + (publisher.published.get(sequence) ?? 0);
    // B goes on from A's checkpoints: a record written after the hand-off is published after any left to it.
    stream.commit({ type: 'order', id: 'after' }, 1, 1);
    const after = stream.shards.flatMap((shard) => shard.records.map(sequenceOf)).find((sequence) => !records.includes(sequence))!;
    await waitFor(() => publisher.published.has(after), { what: 'B to publish the record written after the hand-off' });
    await waitFor(() => records.every((sequence) => publications(sequence) > 0), { what: 'every record published' });
    expect(records.map(publications)).toEqual(records.map(() => 1));
    expect((await leases.list()).filter((lease) => lease.handingOver === true)).toEqual([]);
  });
});
