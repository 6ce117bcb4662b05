import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { RelayResult } from '../relay/index.js';
import type { ConsumerContext } from './consumer-context.js';
import { LeaseLostError } from './errors.js';
import { writeGivenUp } from './failure-policy.js';
import type { HeldLease } from './held-lease.js';
import { publishCutoff } from './publish-cutoff.js';
import { retryPauseMs } from './retries.js';
import { RetryBudget } from './retry-budget.js';

/**
 * What a failed attempt at a shard's record came to: retried from it (`retry`, with the words its
 * failure report ends in), or given up on and written to the on-failure destination (`written`:
 * the shard goes on past the page), or neither yet, as the consumer must stop first (`stopped`).
 */
export type FailedRecordOutcome =
  | { readonly outcome: 'retry'; readonly bound: string }
  | { readonly outcome: 'written' }
  | { readonly outcome: 'stopped' };

/**
 * A shard's failed records against the bounds of its `FailurePolicy`, as the Lambda path bounds
 * them: counts the attempts at the record retried from (on from those the lease's last holder
 * kept), keeps each count in the lease so a worker taking it over counts on, and once a record's
 * bounds are spent writes the page's undelivered records to the on-failure destination, cut off
 * as a publish is. Without a policy a failing record is retried until it is delivered.
 *
 * @example
 * ```ts
 * const retries = new ShardRetries(held, context);
 * const { outcome } = await retries.failed(records, start, result.outcomes, () => consumer.active());
 * ```
 */
export class ShardRetries {
  private readonly budget: RetryBudget;

  constructor(
    private readonly held: HeldLease,
    private readonly context: ConsumerContext,
  ) {
    this.budget = new RetryBudget(
      context.failures?.bounds ?? { maxRetryAttempts: -1, maxRecordAgeSeconds: -1 },
      Date.now,
      held.lease.failedAttempts,
    );
  }

  /** The record retried from was delivered, or the page given up on: the next failure counts from one. */
  reset(): void {
    this.budget.reset();
  }

  /**
   * Counts a failed attempt at `records[start]`, the first record of the page not delivered, and
   * gives the page's undelivered records (those whose `outcomes` failed) up once its bounds are
   * spent, retrying a failed write while `active()` holds.
   */
  async failed(
    records: readonly _Record[],
    start: number,
    outcomes: RelayResult['outcomes'],
    active: () => boolean,
  ): Promise<FailedRecordOutcome> {
    const from = records[start]!;
    const { attempts, spent } = this.budget.failed(from);
    const policy = this.context.failures;
    if (spent === undefined && policy !== undefined && policy.bounds.maxRetryAttempts !== -1) await this.keepAttempts(from, attempts);
    const write = policy?.write;
    if (spent !== undefined && policy !== undefined && write !== undefined) {
      // Every record of the page not delivered: the failed one and those held back behind it, in stream order.
      const undelivered = records.filter((_, i) => outcomes[i]?.status === 'failed');
      const given = { shardId: this.held.leaseKey, records: undelivered, condition: spent, attempts };
      // Cut off as a publish is: a stop during an S3 outage must not wait out the SDK's retries.
      const cutoff = publishCutoff(this.held, this.context.settings, this.context);
      let written: boolean;
      try {
        written = await writeGivenUp(write, policy, given, {
          active,
          pause: (failures) => this.context.sleep(retryPauseMs(failures, this.context.settings.retryMaxDelayMs)),
          signal: cutoff.signal,
        });
      } finally {
        cutoff.dispose();
      }
      if (!written) return { outcome: 'stopped' };
      this.budget.reset();
      return { outcome: 'written' };
    }
    const bound = spent === undefined ? '' : ` (${spent} after ${attempts} attempts, but the processor has no on-failure destination)`;
    return { outcome: 'retry', bound };
  }

  /**
   * Keeps the count in the lease (the checkpoint clears it), so that a worker taking the lease
   * over counts on from it. A failed write other than a lost lease is reported and the retry goes
   * on: only a takeover before the next one succeeds would miss this attempt.
   */
  private async keepAttempts(record: _Record, attempts: number): Promise<void> {
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    if (sequenceNumber === undefined) return;
    try {
      await this.held.recordFailure({ sequenceNumber, attempts });
    } catch (error) {
      if (error instanceof LeaseLostError) throw error;
      const why = `the ${attempts} failed attempts at record ${sequenceNumber} could not be kept in the lease; a worker that takes it over counts from those last kept`;
      this.context.checkpointFailed(new Error(why, { cause: error }));
    }
  }
}
