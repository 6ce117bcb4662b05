import type { TrimReport } from '../../shared/processor/index.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { Worker } from '../../shared/processor/worker.js';
import { CountingPublisher } from './counting-publisher.js';
import { FlakyLeaseStore } from './flaky-lease-store.js';
import { SimulatedStream } from './simulated-stream.js';

/** Short timings; renewals and scans keep the production ratios' margin within the failover time. */
export const SETTINGS = { failoverMs: 400, renewIntervalMs: 50, leaseScanIntervalMs: 20, shardSyncIntervalMs: 20, retryMaxDelayMs: 20 };

/** What a worker reported, by callback. */
export function recorder() {
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

let workers: Worker[] = [];

/** A worker with the short timings, halted by `haltWorkers()`. */
export function worker(options: Omit<ConstructorParameters<typeof Worker>[0], 'settings'> & { settings?: object }): Worker {
  const created = new Worker({ ...options, settings: { ...SETTINGS, ...options.settings } });
  workers.push(created);
  return created;
}

/** Halts every worker the test created, for an `afterEach`. */
export async function haltWorkers(): Promise<void> {
  await Promise.all(workers.map((w) => w.halt()));
  workers = [];
}

type Recorded = ReturnType<typeof recorder>;
type WorkerObserver = ConstructorParameters<typeof Worker>[0]['observer'];

/**
 * Worker A, started, on a new simulated stream (its one shard, `shard`), a lease store whose
 * writes the test can make fail, and a counting publisher; with what it reported (`seen`). The
 * observer it is given is the recorder's, or what `observer` makes of it.
 */
export async function workerOnFlakyLeases(options: { settings?: object; observer?: (recorded: Recorded) => WorkerObserver } = {}) {
  const stream = new SimulatedStream();
  const leases = new FlakyLeaseStore();
  const publisher = new CountingPublisher();
  const recorded = recorder();
  const { seen, observer } = recorded;
  const w = worker({
    source: new StreamSource(stream, stream.streamArn),
    leases,
    publisher,
    workerId: 'A',
    observer: options.observer?.(recorded) ?? observer,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
  });
  await w.start();
  return { stream, shard: stream.shards[0]!.id, leases, publisher, seen, w };
}
