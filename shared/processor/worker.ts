import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { RelayResult } from '../relay/index.js';
import type { HeldLease } from './held-lease.js';
import { type HandOverOutcome, LeaseCoordinator } from './lease-coordinator.js';
import { ProcessedRecords } from './processed-records.js';
import type { ProcessorWorker } from './processor-worker.js';
import { type ProcessorSettings, processorSettings } from './settings.js';
import { ShardConsumer } from './shard-consumer.js';
import { syncShards } from './shard-sync.js';
import { monotonicNow, WorkerClock } from './worker-clock.js';
import { consumerContext } from './worker-consumer.js';
import { everyTick, renewLoop } from './worker-loops.js';
import { reportBatch } from './worker-reports.js';
import { retryStartStep } from './worker-start.js';
import type { ProcessorWorkerOptions, WorkerStatus } from './worker-types.js';

/** What a failed hand-over mark's report says follows it. */
const HAND_OVER_FAILED: Record<HandOverOutcome, string> = {
  retrying: 'retrying',
  'given-up': 'another worker may steal it before it is released',
  'not-needed': 'not retried: every consumer has exited, so no page is in flight to be published twice',
};

/**
 * The stream processor worker behind `createProcessor`: what users see of it is the
 * `ProcessorWorker` interface (its members' contracts are there); its constructor and options stay
 * internal. It ties the lease coordinator, the shard sync and a consumer per held shard together.
 */
export class Worker implements ProcessorWorker {
  readonly settings: ProcessorSettings;
  private readonly coordinator: LeaseCoordinator;
  /** The latest consumer run per lease key; a new run of a key waits for the one before it. */
  private readonly consumers = new Map<string, Promise<void>>();
  /** Reading, lease scans and shard syncs: stopped when the worker begins stopping. */
  private readonly clock = new WorkerClock();
  /** Renewals: stopped once every consumer has exited (at once by `halt()`). */
  private readonly renewals = new WorkerClock();
  private readonly loops: Promise<void>[] = [];
  /** Releases of leases taken once the stop began (no consumer runs on them): awaited by the stop. */
  private readonly unworked: Promise<void>[] = [];
  private state: WorkerStatus['state'] = 'starting';
  private halted = false;
  private lastScanAt = 0;
  private readonly recordsProcessed = new ProcessedRecords();
  private eventsPublished = 0;
  private syncRequested = false;
  private lastSyncAt = 0;
  private stopped: Promise<void> | undefined;
  /** The start itself; `started` adds the hand-off after a failed one. */
  private starting: Promise<void> | undefined;
  private started: Promise<void> | undefined;
  /** `observer.error`, looked up at each report, for the loops and the start's retries. */
  private readonly reportError = (message: string, error: unknown): void => this.options.observer?.error?.(message, error);

