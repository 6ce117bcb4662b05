import type { DynamoDBRecord } from 'aws-lambda';
import { addEventTypeLags, type LagByEventType } from '../lag-by-event-type.js';
import { lowestFailedSequenceNumber, type RecordFailureReason, type RelayResult } from './outcome.js';

/**
 * What the relay handler did with one batch: the counts its metrics and log line carry, for a
 * caller (`onOutcome`).
 *
 * @example
 * ```ts
 * createRelayHandler({
 *   ...relayEnvironment(),
 *   onOutcome: ({ failed, failedByReason }) => {
 *     if (failed > 0) alert(failedByReason);
 *   },
 * });
 * ```
 */
export interface RelayBatchSummary {
  /** Records in the event. */
  readonly records: number;
  /** Events accepted by SNS. */
  readonly published: number;
  /** Publish attempts repeated in process after a transient failure. */
  readonly retried: number;
  /** Events (or, for a malformed slot, records) written to the relay DLQ. */
  readonly deadLettered: number;
  /** Records left alone: not outbox slots, removals, or aggregate types of the other path. */
  readonly ignored: number;
  /** Records reported failed; the event source mapping retries them. */
  readonly failed: number;
  /** Failed records per reason; every reason is present, 0 when none failed for it. */
  readonly failedByReason: Readonly<Record<RecordFailureReason, number>>;
  /**
   * The lowest failed record's sequence number, returned in `batchItemFailures`: the mapping retries
   * from it. `''` when a failed record has no sequence number, which fails the whole batch. Absent
   * when none failed.
   */
  readonly retryFrom?: string;
  /** Now − the oldest relayed record's `ApproximateCreationDateTime`, in ms (the `lag` metric). Absent when every record was ignored. */
  readonly lagMs?: number;
  /**
   * Per aggregate type with events published in the batch: now − its oldest such record's
   * `ApproximateCreationDateTime`, in ms (the `lagByAggregateType` metric). Only published
   * records count, so every key has a route: the set is bounded by the config's routes.
   */
  readonly lagByAggregateType: Readonly<Record<string, number>>;
  /**
   * Per aggregate type with events published in the batch, per event type of those records: the
   * oldest such record's lag, in ms (the `lagByEventType` metric). Event types the config does not
   * declare count as one, `UNDECLARED_EVENT_TYPE`, so the keys are bounded by the routes and the
   * catalog. Absent when the config declares no `eventTypes`.
   */
  readonly lagByEventType?: LagByEventType;
}

/** The slot's aggregate type as the stream record carries it, read without decoding the slot. */
const aggregateTypeOf = (record: DynamoDBRecord | undefined): string | undefined => {
  const value = record?.dynamodb?.NewImage?.aggregateType?.S;
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * The summary of a batch the relay handled: `records` as the handler got them, `result` as
 * `Relay.relay` returned it, `at` the time the lag is measured to (epoch ms), `declared` the
 * config's event types (`declaredEventTypes(config)`): without them, no lag per event type.
 *
 * @example
 * ```ts
 * const summary = summarizeBatch(event.Records, await relay.relay(event.Records), Date.now(), declaredEventTypes(config));
 * ```
 */
export function summarizeBatch(
  records: readonly DynamoDBRecord[],
  result: RelayResult,
  at: number,
  declared?: ReadonlySet<string>,
): RelayBatchSummary {
  const failedByReason: Record<RecordFailureReason, number> = {
    PUBLISH_FAILED: 0,
    BLOCKED_BY_EARLIER_FAILURE: 0,
    DEAD_LETTER_FAILED: 0,
    DEADLINE_REACHED: 0,
  };
  let lagMs = 0;
  const lagByAggregateType: Record<string, number> = {};
  const lagByEventType: Record<string, Record<string, number>> = {};
  result.outcomes.forEach((outcome, i) => {
    if (outcome.status === 'ignored') return;
    if (outcome.status === 'failed') failedByReason[outcome.reason]++;
    const created = records[i]?.dynamodb?.ApproximateCreationDateTime;
    if (created === undefined) return;
    const lag = Math.max(0, at - created * 1000);
    lagMs = Math.max(lagMs, lag);
    // An unrouted aggregate type's events go to the DLQ, never published: it never becomes a dimension value.
    const aggregateType = outcome.status === 'delivered' && outcome.published > 0 ? aggregateTypeOf(records[i]) : undefined;
    if (aggregateType === undefined) return;
    lagByAggregateType[aggregateType] = Math.max(lagByAggregateType[aggregateType] ?? 0, lag);
    // Every event of the record counts, including one of its events the relay DLQ took: the record's commit time is theirs.
    if (declared !== undefined) addEventTypeLags(lagByEventType, aggregateType, records[i]?.dynamodb?.NewImage, lag, declared);
  });
  const retryFrom = lowestFailedSequenceNumber(result);
  return {
    records: records.length,
    published: result.published,
    retried: result.retried,
    deadLettered: result.deadLettered,
    ignored: result.ignored,
    failed: result.failed,
    failedByReason,
    ...(retryFrom === undefined ? {} : { retryFrom }),
    ...(records.length > result.ignored ? { lagMs: Math.max(0, lagMs) } : {}),
    lagByAggregateType,
    ...(declared === undefined ? {} : { lagByEventType }),
  };
}
