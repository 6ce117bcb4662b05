import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { lowestFailedSequenceNumber, RELAY_METRICS, type Relay } from './index.js';

export interface RelayHandlerDependencies {
  readonly relay: Relay;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Lambda's context as the relay reads it: how long the invocation has left; the rest (request id, function) for the logs when Lambda passes it. */
export type RelayInvocationContext = Pick<Context, 'getRemainingTimeInMillis'> & Partial<Context>;

export type RelayHandler = (event: DynamoDBStreamEvent, context?: RelayInvocationContext) => Promise<DynamoDBBatchResponse>;

/**
 * The share of an invocation's remaining time kept back from publishing: at least
 * {@link MIN_RESERVE_MS}, and never more than half, so even a function with a timeout of a
 * second or two publishes. The requests in flight at the deadline finish in it (or are aborted
 * {@link ANSWER_MARGIN_MS} before Lambda's timeout), and the handler reports what is left, so a
 * slow batch ends with its progress checkpointed instead of a timeout that retries all of it.
 */
export const DEADLINE_RESERVE_SHARE = 0.2;
export const MIN_RESERVE_MS = 2_000;
/** Time kept, after the requests in flight are aborted, to build and return the handler's answer. */
export const ANSWER_MARGIN_MS = 250;

/** When to stop sending, for an invocation with `remainingMs` left at `now`. */
export const relayDeadline = (now: number, remainingMs: number): number =>
  now + remainingMs - Math.min(Math.max(MIN_RESERVE_MS, remainingMs * DEADLINE_RESERVE_SHARE), remainingMs / 2);

/**
 * The Lambda relay as a function of its dependencies, so the deployed handler and local runs
 * share it. Returns the lowest failed record's `SequenceNumber` in `batchItemFailures`
 * (ReportBatchItemFailures): the event source mapping retries from there. Given Lambda's
 * context, it stops sending at {@link relayDeadline} and reports what is left as failed.
 *
 * @example
 * ```ts
 * export const handler = createRelayHandler({ relay, logger, metrics });
 * ```
 */
export function createRelayHandler({ relay, logger, metrics, now = Date.now }: RelayHandlerDependencies): RelayHandler {
  return async (event, context) => {
    const records = event.Records ?? [];
    // Every log line of the invocation names its request, as Powertools' injectLambdaContext does.
    if (typeof context?.awsRequestId === 'string') logger.addContext(context as Context);
    // Lambda (and the local event source mapping) always passes its context; a caller without one (a test) sets no deadline.
    const remainingMs = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
    const result = await relay.relay(
      records,
      remainingMs === undefined
        ? {}
        : { deadline: relayDeadline(Date.now(), remainingMs), signal: AbortSignal.timeout(Math.max(0, remainingMs - ANSWER_MARGIN_MS)) },
    );
    const at = now();
    let lagMs = 0;
    result.outcomes.forEach((outcome, i) => {
      if (outcome.status === 'ignored') return;
      const created = records[i]?.dynamodb?.ApproximateCreationDateTime;
      if (created !== undefined) lagMs = Math.max(lagMs, at - created * 1000);
      if (outcome.status === 'failed') logger.warn('record failed; it will be retried', { ...outcome });
      else if (outcome.deadLettered > 0) logger.error('events sent to the relay DLQ', { ...outcome });
    });
    metrics.addMetric(RELAY_METRICS.published, MetricUnit.Count, result.published);
    metrics.addMetric(RELAY_METRICS.retried, MetricUnit.Count, result.retried);
    metrics.addMetric(RELAY_METRICS.deadLettered, MetricUnit.Count, result.deadLettered);
    metrics.addMetric(RELAY_METRICS.failedRecords, MetricUnit.Count, result.failed);
    if (records.length > result.ignored) metrics.addMetric(RELAY_METRICS.lag, MetricUnit.Milliseconds, Math.max(0, lagMs));
    metrics.publishStoredMetrics();
    const failed = lowestFailedSequenceNumber(result);
    logger.info('batch relayed', {
      records: records.length,
      published: result.published,
      retried: result.retried,
      deadLettered: result.deadLettered,
      ignored: result.ignored,
      failed: result.failed,
      ...(failed === undefined ? {} : { retryFrom: failed }),
    });
    return { batchItemFailures: failed === undefined ? [] : [{ itemIdentifier: failed }] };
  };
}
