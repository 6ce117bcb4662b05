import { type _Record, GetRecordsCommand } from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it } from 'vitest';
import type { Lease } from '../../shared/processor/lease.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import type { RecordOutcome, RelayResult } from '../../shared/relay/index.js';
import { coordinatesOf } from '../../shared/relay/stream-record.js';
import { CountingPublisher, openPublishers } from '../helpers/counting-publisher.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, recorder, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  await haltWorkers();
});

describe('graceful stop', () => {
  it('keeps renewing the leases while the last batches publish, and releases each as soon as its own consumer is done', async () => {
    const stream = new SimulatedStream({ initialShards: 2 });
    const leases = new MemoryLeaseStore();
    const publisher = new CountingPublisher();
    const a = recorder();
    const first = worker({ source: new StreamSource(stream, stream.streamArn), leases, publisher, workerId: 'A', observer: a.observer });
    await first.start();
    expect(first.status().leases).toHaveLength(2);
    // B takes free and expired leases only, so it would take A's the moment it looked expired.
    const second = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher,
      workerId: 'B',
      settings: { maxLeasesToStealAtOnce: 0 },
    });
    await second.start();

    publisher.hold();
    const [eventId] = stream.commit({ type: 'order', id: 'a' }, 1, 1);
    const busy = stream.shardOfEvent.get(eventId!)!;
    const idle = stream.shards.map((s) => s.id).find((id) => id !== busy)!;
    await waitFor(() => publisher.inFlight === 1, { what: "A's publish to start" });

    const stopping = first.stop();
    // The idle shard has nothing in flight: its lease is released at once, not after the busy one.
    await waitFor(() => a.seen.released.includes(idle), { what: 'the idle lease to be released while the other shard publishes' });
    // The busy shard's lease is renewed for longer than the failover time while its batch publishes.
    const counter = leases.rows.get(busy)!.leaseCounter;
    await waitFor(() => leases.rows.get(busy)!.leaseCounter >= counter + 10, { what: 'ten more writes to the busy lease' });
    expect(leases.rows.get(busy)!.leaseOwner).toBe('A');
    expect(publisher.inFlight).toBe(1);

    publisher.open();
    await stopping;
    expect(a.seen.released.sort()).toEqual([busy, idle].sort());
    expect(a.seen.errors).toEqual([]);
    expect(a.seen.lost).toEqual([]);
    await waitFor(() => leases.rows.get(busy)?.leaseOwner === 'B', { what: 'B to take the released lease' });
    await waitFor(() => second.status().leases.length === 2, { what: 'B to hold both leases' });
    // Checkpointed before it was released: B does not publish the record again.
    expect([...publisher.published.values()]).toEqual([1]);
  });
});

describe('stop() during start()', () => {
  it('ends the start and hands over the lease its scan took, leaving the worker stopped', async () => {
    const stream = new SimulatedStream();
    const shard = stream.shards[0]!.id;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let taking = 0;
    // The start's lease scan takes the lease only once stop() was called.
    class GatedStore extends MemoryLeaseStore {
      override async take(lease: Lease, owner: string): Promise<Lease | undefined> {
        taking++;
        await gate;
        return super.take(lease, owner);
      }
    }
    const leases = new GatedStore();
    const { seen, observer } = recorder();
    const w = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher: new CountingPublisher(),
      workerId: 'A',
      observer,
    });
    const starting = w.start();
    await waitFor(() => taking === 1, { what: "the start's lease scan to take the lease" });
    const stopping = w.stop();
    open();
    await Promise.all([starting, stopping]);

    expect(w.status().state).toBe('stopped');
    expect(w.status().leases).toEqual([]);
    expect(leases.rows.get(shard)!.leaseOwner).toBeUndefined();
    expect(seen.released).toEqual([shard]);
  });
});

describe('processor worker: a page that fails part-way', () => {
  it('counts the events SNS took before the failed record, as the retried page counts its own', async () => {
    const stream = new SimulatedStream({ initialShards: 1 });
    for (let i = 1; i <= 10; i++) stream.commit({ type: 'order', id: `o${i}` }, 1, 1);
    const eighth = stream.shards[0]!.records[7]!.dynamodb!.SequenceNumber!;
    let accepted = 0;
    let failOnce = true;
    // Publishes every record but the eighth, once: SNS took the other nine events of that page.
    const publisher = {
      async relay(records: readonly _Record[]): Promise<RelayResult> {
        const outcomes = records.map((record): RecordOutcome => {
          if (failOnce && record.dynamodb!.SequenceNumber === eighth) {
            return { status: 'failed', record: coordinatesOf(record), reason: 'PUBLISH_FAILED', detail: 'throttled' };
          }
          accepted++;
          return { status: 'delivered', record: coordinatesOf(record), published: 1, deadLettered: 0 };
        });
        const failed = outcomes.filter((o) => o.status === 'failed').length;
        failOnce = false;
        return { outcomes, published: records.length - failed, retried: 0, deadLettered: 0, ignored: 0, failed };
      },
    };
    let reported = 0;
    const w = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases: new MemoryLeaseStore(),
      publisher,
      workerId: 'w1',
      observer: { batch: (batch) => (reported += batch.published) },
    });
    await w.start();

    await waitFor(() => w.status().recordsProcessed === 10, { timeoutMs: 10_000, what: 'every record processed once' });
    expect(w.status().eventsPublished).toBe(accepted);
    expect(reported).toBe(accepted);
  });
});

describe('processor worker: a page read ahead when the worker stops', () => {
  it('ends the read ahead by the time stop() resolves, so no Streams call or timer outlives the worker', async () => {
    const stream = new SimulatedStream({ initialShards: 1 });
    for (let i = 1; i <= 3; i++) stream.commit({ type: 'order', id: `o${i}` }, 1, 1);
    let reads = 0;
    let aheadAborted = false;
    // The second GetRecords is the read ahead: it answers only when aborted.
    const streams = {
      send(command: unknown, options?: { abortSignal?: AbortSignal }) {
        if (command instanceof GetRecordsCommand && ++reads === 2) {
          return new Promise((_, reject) => {
            options?.abortSignal?.addEventListener('abort', () => {
              aheadAborted = true;
              reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
            });
          });
        }
        return stream.send(command as GetRecordsCommand);
      },
    };
    const publisher = new CountingPublisher();
    publisher.hold();
    const w = worker({
      source: new StreamSource(streams as never, stream.streamArn),
      leases: new MemoryLeaseStore(),
      publisher,
      workerId: 'w1',
      settings: { readLimit: 1, failoverMs: 60_000, renewIntervalMs: 500, leaseScanIntervalMs: 100 },
    });
    await w.start();
    await waitFor(() => reads === 2, { timeoutMs: 10_000, what: 'the page read ahead' });

    const stopping = w.stop();
    publisher.open();
    await stopping;

    expect(aheadAborted).toBe(true);
  });
});
