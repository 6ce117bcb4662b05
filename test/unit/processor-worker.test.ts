import {
  type _Record,
  type DescribeStreamCommand,
  type DescribeStreamCommandOutput,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sleep } from '../../shared/backoff.js';
import {
  HeldLease,
  type Lease,
  type LeaseStore,
  ProcessorWorker,
  processorSettings,
  type RecordPublisher,
  RecordsTrimmedError,
  ShardConsumer,
  StreamSource,
  type StreamsApi,
  syncShards,
  type TrimReport,
} from '../../shared/processor/index.js';
import { coordinatesOf, type RelayResult } from '../../shared/relay/index.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

/** Short timings; renewals and scans keep the production ratios' margin within the failover time. */
const SETTINGS = { failoverMs: 400, renewIntervalMs: 50, leaseScanIntervalMs: 20, shardSyncIntervalMs: 20, retryMaxDelayMs: 20 };

const sequenceOf = (record: _Record): string => record.dynamodb!.SequenceNumber!;

const delivered = (records: readonly _Record[]): RelayResult => ({
  outcomes: records.map((record) => ({ status: 'delivered', record: coordinatesOf(record), published: 1, deadLettered: 0 })),
  published: records.length,
  retried: 0,
  deadLettered: 0,
  ignored: 0,
  failed: 0,
});

/** Lets callers through while open; after `close()`, they wait until `open()`. */
class Gate {
  private closed: Promise<void> | undefined;
  private opener: (() => void) | undefined;

  close(): void {
    this.closed = new Promise((resolve) => {
      this.opener = resolve;
    });
  }

  open(): void {
    this.opener?.();
    this.closed = undefined;
  }

  passed(): Promise<void> | undefined {
    return this.closed;
  }
}

/** Every publisher of the test, so a test that fails while one is held does not leave its worker waiting. */
const publishers: CountingPublisher[] = [];

/** Publishes everything, counting each record's publications; after `hold()`, publishes wait for `open()`. */
class CountingPublisher implements RecordPublisher {
  readonly published = new Map<string, number>();
  inFlight = 0;
  maxInFlight = 0;
  private readonly gate = new Gate();

  constructor() {
    publishers.push(this);
  }

  hold(): void {
    this.gate.close();
  }

  open(): void {
    this.gate.open();
  }

  async relay(records: readonly _Record[]): Promise<RelayResult> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await this.gate.passed();
      for (const record of records) this.published.set(sequenceOf(record), (this.published.get(sequenceOf(record)) ?? 0) + 1);
      return delivered(records);
    } finally {
      this.inFlight--;
    }
  }
}

/** What a worker reported, by callback. */
function recorder() {
  const seen = {
    released: [] as string[],
    lost: [] as string[],
    acquired: [] as string[],
    errors: [] as { message: string; error: unknown }[],
    trimmed: [] as TrimReport[],
    scans: 0,
  };
  const observer = {
    leaseReleased: (shardId: string) => seen.released.push(shardId),
    leaseLost: (shardId: string) => seen.lost.push(shardId),
    leaseAcquired: (shardId: string) => seen.acquired.push(shardId),
    error: (message: string, error: unknown) => seen.errors.push({ message, error }),
    trimmed: (report: TrimReport) => seen.trimmed.push(report),
    leaseScan: () => {
      seen.scans++;
    },
  };
  return { seen, observer };
}

const transient = (): Error =>
  Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });

/** A lease table whose next renewals or checkpoints fail with a throttling error, as DynamoDB's may. */
class FlakyLeaseStore extends MemoryLeaseStore {
  renewFailures = 0;
  checkpointFailures = 0;

  override async renew(lease: Lease, owner: string): Promise<Lease> {
    if (this.renewFailures > 0) {
      this.renewFailures--;
      throw transient();
    }
    return super.renew(lease, owner);
  }

  override async checkpoint(lease: Lease, owner: string, checkpoint: string): Promise<Lease> {
    if (this.checkpointFailures > 0) {
      this.checkpointFailures--;
      throw transient();
    }
    return super.checkpoint(lease, owner, checkpoint);
  }
}

/** Every hanging lease table of the test, so a test that fails while one hangs does not leave its worker waiting. */
const hangingStores: HangingLeaseStore[] = [];

