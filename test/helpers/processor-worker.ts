import type { TrimReport } from '../../shared/processor/index.js';
import { ProcessorWorker } from '../../shared/processor/worker.js';

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

let workers: ProcessorWorker[] = [];

/** A worker with the short timings, halted by `haltWorkers()`. */
export function worker(
  options: Omit<ConstructorParameters<typeof ProcessorWorker>[0], 'settings'> & { settings?: object },
): ProcessorWorker {
  const created = new ProcessorWorker({ ...options, settings: { ...SETTINGS, ...options.settings } });
  workers.push(created);
  return created;
}

/** Halts every worker the test created, for an `afterEach`. */
export async function haltWorkers(): Promise<void> {
  await Promise.all(workers.map((w) => w.halt()));
  workers = [];
}
