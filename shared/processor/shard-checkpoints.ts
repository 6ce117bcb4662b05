import { sleep } from '../backoff.js';
import { LeaseLostError } from './errors.js';
import type { HeldLease } from './held-lease.js';
import { retryPauseMs } from './retries.js';
import type { ProcessorSettings } from './settings.js';

/** Retries of a failed checkpoint write once the worker is stopping, before the lease is given up. */
export const STOPPING_CHECKPOINT_RETRIES = 3;

/** What the checkpoints need of their consumer. */
export interface CheckpointContext {
  readonly settings: Pick<ProcessorSettings, 'retryMaxDelayMs' | 'handOffTimeoutMs'>;
  /** How long the worker has been stopping, in ms; `undefined` while it runs. */
  stoppingFor(): number | undefined;
  /** Resolves after `ms`, or at once when the worker stops or `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** A checkpoint write failed for another reason than a lost lease. */
  checkpointFailed(error: unknown): void;
}

/**
 * A shard consumer's checkpoint writes. Checkpoints in the background while the next page is
 * read: the write is off the latency path, and pages published meanwhile coalesce into one write
 * of the newest sequence number. A failed background write is kept in `failure` for the
 * consumer's loop, and rethrown by `settle()`.
 *
 * @example
 * ```ts
 * const checkpoints = new ShardCheckpoints(held, context);
 * checkpoints.soon(lastPublished);
 * await checkpoints.settle();
 * ```
 */
export class ShardCheckpoints {
  /** The newest published sequence number not yet handed to the lease table. */
  private unwritten: string | undefined;
  private writing: Promise<void> | undefined;
  private failed: unknown;

  constructor(
    private readonly held: HeldLease,
    private readonly context: CheckpointContext,
  ) {}

  /** Why a background write failed (a lost lease, or a failure while stopping), once one did. */
  get failure(): unknown {
    return this.failed;
  }

  /** Checkpoints `sequenceNumber` in the background, coalescing with any write under way. */
  soon(sequenceNumber: string): void {
    this.unwritten = sequenceNumber;
    this.writing ??= this.writeAll();
  }

  /** Waits until every checkpoint handed over is written; rethrows a failed one. */
  async settle(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
    if (this.failed !== undefined) throw this.failed;
  }

  private async writeAll(): Promise<void> {
    try {
      while (this.unwritten !== undefined) {
        const sequenceNumber = this.unwritten;
        this.unwritten = undefined;
        await this.write(sequenceNumber);
      }
    } catch (error) {
      this.failed = error;
    } finally {
      this.writing = undefined;
    }
  }

  /**
   * Writes a checkpoint, retrying (with back-off) a failure other than a lost lease: a throttled
   * or failed write proves nothing about the lease, which the coordinator keeps renewing and
   * gives up once it could have expired; the next attempt then fails with `LeaseLostError`.
   * The back-off ends early when the lease is dropped meanwhile, or when the worker begins
   * stopping: the write is then tried again at once. Once the worker is stopping, a failed write
   * is retried {@link STOPPING_CHECKPOINT_RETRIES} times, with back-off from the first step
   * again, and never past `handOffTimeoutMs` into the stop; then the lease is dropped (no longer
   * renewed, so it expires for the next worker, which repeats the records published since the
   * last checkpoint) and the consumer ends, so the hand-off never waits long for the table.
   */
  async write(checkpoint: string): Promise<void> {
    let stoppingFailures = 0;
    for (let failures = 1; ; failures++) {
      try {
        await this.held.checkpoint(checkpoint);
        return;
      } catch (error) {
        if (error instanceof LeaseLostError) throw error;
        this.context.checkpointFailed(error);
        const stoppingFor = this.context.stoppingFor();
        if (stoppingFor === undefined) {
          await this.context.sleep(retryPauseMs(failures, this.context.settings.retryMaxDelayMs), this.held.dropped);
          continue;
        }
        const pause = retryPauseMs(++stoppingFailures, this.context.settings.retryMaxDelayMs);
        if (stoppingFailures > STOPPING_CHECKPOINT_RETRIES || stoppingFor + pause >= this.context.settings.handOffTimeoutMs) {
          this.held.drop('a checkpoint kept failing while stopping; the lease is no longer renewed, so it expires for the next worker');
          const { owner, lease } = this.held;
          throw new LeaseLostError(this.held.leaseKey, 'checkpoint', { owner, counter: lease.leaseCounter }, { cause: error });
        }
        // The worker's sleeps end at once while it stops: this one waits out its back-off, unless the lease is dropped.
        await sleep(pause, this.held.dropped);
      }
    }
  }
}
