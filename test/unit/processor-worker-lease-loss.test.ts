import { type DescribeStreamCommand, GetRecordsCommand, type GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sleep } from '../../shared/backoff.js';
import { HeldLease } from '../../shared/processor/held-lease.js';
import { processorSettings } from '../../shared/processor/index.js';
import type { Lease } from '../../shared/processor/lease.js';
import { ShardConsumer } from '../../shared/processor/shard-consumer.js';
import { StreamSource, type StreamsApi } from '../../shared/processor/stream-source.js';
import { CountingPublisher, openPublishers, sequenceOf } from '../helpers/counting-publisher.js';
import { FlakyLeaseStore } from '../helpers/flaky-lease-store.js';
import { HangingLeaseStore, openHangingStores } from '../helpers/hanging-lease-store.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, recorder, SETTINGS, worker, workerOnFlakyLeases } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  openHangingStores();
  await haltWorkers();
});

describe('transient lease table errors', () => {
  it('keep the lease when renewals fail for another reason than losing it, and retry them', async () => {
    const { stream, shard, leases, publisher, seen, w } = await workerOnFlakyLeases({
      settings: { failoverMs: 2000, renewIntervalMs: 100 },
    });
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    await waitFor(() => publisher.published.size === 1, { what: 'the first record' });

    leases.renewFailures = 3;
    await waitFor(() => leases.renewFailures === 0, { what: 'the failing renewals' });
    const counter = leases.rows.get(shard)!.leaseCounter;
    await waitFor(() => leases.rows.get(shard)!.leaseCounter > counter, { what: 'a renewal after them' });
    stream.commit({ type: 'order', id: 'a' }, 2, 1);
    await waitFor(() => publisher.published.size === 2, { what: 'the second record' });

    expect(seen.lost).toEqual([]);
    expect(w.status().leases).toEqual([shard]);
    expect(seen.acquired).toEqual([shard]);
    expect(seen.errors.map((e) => e.message)).toEqual(
      Array(3).fill(`shard ${shard}: renewing the lease failed; retrying while it cannot have expired`),
    );
    expect([...publisher.published.values()]).toEqual([1, 1]);
  });

  it('retry a failed checkpoint instead of giving the shard up and publishing its records again', async () => {
    const { stream, shard, leases, publisher, seen } = await workerOnFlakyLeases({ settings: { readLimit: 1 } });
    leases.checkpointFailures = 2;
    for (let seq = 1; seq <= 3; seq++) stream.commit({ type: 'order', id: 'a' }, seq, 1);
    const last = sequenceOf(stream.shards[0]!.records.at(-1)!);
    await waitFor(() => leases.rows.get(shard)!.checkpoint === last, { what: 'the checkpoint of the last record' });

    expect([...publisher.published.values()]).toEqual([1, 1, 1]);
    expect(seen.acquired).toEqual([shard]);
    expect(seen.errors.map((e) => e.message)).toEqual(Array(2).fill(`shard ${shard}: checkpoint failed; retrying while the lease is held`));
  });

  it('never run two consumers of one shard at once when a lease given up is taken back while its consumer still publishes', async () => {
    const { stream, shard, leases, publisher, seen } = await workerOnFlakyLeases();

    publisher.hold();
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    await waitFor(() => publisher.inFlight === 1, { what: 'the publish to start' });
    // The table keeps failing until the lease could have expired: the worker gives it up ...
    leases.renewFailures = Number.POSITIVE_INFINITY;
    await waitFor(() => seen.lost.includes(shard), { what: 'the unrenewed lease to be given up' });
    leases.renewFailures = 0;
    // ... and, nobody else having taken it, takes it back while the first consumer still publishes.
    await waitFor(() => seen.acquired.length >= 2, { what: 'the lease to be taken back' });
    const scans = seen.scans;
    await waitFor(() => seen.scans >= scans + 5, { what: 'five more lease scans' });
    expect(publisher.inFlight).toBe(1);

    publisher.open();
    await waitFor(() => leases.rows.get(shard)!.checkpoint === sequenceOf(stream.shards[0]!.records[0]!), { what: 'the checkpoint' });
    expect(publisher.maxInFlight).toBe(1);
  });
});

