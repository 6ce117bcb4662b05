import type { RecordCoordinates } from './stream-record.js';

/** Why a record is reported failed; the caller retries it (Lambda: `batchItemFailures`). */
export type RecordFailureReason =
  /** A publish still failed transiently after the in-process retries, or failed in a way only a redeploy fixes. */
  | 'PUBLISH_FAILED'
  /** An earlier record of the same aggregate failed, so this one was held back to keep order. */
  | 'BLOCKED_BY_EARLIER_FAILURE'
  /** A permanent failure could not be written to the relay DLQ. */
  | 'DEAD_LETTER_FAILED'
  /** The invocation's time ran out before the record's events were all published; the caller retries it. */
  | 'DEADLINE_REACHED';

/** What happened to one stream record, in the order the records were given. */
export type RecordOutcome =
  | { readonly status: 'ignored'; readonly record: RecordCoordinates; readonly reason: string }
  | {
      readonly status: 'delivered';
      readonly record: RecordCoordinates;
      /** Events accepted by SNS. */
      readonly published: number;
      /** Events that can never be published and went to the relay DLQ. */
      readonly deadLettered: number;
    }
  | { readonly status: 'failed'; readonly record: RecordCoordinates; readonly reason: RecordFailureReason; readonly detail: string };

/** The outcome of relaying one batch of stream records. */
export interface RelayResult {
  readonly outcomes: readonly RecordOutcome[];
  /** Events accepted by SNS. */
  readonly published: number;
  /** Publish attempts repeated in process after a transient failure. */
  readonly retried: number;
  /** Events or records written to the relay DLQ. */
  readonly deadLettered: number;
  readonly ignored: number;
  /** Records reported failed. */
  readonly failed: number;
}

/**
 * Returned by {@link lowestFailedSequenceNumber} when a failed record has no sequence number: an
 * empty item identifier makes Lambda treat the whole batch as failed (ReportBatchItemFailures),
 * and the stream processor retries its whole page.
 */
export const WHOLE_BATCH_FAILED = '';

/**
 * The smallest sequence number among failed records: the event source mapping's checkpoint
 * goes to just before it and the batch is retried from there. `undefined` when none failed;
 * {@link WHOLE_BATCH_FAILED} (`''`) when a failed record has no `SequenceNumber`: where it sits is
 * not known, so no checkpoint may pass any record of the batch.
 *
 * @example
 * ```ts
 * const retryFrom = lowestFailedSequenceNumber(result);
 * return { batchItemFailures: retryFrom === undefined ? [] : [{ itemIdentifier: retryFrom }] };
 * ```
 */
export function lowestFailedSequenceNumber(result: Pick<RelayResult, 'outcomes'>): string | undefined {
  let lowest: string | undefined;
  for (const outcome of result.outcomes) {
    if (outcome.status !== 'failed') continue;
    const sequence = outcome.record.sequenceNumber;
    if (sequence === undefined || sequence === '') return WHOLE_BATCH_FAILED;
    if (lowest === undefined || BigInt(sequence) < BigInt(lowest)) lowest = sequence;
  }
  return lowest;
}