  constructor(private readonly options: ProcessorWorkerOptions) {
    this.settings = processorSettings(options.settings);
    this.coordinator = new LeaseCoordinator(options.leases, options.workerId, this.settings, {
      acquired: (held) => this.startConsumer(held),
      // A halted worker reports nothing more, as a crashed one could not: not even a write queued
      // before the halt that then finds the lease dropped by it.
      lost: (held, reason) => {
        if (!this.halted) options.observer?.leaseLost?.(held.leaseKey, reason);
      },
      renewFailed: (held, error) =>
        options.observer?.error?.(`shard ${held.leaseKey}: renewing the lease failed; retrying while it cannot have expired`, error),
      handOverFailed: (held, error, outcome) =>
        options.observer?.error?.(`shard ${held.leaseKey}: marking the lease as handed over failed; ${HAND_OVER_FAILED[outcome]}`, error),
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
      recordsProcessed: this.recordsProcessed.count,
      eventsPublished: this.eventsPublished,
    };
  }

  start(): Promise<void> {
    if (this.started === undefined) {
      if (this.state !== 'starting') return Promise.resolve();
      this.starting = this.begin();
      this.started = this.starting.catch(async (error: unknown) => {
        await this.stop();
        throw error;
      });
    }
    return this.started;
  }

  private async begin(): Promise<void> {
    const retried = {
      clock: this.clock,
      maxDelayMs: this.settings.retryMaxDelayMs,
      failed: this.reportError,
    };
    const bound = { timeoutMs: this.settings.failoverMs };
    await retryStartStep(
      `the first shard sync of ${this.options.source.streamArn}`,
      () => syncShards(this.options.source, this.options.leases, bound),
      retried,
    );
    if (this.clock.stopped) return;
    this.lastSyncAt = monotonicNow();
    // Renewing from the first scan on: a lease it takes stays held while a failed part of it is retried.
    this.loops.push(renewLoop(this.renewals, this.settings.renewIntervalMs, this.coordinator, this.reportError));
    await retryStartStep('the first lease table scan', () => this.scan(), retried);
    if (this.clock.stopped) return;
    this.state = 'running';
    this.loops.push(
      everyTick(this.clock, this.settings.leaseScanIntervalMs, () => this.scan(), this.reportError),
      everyTick(
        this.clock,
        Math.min(this.settings.shardSyncIntervalMs, this.settings.leaseScanIntervalMs),
        () => this.maybeSync(),
        this.reportError,
      ),
    );
  }

  stop(): Promise<void> {
    this.stopped ??= this.handOff();
    return this.stopped;
  }

  halt(): Promise<void> {
    this.halted = true;
    for (const held of this.coordinator.held.values()) held.drop('halted');
    this.renewals.stop();
    this.stopped ??= this.wind(async () => {
      // Taken by a start that raced the halt.
      for (const held of this.coordinator.held.values()) held.drop('halted');
    });
    return this.stopped;
  }

  /** Consumers release their own leases as they exit, and a lease taken once the stop began is released at once; this releases any left. */
  private handOff(): Promise<void> {
    return this.wind(async () => {
      await Promise.all([...this.coordinator.held.values()].map((held) => this.release(held)));
    });
  }

  /**
   * Stops reading, scanning and syncing; unless halted, marks the leases as handed over; lets each
   * consumer finish its batch in flight (renewing the leases meanwhile); then ends the renewals
   * and runs `last`.
   */
  private async wind(last: () => Promise<void>): Promise<void> {
    this.state = 'stopping';
    this.clock.stop();
    // Marked while the pages in flight finish, so that no worker steals a lease about to be released;
    // a failed mark is retried until then at most.
    const consumersExited = new AbortController();
    const marked = this.halted
      ? undefined
      : this.coordinator
          .handOverAll(consumersExited.signal)
          .catch((error: unknown) => this.reportError('marking the leases as handed over failed', error));
    // A start under way may still take leases: taken after the stop began, they get no consumer, so no page
    // of theirs is in flight for a steal to publish twice; they are not marked, but released at once
    // (`startConsumer`). Its failure is its caller's.
    await this.starting?.catch(() => undefined);
    await Promise.all(this.consumers.values());
    consumersExited.abort();
    this.renewals.stop();
    await Promise.all(this.loops);
    await marked;
    await Promise.all(this.unworked);
    await last();
    this.state = 'stopped';
  }

  private async release(held: HeldLease): Promise<void> {
    // Forgotten first, so no renewal is queued behind the release.
    this.coordinator.forget(held);
    try {
      if (await held.release()) this.options.observer?.leaseReleased?.(held.leaseKey);
    } catch (error) {
      this.options.observer?.error?.(`shard ${held.leaseKey}: releasing the lease failed; it expires after the failover time`, error);
    }
  }

  private async scan(): Promise<void> {
    if (this.halted) return;
    // Read is what health asks of a scan: a take that failed after it (throttled) is retried next scan.
    await this.coordinator.scan(() => {
      this.lastScanAt = monotonicNow();
    });
    this.options.observer?.leaseScan?.({ held: this.coordinator.held.size, total: this.coordinator.leases.length });
  }

  private async maybeSync(): Promise<void> {
    const due = this.syncRequested || monotonicNow() - this.lastSyncAt >= this.settings.shardSyncIntervalMs;
    if (!due || this.halted) return;
    this.syncRequested = false;
    this.lastSyncAt = monotonicNow();
    await syncShards(this.options.source, this.options.leases, { timeoutMs: this.settings.failoverMs });
  }

  private startConsumer(held: HeldLease): void {
    // Taken by a scan that raced `halt()`: left to expire, unreported, as a crashed worker's would be.
    if (this.halted) return;
    // Reported for every lease taken, so that each release or loss reported follows its take.
    this.options.observer?.leaseAcquired?.(held.leaseKey);
    if (this.clock.stopped) {
      // Taken by a scan that raced `stop()`: no consumer, no mark. Released at once, not held idle while the
      // other consumers finish (no other worker would take it meanwhile: it is renewed, and none steals
      // while this worker's other leases are marked).
      this.unworked.push(this.release(held));
      return;
    }
    const consumer = new ShardConsumer(
      held,
      consumerContext(held, {
        options: this.options,
        settings: this.settings,
        clock: this.clock,
        leases: () => this.coordinator.leases,
        processed: (shardId, records, result) => this.processed(shardId, records, result),
      }),
    );
    const key = held.leaseKey;
    // A lease lost and taken back while its previous consumer still publishes: never two at once.
    const previous = this.consumers.get(key) ?? Promise.resolve();
    const run: Promise<void> = previous
      .then(() => consumer.run())
      .then(async (exit) => {
        this.options.observer?.consumerExited?.(key, exit);
        if (exit === 'shard-end') {
          this.coordinator.forget(held);
          this.recordsProcessed.forget(key);
          this.syncRequested = true;
        } else if (exit === 'stopped' && !this.halted) {
          await this.release(held);
        } else {
          // Given up by the consumer itself (unwritten for too long, or a checkpoint failed while stopping):
          // reported unless the coordinator reported it already (a scan, a renewal or the hand-over mark found it).
          if (exit === 'lease-lost') this.coordinator.lose(held, held.lostBecause ?? 'lost');
          else this.coordinator.forget(held);
        }
      })
      .catch((error: unknown) => {
        this.options.observer?.error?.(`shard ${key}: consumer failed`, error);
        held.drop('consumer failed');
        this.coordinator.forget(held);
      })
      .finally(() => {
        if (this.consumers.get(key) === run) this.consumers.delete(key);
      });
    this.consumers.set(key, run);
  }

  private processed(shardId: string, records: readonly _Record[], result: RelayResult): void {
    this.recordsProcessed.add(shardId, records);
    this.eventsPublished += result.published;
    reportBatch(this.options.observer, shardId, records, result, this.options.declaredEventTypes);
  }
}