describe('checkpoints that keep failing', () => {
  async function failingCheckpoints() {
    const { stream, shard, leases, publisher, seen, w: first } = await workerOnFlakyLeases();
    leases.checkpointFailures = Number.POSITIVE_INFINITY;
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    await waitFor(() => publisher.published.size === 1, { what: 'the record' });
    await waitFor(() => seen.errors.length > 0, { what: 'a failed checkpoint' });
    return { stream, shard, leases, publisher, seen, first };
  }

  it('do not hold stop() up: the lease is given up to expire for the next worker', async () => {
    const { stream, shard, leases, publisher, seen, first } = await failingCheckpoints();
    let stopped = false;
    void first.stop().then(() => {
      stopped = true;
    });
    await waitFor(() => stopped, { what: 'stop() to resolve' });
    expect(seen.lost).toEqual([shard]);
    expect(seen.released).toEqual([]);

    leases.checkpointFailures = 0;
    const second = worker({ source: new StreamSource(stream, stream.streamArn), leases, publisher, workerId: 'B' });
    await second.start();
    await waitFor(() => second.status().leases.includes(shard), { what: 'B to take the lease no longer renewed' });
    // Never checkpointed: B publishes the record again, as at-least-once delivery allows.
    await waitFor(() => publisher.published.get(sequenceOf(stream.shards[0]!.records[0]!)) === 2, { what: 'B to publish it again' });
  });

  it('end their back-off as soon as the lease is dropped', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    try {
      const stream = new SimulatedStream();
      stream.commit({ type: 'order', id: 'a' }, 1, 1);
      const shard = stream.shards[0]!.id;
      const leases = new FlakyLeaseStore();
      await leases.create(shard, []);
      const held = new HeldLease(leases, 'A', (await leases.take(leases.rows.get(shard)!, 'A'))!);
      leases.checkpointFailures = Number.POSITIVE_INFINITY;
      const consumer = new ShardConsumer(held, {
        source: new StreamSource(stream, stream.streamArn),
        publisher: new CountingPublisher(),
        // Back-offs of 99 ms and more, against idle reads 1 ms apart.
        settings: processorSettings({ ...SETTINGS, retryMaxDelayMs: 600_000, idleMinDelayMs: 1, idleMaxDelayMs: 1 }),
        parentsFinished: () => true,
        stopping: new AbortController().signal,
        stoppingFor: () => undefined,
        sleep,
        processed: () => {},
        failed: () => {},
        cutOff: () => {},
        // The worker halts while the consumer waits to retry its first failed checkpoint.
        checkpointFailed: () => void Promise.resolve().then(() => held.drop('halted')),
        trimmed: () => {},
      });
      let exit: string | undefined;
      void consumer.run().then((result) => {
        exit = result;
      });
      await vi.advanceTimersByTimeAsync(20);
      expect(exit).toBe('lease-lost');
    } finally {
      vi.restoreAllMocks();
      vi.useRealTimers();
    }
  });
});

describe('a stolen lease', () => {
  it('publishes no page read ahead once the checkpoint of the page before found the lease taken', async () => {
    const stream = new SimulatedStream();
    for (let seq = 1; seq <= 2; seq++) stream.commit({ type: 'order', id: 'a' }, seq, 1);
    const shard = stream.shards[0]!.id;
    let stolen!: () => void;
    const checkpointFailed = new Promise<void>((resolve) => {
      stolen = resolve;
    });
    // Another worker takes the lease while the first page is published; the first checkpoint then fails.
    class StealingStore extends MemoryLeaseStore {
      override async checkpoint(lease: Lease, owner: string, checkpoint: string): Promise<Lease> {
        await this.take(this.rows.get(lease.leaseKey)!, 'B');
        try {
          return await super.checkpoint(lease, owner, checkpoint);
        } finally {
          setImmediate(stolen);
        }
      }
    }
    const leases = new StealingStore();
    await leases.create(shard, []);
    const held = new HeldLease(leases, 'A', (await leases.take(leases.rows.get(shard)!, 'A'))!);
    // The page after the first is read while the first is published; it arrives once the checkpoint failed.
    let reads = 0;
    const streams = {
      send: async (command: DescribeStreamCommand | GetShardIteratorCommand | GetRecordsCommand) => {
        if (command instanceof GetRecordsCommand && ++reads === 2) await checkpointFailed;
        return stream.send(command as GetRecordsCommand);
      },
    } as StreamsApi;
    const publisher = new CountingPublisher();
    const consumer = new ShardConsumer(held, {
      source: new StreamSource(streams, stream.streamArn),
      publisher,
      settings: processorSettings({ ...SETTINGS, readLimit: 1 }),
      parentsFinished: () => true,
      stopping: new AbortController().signal,
      stoppingFor: () => undefined,
      sleep,
      processed: () => {},
      failed: () => {},
      cutOff: () => {},
      checkpointFailed: () => {},
      trimmed: () => {},
    });
    await expect(consumer.run()).resolves.toBe('lease-lost');
    expect([...publisher.published.keys()]).toEqual([sequenceOf(stream.shards[0]!.records[0]!)]);
  });
});