/**
 * One worker's view of a shared lease table; after `hang()` every call waits until `open()`, as
 * requests to an unreachable DynamoDB wait without a timeout, and then goes through.
 */
class HangingLeaseStore implements LeaseStore {
  private readonly gate = new Gate();

  constructor(private readonly table: LeaseStore) {
    hangingStores.push(this);
  }

  hang(): void {
    this.gate.close();
  }

  open(): void {
    this.gate.open();
  }

  private async through<T>(call: () => Promise<T>): Promise<T> {
    await this.gate.passed();
    return call();
  }

  list = () => this.through(() => this.table.list());
  create = (leaseKey: string, parents: readonly string[]) => this.through(() => this.table.create(leaseKey, parents));
  renew = (lease: Lease, owner: string) => this.through(() => this.table.renew(lease, owner));
  take = (lease: Lease, owner: string) => this.through(() => this.table.take(lease, owner));
  checkpoint = (lease: Lease, owner: string, checkpoint: string) => this.through(() => this.table.checkpoint(lease, owner, checkpoint));
  release = (lease: Lease, owner: string) => this.through(() => this.table.release(lease, owner));
  remove = (lease: Lease) => this.through(() => this.table.remove(lease));
}

let workers: ProcessorWorker[] = [];
afterEach(async () => {
  for (const publisher of publishers.splice(0)) publisher.open();
  for (const store of hangingStores.splice(0)) store.open();
  await Promise.all(workers.map((w) => w.halt()));
  workers = [];
});

function worker(options: Omit<ConstructorParameters<typeof ProcessorWorker>[0], 'settings'> & { settings?: object }): ProcessorWorker {
  const created = new ProcessorWorker({ ...options, settings: { ...SETTINGS, ...options.settings } });
  workers.push(created);
  return created;
}

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

