import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { RelayResult } from '../relay/index.js';
import type { HeldLease } from './held-lease.js';
import type { LeaseStore } from './lease.js';
import { LeaseCoordinator } from './lease-coordinator.js';
import { type ProcessorSettings, processorSettings } from './settings.js';
import { type RecordPublisher, ShardConsumer } from './shard-consumer.js';
import { parentsFinished, syncShards } from './shard-sync.js';
import type { StreamSource } from './stream-source.js';
import { WorkerClock } from './worker-clock.js';
import type { WorkerObserver } from './worker-observer.js';

export interface ProcessorWorkerOptions {
  readonly source: StreamSource;
  readonly leases: LeaseStore;
  /** The relay core restricted to the low-latency aggregate types (see `createProcessorRelay`). */
  readonly publisher: RecordPublisher;
  /** Unique per running worker, e.g. the ECS task id. */
  readonly workerId: string;
  readonly settings?: Partial<ProcessorSettings>;
  /** Logs and metrics; every callback is optional. */
  readonly observer?: WorkerObserver;
}

/** A worker's state for the health endpoint and tests. */
export interface WorkerStatus {
  readonly workerId: string;
  readonly state: 'starting' | 'running' | 'stopping' | 'stopped';
  /** Shard ids this worker holds. */
  readonly leases: readonly string[];
  /** Leases in the table as of the last scan. */
  readonly leasesInTable: number;
  /** When the lease table was last read successfully (epoch ms); 0 before the first scan. */
  readonly lastScanAt: number;
  readonly recordsProcessed: number;
  readonly eventsPublished: number;
}

/**
 * One stream processor worker: discovers shards, holds and balances leases with the other
 * workers, runs a consumer per held shard and publishes through the relay core. `stop()` is the
 * graceful hand-off (SIGTERM): the batch in flight is finished and checkpointed, then every
 * lease is released so another worker takes it on its next scan.
 *
 * @example
 * ```ts
 * const worker = new ProcessorWorker({ source, leases, publisher: relay, workerId: 'task-1' });
 * await worker.start();
 * process.once('SIGTERM', () => void worker.stop());
 * ```
 */
export class ProcessorWorker {
  readonly settings: ProcessorSettings;
  private readonly coordinator: LeaseCoordinator;
  private readonly consumers = new Map<HeldLease, Promise<void>>();
  private readonly clock = new WorkerClock();
  private readonly loops: Promise<void>[] = [];
  private state: WorkerStatus['state'] = 'starting';
  private halted = false;
  private lastScanAt = 0;
  private recordsProcessed = 0;
  private eventsPublished = 0;
  private syncRequested = false;
  private lastSyncAt = 0;
  private stopped: Promise<void> | undefined;

  constructor(private readonly options: ProcessorWorkerOptions) {
    this.settings = processorSettings(options.settings);
    this.coordinator = new LeaseCoordinator(options.leases, options.workerId, this.settings, {
      acquired: (held) => this.startConsumer(held),
      lost: (held, reason) => options.observer?.leaseLost?.(held.leaseKey, reason),
    });
  }

  get workerId(): string {
    return this.options.workerId;
  }

  status(): WorkerStatus {
    return {
      workerId: this.workerId,
      state: this.state,
      leases: [...this.coordinator.held.keys()],
      leasesInTable: this.coordinator.leases.length,
      lastScanAt: this.lastScanAt,
      recordsProcessed: this.recordsProcessed,
      eventsPublished: this.eventsPublished,
    };
  }

  /** Syncs shards and scans leases once, then keeps doing so in the background; resolves when ready. */
  async start(): Promise<void> {
    if (this.state !== 'starting') return;
    await syncShards(this.options.source, this.options.leases);
    this.lastSyncAt = Date.now();
    await this.scan();
    this.state = 'running';
    this.loops.push(
      this.every(this.settings.renewIntervalMs, () => this.coordinator.renewAll()),
      this.every(this.settings.leaseScanIntervalMs, () => this.scan()),
      this.every(Math.min(this.settings.shardSyncIntervalMs, this.settings.leaseScanIntervalMs), () => this.maybeSync()),
    );
  }

  /** Graceful: finishes and checkpoints the batches in flight, releases every lease, then resolves. */
  stop(): Promise<void> {
    this.stopped ??= this.handOff();
    return this.stopped;
  }

