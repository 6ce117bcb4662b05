import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { RelayTuning } from '../config.js';
import type { OnFailureCondition } from '../on-failure/batch-record.js';
import type { FailedAttempts } from './lease.js';

/** How long a failing record is retried before it goes to the on-failure destination: the config's `relay` settings, -1 for no limit. */
export type RetryBounds = Pick<RelayTuning, 'maxRetryAttempts' | 'maxRecordAgeSeconds'>;

/** What a failed attempt left: the attempts made at the record so far, and why it is given up on, once it is. */
export interface FailedAttempt {
  readonly attempts: number;
  readonly spent?: OnFailureCondition;
}

/**
 * Counts a shard's failed attempts at the record it retries from, against the bounds Lambda's
 * event source mapping applies to the relay: given up after `maxRetryAttempts` retries (so
 * `maxRetryAttempts` + 1 attempts; 0 gives up after the first failure), or once the record is older
 * than `maxRecordAgeSeconds` by its `ApproximateCreationDateTime`. A failure at a later record
 * (the page got further) counts from one again, as Lambda's retries do once a batch made progress.
 * `resumed`, the attempts the lease's previous holder counted, carries the count across a lease
 * that moved: a failure at that record counts on from them.
 *
 * @example
 * ```ts
 * const budget = new RetryBudget(config.relay);
 * const { spent, attempts } = budget.failed(record); // spent: 'RetryAttemptsExhausted' once the retries are used up
 * ```
 */
export class RetryBudget {
  private sequenceNumber: string | undefined;
  private attempts = 0;

  constructor(
    private readonly bounds: RetryBounds,
    private readonly now: () => number = Date.now,
    resumed?: FailedAttempts,
  ) {
    this.sequenceNumber = resumed?.sequenceNumber;
    this.attempts = resumed?.attempts ?? 0;
  }

  /** Counts a failed attempt at `record`, the oldest record of the page not delivered. */
  failed(record: _Record): FailedAttempt {
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    if (sequenceNumber === undefined || sequenceNumber !== this.sequenceNumber) this.attempts = 0;
    this.sequenceNumber = sequenceNumber;
    this.attempts++;
    const { maxRetryAttempts, maxRecordAgeSeconds } = this.bounds;
    const created = record.dynamodb?.ApproximateCreationDateTime;
    const ageMs = created === undefined ? undefined : this.now() - new Date(created).getTime();
    // The age first, as Lambda gives a batch up on age before it invokes the function again.
    if (maxRecordAgeSeconds !== -1 && ageMs !== undefined && ageMs > maxRecordAgeSeconds * 1000) {
      return { attempts: this.attempts, spent: 'RecordAgeExceeded' };
    }
    if (maxRetryAttempts !== -1 && this.attempts > maxRetryAttempts) return { attempts: this.attempts, spent: 'RetryAttemptsExhausted' };
    return { attempts: this.attempts };
  }

  /** The record retried from was delivered or given up on: the next failure counts from one. */
  reset(): void {
    this.sequenceNumber = undefined;
    this.attempts = 0;
  }
}