describe('transient lease table errors', () => {
  it('keep the lease when renewals fail for another reason than losing it, and retry them', async () => {
    const stream = new SimulatedStream();
    const leases = new FlakyLeaseStore();
    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    const w = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher,
      workerId: 'A',
      observer,
      settings: { failoverMs: 2000, renewIntervalMs: 100 },
    });
    await w.start();
    const shard = stream.shards[0]!.id;
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
    const stream = new SimulatedStream();
    const leases = new FlakyLeaseStore();
    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    const w = worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher,
      workerId: 'A',
      observer,
      settings: { readLimit: 1 },
    });
    await w.start();
    const shard = stream.shards[0]!.id;
    leases.checkpointFailures = 2;
    for (let seq = 1; seq <= 3; seq++) stream.commit({ type: 'order', id: 'a' }, seq, 1);
    const last = sequenceOf(stream.shards[0]!.records.at(-1)!);
    await waitFor(() => leases.rows.get(shard)!.checkpoint === last, { what: 'the checkpoint of the last record' });

    expect([...publisher.published.values()]).toEqual([1, 1, 1]);
    expect(seen.acquired).toEqual([shard]);
    expect(seen.errors.map((e) => e.message)).toEqual(Array(2).fill(`shard ${shard}: checkpoint failed; retrying while the lease is held`));
  });

  it('never run two consumers of one shard at once when a lease given up is taken back while its consumer still publishes', async () => {
    const stream = new SimulatedStream();
    const leases = new FlakyLeaseStore();
    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    const w = worker({ source: new StreamSource(stream, stream.streamArn), leases, publisher, workerId: 'A', observer });
    await w.start();
    const shard = stream.shards[0]!.id;

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
    const stream = new SimulatedStream();
    const shard = stream.shards[0]!.id;
    const leases = new FlakyLeaseStore();
    const publisher = new CountingPublisher();
    const a = recorder();
    const first = worker({ source: new StreamSource(stream, stream.streamArn), leases, publisher, workerId: 'A', observer: a.observer });
    await first.start();
    leases.checkpointFailures = Number.POSITIVE_INFINITY;
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    await waitFor(() => publisher.published.size === 1, { what: 'the record' });
    await waitFor(() => a.seen.errors.length > 0, { what: 'a failed checkpoint' });
    return { stream, shard, leases, publisher, a, first };
  }

  it('do not hold stop() up: the lease is given up to expire for the next worker', async () => {
    const { stream, shard, leases, publisher, a, first } = await failingCheckpoints();
    let stopped = false;
    void first.stop().then(() => {
      stopped = true;
    });
    await waitFor(() => stopped, { what: 'stop() to resolve' });
    expect(a.seen.lost).toEqual([shard]);
    expect(a.seen.released).toEqual([]);

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
        stopping: () => false,
        sleep,
        processed: () => {},
        failed: () => {},
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
      stopping: () => false,
      sleep,
      processed: () => {},
      failed: () => {},
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

describe('data trimmed from the stream', () => {
  it('finishes an unfinished shard that left the stream, reporting its records lost, so its children start', async () => {
    const stream = new SimulatedStream();
    const root = stream.shards[0]!.id;
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    stream.split(root);
    const children = stream.openShards.map((s) => s.id);
    const later = [2, 3, 4].flatMap((seq) => stream.commit({ type: 'order', id: 'a' }, seq, 1));
    const leases = new MemoryLeaseStore();
    const source = new StreamSource(stream, stream.streamArn);
    // The processor had listed the shards, then was down for longer than the retention.
    await syncShards(source, leases);
    stream.trim(root);

    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    const w = worker({ source, leases, publisher, workerId: 'A', observer });
    await w.start();
    await waitFor(() => publisher.published.size === later.length, { what: "the children's records" });
    await waitFor(() => !leases.rows.has(root), { what: 'the finished lease of the trimmed shard to be removed' });
    expect(seen.trimmed).toEqual([{ shardId: root, checkpoint: 'TRIM_HORIZON', shardGone: true }]);
    expect(seen.errors).toHaveLength(1);
    expect(seen.errors[0]!.error).toBeInstanceOf(RecordsTrimmedError);
    expect(children.every((child) => leases.rows.has(child))).toBe(true);
  });

  it('does not give a shard up when only GetShardIterator says it is missing and the listing still has it', async () => {
    const stream = new SimulatedStream();
    const [id] = stream.commit({ type: 'order', id: 'a' }, 1, 1);
    let refused = 0;
    const streams = {
      send: async (command: DescribeStreamCommand | GetShardIteratorCommand | GetRecordsCommand) => {
        if (command instanceof GetShardIteratorCommand && refused++ === 0) {
          throw Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
        }
        return stream.send(command as GetRecordsCommand);
      },
    } as StreamsApi;
    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    const w = worker({
      source: new StreamSource(streams, stream.streamArn),
      leases: new MemoryLeaseStore(),
      publisher,
      workerId: 'A',
      observer,
    });
    await w.start();
    await waitFor(() => publisher.published.size === 1, { what: `${id} to be published` });
    expect(seen.trimmed).toEqual([]);
  });

  it('fails a shard listing that is incomplete instead of returning part of it', async () => {
    const streams = { send: async () => ({ $metadata: {} }) as DescribeStreamCommandOutput } as unknown as StreamsApi;
    await expect(new StreamSource(streams, 'arn:stream').listShards()).rejects.toThrow(
      /no stream description; the shard listing is incomplete/,
    );
  });

  it('reports records trimmed past the checkpoint before they were read, and reads on from the oldest left', async () => {
    const stream = new SimulatedStream();
    for (let seq = 1; seq <= 4; seq++) stream.commit({ type: 'order', id: 'a' }, seq, 1);
    const shard = stream.shards[0]!.id;
    const [firstRecord, , third, fourth] = stream.shards[0]!.records.map(sequenceOf) as [string, string, string, string];
    const leases = new MemoryLeaseStore();
    const source = new StreamSource(stream, stream.streamArn);
    await syncShards(source, leases);
    const taken = (await leases.take(leases.rows.get(shard)!, 'old'))!;
    await leases.release(await leases.checkpoint(taken, 'old', firstRecord), 'old');
    stream.trimRecords(shard, 2);

    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    const w = worker({ source, leases, publisher, workerId: 'A', observer });
    await w.start();
    await waitFor(() => publisher.published.size === 2, { what: 'the records left' });
    expect([...publisher.published.keys()]).toEqual([third, fourth]);
    expect(seen.trimmed).toEqual([{ shardId: shard, checkpoint: firstRecord, shardGone: false }]);
    expect(seen.errors).toHaveLength(1);
    expect(seen.errors[0]!.message).toBe(`shard ${shard}: records were trimmed from the stream before they were read`);
    expect(seen.errors[0]!.error).toBeInstanceOf(RecordsTrimmedError);
  });
});
