import type { FailedAttempts, Lease, LeaseStore } from '../shared/processor/lease.js';
import { createProcessorRelay } from '../shared/processor/processor.js';
import { StreamSource } from '../shared/processor/stream-source.js';
import { Worker } from '../shared/processor/worker.js';
import { MemoryLeaseStore } from '../test/helpers/memory-lease-store.js';
import { SimulatedStream } from '../test/helpers/simulated-stream.js';
import { CountingSns, deadLetterQueueUrl, processorConfig, topicArns, until, unusedDlq } from './scale-fixtures.js';

/*
 * The stream processor over a simulated stream of many shards (DynamoDB Local has one), with
 * several workers in this process sharing one lease table: how fast they drain a backlog, what
 * the leases cost the table per shard, and how long the leases take to balance after a worker
 * joins or leaves. The lease table is the in-memory one with the DynamoDB table's conditional
 * semantics, wrapped to count its operations.
 */

/** Every interval is this many times shorter than the production default, so a run takes seconds. */
export const TIME_SCALE = 5;
/** The production defaults (failover 10 s, renewals every 3.33 s, scans every 500 ms, shard sync every 10 s), scaled down. */
export const SETTINGS = {
  failoverMs: 10_000 / TIME_SCALE,
  renewIntervalMs: Math.floor(10_000 / 3 / TIME_SCALE),
  leaseScanIntervalMs: 500 / TIME_SCALE,
  shardSyncIntervalMs: 10_000 / TIME_SCALE,
};
export const SCAN_MS = SETTINGS.leaseScanIntervalMs;

/** The lease operations a run made, as DynamoDB would bill them: reads are lease items read. */
export interface LeaseOps {
  /** Lease table reads: each `list()` is a consistent Scan of every lease. */
  scans: number;
  /** Lease items those scans read. */
  itemsRead: number;
  renewals: number;
  checkpoints: number;
  /** Takes, releases, hand-over marks, creates, removals and failed-attempt counts. */
  others: number;
}

const noOps = (): LeaseOps => ({ scans: 0, itemsRead: 0, renewals: 0, checkpoints: 0, others: 0 });

/** The lease table, counting what each worker asks of it. */
export class CountingLeaseStore implements LeaseStore {
  ops = noOps();
  constructor(private readonly inner = new MemoryLeaseStore()) {}
  reset(): void {
    this.ops = noOps();
  }
  async list(): Promise<Lease[]> {
    const leases = await this.inner.list();
    this.ops.scans++;
    this.ops.itemsRead += leases.length;
    return leases;
  }
  create(leaseKey: string, parentShardIds: readonly string[]): Promise<boolean> {
    this.ops.others++;
    return this.inner.create(leaseKey, parentShardIds);
  }
  renew(lease: Lease, owner: string): Promise<Lease> {
    this.ops.renewals++;
    return this.inner.renew(lease, owner);
  }
  take(lease: Lease, owner: string): Promise<Lease | undefined> {
    this.ops.others++;
    return this.inner.take(lease, owner);
  }
  checkpoint(lease: Lease, owner: string, checkpoint: string): Promise<Lease> {
    this.ops.checkpoints++;
    return this.inner.checkpoint(lease, owner, checkpoint);
  }
  recordFailure(lease: Lease, owner: string, failed: FailedAttempts): Promise<Lease> {
    this.ops.others++;
    return this.inner.recordFailure(lease, owner, failed);
  }
  release(lease: Lease, owner: string): Promise<void> {
    this.ops.others++;
    return this.inner.release(lease, owner);
  }
  handOver(lease: Lease, owner: string): Promise<Lease> {
    this.ops.others++;
    return this.inner.handOver(lease, owner);
  }
  remove(lease: Lease): Promise<boolean> {
    this.ops.others++;
    return this.inner.remove(lease);
  }
}

/** What one shard count and worker count measured. */
export interface ShardRun {
  readonly shards: number;
  readonly workers: number;
  readonly eventsPerSecond: number;
  /** Process CPU (µs) per event while draining. */
  readonly cpuPerEvent: number;
  /** Per shard per minute of production time, at steady state with no events flowing. */
  readonly perShardPerMinute: LeaseOps;
  /** Time to balance, in scan intervals: after a worker joins; after one stops gracefully; after one crashes (of W + 1). */
  readonly joinScans: number;
  readonly leaveScans: number;
  readonly crashScans: number;
}

