import { afterEach, describe, expect, it } from 'vitest';
import { openPublishers, sequenceOf } from '../helpers/counting-publisher.js';
import { openHangingStores } from '../helpers/hanging-lease-store.js';
import { haltWorkers, workerOnFlakyLeases } from '../helpers/processor-worker.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  openHangingStores();
  await haltWorkers();
});

describe('status().recordsProcessed', () => {
  it('counts a record once when the worker reads it again after losing its lease and taking it back', async () => {
    const { stream, shard, leases, publisher, seen, w } = await workerOnFlakyLeases();
    // Neither the checkpoint nor the renewals get through: the lease is given up with the record unchecked.
    leases.checkpointFailures = Number.POSITIVE_INFINITY;
    leases.renewFailures = Number.POSITIVE_INFINITY;
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    const first = sequenceOf(stream.shards[0]!.records[0]!);
    await waitFor(() => publisher.published.get(first) === 1, { what: 'the record' });
    await waitFor(() => seen.lost.includes(shard), { what: 'the unrenewed lease to be given up' });
    leases.checkpointFailures = 0;
    leases.renewFailures = 0;
    // Taken back from its last checkpoint (none): the record is read and published again.
    await waitFor(() => publisher.published.get(first) === 2, { what: 'the record published again' });
    stream.commit({ type: 'order', id: 'a' }, 2, 1);
    const second = sequenceOf(stream.shards[0]!.records[1]!);
    await waitFor(() => publisher.published.get(second) === 1, { what: 'the next record' });

    // Two stream records, each done with; the repeat publish is an event published, not a record.
    expect(w.status()).toMatchObject({ recordsProcessed: 2, eventsPublished: 3 });
  });
});