  /**
   * Stops at once, as a crash would: no checkpoint, no release, no further lease write. Its
   * leases expire after the failover time. For failure drills and tests.
   */
  halt(): Promise<void> {
    this.halted = true;
    for (const held of this.coordinator.held.values()) held.drop('halted');
    this.stopped ??= this.wind(async () => {});
    return this.stopped;
  }

  private handOff(): Promise<void> {
    return this.wind(async () => {
      await Promise.all(
        [...this.coordinator.held.values()].map(async (held) => {
          try {
            await held.release();
            this.options.observer?.leaseReleased?.(held.leaseKey);
          } catch (error) {
            this.options.observer?.error?.('releasing a lease failed; it expires after the failover time', error);
          }
          this.coordinator.forget(held);
        }),
      );
    });
  }

  /** Ends the loops, lets each consumer finish its batch in flight, then runs `last`. */
  private async wind(last: () => Promise<void>): Promise<void> {
    this.state = 'stopping';
    this.clock.stop();
    await Promise.all(this.loops);
    await Promise.all(this.consumers.values());
    await last();
    this.state = 'stopped';
  }

  private async scan(): Promise<void> {
    if (this.halted) return;
    await this.coordinator.scan();
    this.lastScanAt = Date.now();
    this.options.observer?.leaseScan?.({ held: this.coordinator.held.size, total: this.coordinator.leases.length });
  }

  private async maybeSync(): Promise<void> {
    const due = this.syncRequested || Date.now() - this.lastSyncAt >= this.settings.shardSyncIntervalMs;
    if (!due || this.halted) return;
    this.syncRequested = false;
    this.lastSyncAt = Date.now();
    await syncShards(this.options.source, this.options.leases);
  }

  private every(ms: number, task: () => Promise<void>): Promise<void> {
    return (async () => {
      while (!this.clock.stopped) {
        await this.clock.sleep(ms);
        if (this.clock.stopped) return;
        try {
          await task();
        } catch (error) {
          this.options.observer?.error?.('lease or shard maintenance failed; retrying on the next tick', error);
        }
      }
    })();
  }

  private startConsumer(held: HeldLease): void {
    if (this.clock.stopped) return;
    this.options.observer?.leaseAcquired?.(held.leaseKey);
    const consumer = new ShardConsumer(held, {
      source: this.options.source,
      publisher: this.options.publisher,
      settings: this.settings,
      parentsFinished: () => parentsFinished(held.lease, this.coordinator.leases),
      stopping: () => this.clock.stopped,
      sleep: (ms) => this.clock.sleep(ms),
      processed: (records, result) => this.processed(held.leaseKey, records, result),
      failed: (error, unpublished) => this.failed(held.leaseKey, error, unpublished),
    });
    const run = consumer
      .run()
      .then((exit) => {
        this.options.observer?.consumerExited?.(held.leaseKey, exit);
        if (exit === 'shard-end') {
          this.coordinator.forget(held);
          this.syncRequested = true;
        }
      })
      .catch((error: unknown) => {
        this.options.observer?.error?.(`shard ${held.leaseKey}: consumer failed`, error);
        held.drop('consumer failed');
        this.coordinator.forget(held);
      })
      .finally(() => this.consumers.delete(held));
    this.consumers.set(held, run);
  }

  private processed(shardId: string, records: readonly _Record[], result: RelayResult): void {
    this.recordsProcessed += records.length;
    this.eventsPublished += result.published;
    // The page's oldest record: how long the backlog's head waited, not its tail.
    const lagMs = lagOf(records[0]);
    this.options.observer?.batch?.({ shardId, records: records.length, published: result.published, ignored: result.ignored, lagMs });
  }

  private failed(shardId: string, error: unknown, unpublished: _Record | undefined): void {
    this.options.observer?.error?.(`shard ${shardId}: read or publish failed; retrying`, error);
    // The lag keeps growing while a record fails, so it is reported then too, not only once published.
    if (unpublished !== undefined) this.options.observer?.publishFailed?.({ shardId, lagMs: lagOf(unpublished) });
  }
}

/** Now − the record's `ApproximateCreationDateTime`, in ms. */
function lagOf(record: _Record | undefined): number | undefined {
  const created = record?.dynamodb?.ApproximateCreationDateTime;
  return created === undefined ? undefined : Math.max(0, Date.now() - new Date(created).getTime());
}
