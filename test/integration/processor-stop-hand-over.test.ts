import { randomUUID } from 'node:crypto';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLeaseTable } from '../../shared/local/stack/lease-table.js';
import type { RecordPublisher } from '../../shared/processor/consumer-context.js';
import { DynamoDbLeaseTable } from '../../shared/processor/lease-table.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import type { RelayResult } from '../../shared/relay/index.js';
import { coordinatesOf } from '../../shared/relay/stream-record.js';
import { CountingPublisher, openPublishers, sequenceOf } from '../helpers/counting-publisher.js';
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

/** Timings with room for DynamoDB Local's latency on a loaded machine; the stop outlasts B's ten scans. */
const TIMINGS = { failoverMs: 3000, renewIntervalMs: 300, leaseScanIntervalMs: 100, handOffTimeoutMs: 5000 };

/** A publisher whose pages wait until they are cut off, as on an SNS that never answers; every record then fails. */
class UntilCutOff implements RecordPublisher {
  readonly waiting = new Set<string>();

  relay(records: readonly _Record[], options?: { signal?: AbortSignal }): Promise<RelayResult> {
    for (const record of records) this.waiting.add(sequenceOf(record));
    return new Promise((resolve) => {
      options?.signal?.addEventListener('abort', () =>
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
        }),
      );
    });
  }
}

describe('a stopping worker on the DynamoDB lease table', () => {
  it('marks its leases as handed over, so a worker below its share steals none while its pages finish, and takes them all once released', async () => {
    const tableName = `leases-${randomUUID().slice(0, 8)}`;
    await createLeaseTable(clients.dynamodb, tableName);
    const leases = new DynamoDbLeaseTable(clients.document, tableName);
    const stream = new SimulatedStream({ initialShards: 3 });
    const shards = stream.shards.map((shard) => shard.id).sort();
    const hanging = new UntilCutOff();
    const a = recorder();
    const first = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: hanging,
      workerId: 'A',
      observer: a.observer,
      settings: TIMINGS,
    });
    await first.start();
    await waitFor(() => first.status().leases.length === 3, { what: 'A to take the three leases' });
    // A record on every shard: each of A's consumers has a page in flight.
    for (let id = 0; new Set(stream.shardOfEvent.values()).size < 3; id++) stream.commit({ type: 'order', id: `o${id}` }, 1, 1);
    await waitFor(() => hanging.waiting.size === stream.shardOfEvent.size, { what: "A's pages in flight on every shard" });

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
    expect(first.status().state).toBe('stopping');
    expect(second.status().leases).toEqual([]);

    // A's pages are cut off handOffTimeoutMs into the stop, and every lease released: B takes them all.
    await stopping;
    expect(a.seen.lost).toEqual([]);
    expect(a.seen.released.sort()).toEqual(shards);
    await waitFor(() => second.status().leases.length === 3, { what: 'B to take the three released leases' });
    const records = stream.shards.flatMap((shard) => shard.records.map(sequenceOf));
    await waitFor(() => records.every((sequence) => publisher.published.get(sequence) === 1), { what: 'B to publish every record' });
    expect((await leases.list()).filter((lease) => lease.handingOver === true)).toEqual([]);
  });
});