describe('a lease whose writes hang', () => {
  it('publishes nothing once another worker may have taken it, though no write ever failed', async () => {
    const stream = new SimulatedStream();
    const shard = stream.shards[0]!.id;
    const table = new MemoryLeaseStore();
    const hanging = new HangingLeaseStore(table);
    const publisherA = new CountingPublisher();
    const a = recorder();
    const first = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases: hanging,
      publisher: publisherA,
      workerId: 'A',
      observer: a.observer,
    });
    await first.start();
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    const firstRecord = sequenceOf(stream.shards[0]!.records[0]!);
    await waitFor(() => table.rows.get(shard)?.checkpoint === firstRecord, { what: "A's first checkpoint" });

    // A's requests to the lease table now wait for ever; its reads and publishes still go through.
    hanging.hang();
    const publisherB = new CountingPublisher();
    const second = worker({ source: new StreamSource(stream, stream.streamArn), leases: table, publisher: publisherB, workerId: 'B' });
    await second.start();
    await waitFor(() => second.status().leases.includes(shard), { what: 'B to take the unrenewed lease' });
    const later = Array.from({ length: 20 }, (_, i) => stream.commit({ type: 'order', id: 'a' }, i + 2, 1)).flat();
    const laterRecords = stream.shards[0]!.records.slice(1).map(sequenceOf);
    expect(laterRecords).toHaveLength(later.length);
    await waitFor(() => laterRecords.every((seq) => publisherB.published.has(seq)), { what: 'B to publish the later records' });
    await waitFor(() => a.seen.lost.includes(shard) || laterRecords.some((seq) => publisherA.published.has(seq)), {
      what: 'A to give the lease up or publish a later record',
    });

    expect(laterRecords.filter((seq) => publisherA.published.has(seq))).toEqual([]);
    expect(a.seen.lost).toEqual([shard]);
  });
});

describe('renewals that keep failing', () => {
  it('give the lease up at the moment another worker may take it, not a back-off later', async () => {
    vi.useFakeTimers();
    try {
      const stream = new SimulatedStream();
      const leases = new FlakyLeaseStore();
      const publisher = new CountingPublisher();
      const reasons: string[] = [];
      // Expiry in another worker's eyes: 1000 − 2 × 100 = 800 ms after the last write; the back-off
      // after failures at 400, 450, 550 and 750 ms would make the next attempt only at 1150 ms.
      const w = worker({
        source: new StreamSource(stream, stream.streamArn),
        leases,
        publisher,
        workerId: 'A',
        observer: { leaseLost: (_shard: string, reason: string) => reasons.push(reason) },
        settings: { failoverMs: 1000, renewIntervalMs: 400, leaseScanIntervalMs: 100 },
      });
      leases.renewFailures = Number.POSITIVE_INFINITY;
      // The consumer waits in a publish meanwhile: only the renewals judge the lease.
      publisher.hold();
      stream.commit({ type: 'order', id: 'a' }, 1, 1);
      await w.start();
      await vi.advanceTimersByTimeAsync(799);
      expect(reasons).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(reasons).toHaveLength(1);
      expect(reasons[0]).toMatch(/^not renewed for 800 ms, so another worker may take it/);
      expect(publisher.inFlight).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