/** Whether every lease is held and each live worker holds its fair share (⌊n/w⌋ or ⌈n/w⌉). */
function balanced(workers: readonly Worker[], shards: number): boolean {
  const counts = workers.map((worker) => worker.status().leases.length);
  const total = counts.reduce((a, b) => a + b, 0);
  return total === shards && Math.max(...counts) - Math.min(...counts) <= 1;
}

/** Time (ms) until the workers are balanced, checked every millisecond or so. */
async function timeToBalance(workers: readonly Worker[], shards: number): Promise<number> {
  const start = performance.now();
  await until(() => balanced(workers, shards), 120_000, `${workers.length} workers to balance ${shards} shards`, 1);
  return performance.now() - start;
}

/**
 * Runs `workers` workers over `shards` shards: drains `events` events spread over the shards,
 * counts lease operations for `steadyMs` with nothing flowing, then has one worker join, one
 * crash and (after another joined, untimed) one stop gracefully, timing each until the leases
 * are balanced again.
 */
export async function shardRun(shards: number, workers: number, events: number, steadyMs: number): Promise<ShardRun> {
  const stream = new SimulatedStream({ initialShards: shards, pageSize: 100 });
  const leases = new CountingLeaseStore();
  const sns = new CountingSns();
  const publisher = createProcessorRelay({ config: processorConfig, sns, sqs: unusedDlq, topicArns, deadLetterQueueUrl });
  let count = 0;
  const make = () =>
    new Worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher,
      workerId: `worker-${++count}`,
      settings: SETTINGS,
    });
  const running = Array.from({ length: workers }, make);
  try {
    await Promise.all(running.map((worker) => worker.start()));
    await timeToBalance(running, shards);

    // Commits of one event each, over many aggregates: the simulated stream routes each by its key's hash.
    const seqs = new Map<string, number>();
    for (let i = 0; i < events; i++) {
      const id = `o-${i % 2000}`;
      const seq = (seqs.get(id) ?? 0) + 1;
      seqs.set(id, seq);
      stream.commit({ type: 'order', id }, seq, 1);
    }
    const drainStart = performance.now();
    const cpuStart = process.cpuUsage();
    await until(() => sns.published >= events, 600_000, `${events} events to be published`, 2);
    const eventsPerSecond = events / ((performance.now() - drainStart) / 1000);
    const cpu = process.cpuUsage(cpuStart);
    const cpuPerEvent = (cpu.user + cpu.system) / events;

    // Steady state: the checkpoints of the drain are behind; nothing flows.
    await new Promise((resolve) => setTimeout(resolve, 2 * SETTINGS.failoverMs));
    leases.reset();
    await new Promise((resolve) => setTimeout(resolve, steadyMs));
    const productionMinutes = (steadyMs * TIME_SCALE) / 60_000;
    const per = (n: number) => n / shards / productionMinutes;
    const { scans, itemsRead, renewals, checkpoints, others } = leases.ops;
    const perShardPerMinute = {
      scans: per(scans),
      itemsRead: per(itemsRead),
      renewals: per(renewals),
      checkpoints: per(checkpoints),
      others: per(others),
    };

    const joining = make();
    running.push(joining);
    await joining.start();
    const joinScans = (await timeToBalance(running, shards)) / SCAN_MS;

    const crashing = running.shift() as Worker;
    await crashing.halt();
    const crashScans = (await timeToBalance(running, shards)) / SCAN_MS;

    // One more, so that one can leave however few there were.
    const another = make();
    running.push(another);
    await another.start();
    await timeToBalance(running, shards);
    const leaving = running.shift() as Worker;
    const stopped = leaving.stop();
    const leaveScans = (await timeToBalance(running, shards)) / SCAN_MS;
    await stopped;
    return { shards, workers, eventsPerSecond, cpuPerEvent, perShardPerMinute, joinScans, leaveScans, crashScans };
  } finally {
    await Promise.all(running.map((worker) => worker.halt()));
  }
}
