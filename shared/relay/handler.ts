import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { CLIENT_TIMEOUTS } from '../aws/client-timeouts.js';
import { snsClient, sqsClient } from '../aws/messaging-clients.js';
import { ConfigError } from '../errors.js';
import { declaredEventTypes } from '../lag-by-event-type.js';
import { remainingTimeFault } from '../lambda-context.js';
import { summarizeBatch } from './batch-summary.js';
import { checkHandlerOptions } from './handler-options.js';
import type { RelayHandler, RelayHandlerOptions, RelayLogger, RelayMetrics } from './handler-types.js';
import { RELAY_METRICS, relayMetrics } from './metrics.js';
import { Relay } from './relay.js';
import { MAX_DEADLINE_AHEAD_MS } from './relay-parts.js';

export type {
  RelayHandler,
  RelayHandlerDependencies,
  RelayHandlerFromParts,
  RelayHandlerOptions,
  RelayHandlerWithRelay,
  RelayInvocationContext,
  RelayLogger,
  RelayMetrics,
} from './handler-types.js';

/**
 * The share of an invocation's remaining time kept back from publishing: at least
 * {@link MIN_RESERVE_MS}, at most {@link MAX_RESERVE_MS}, and never more than half, so even a
 * function with a timeout of a second or two publishes. The requests in flight at the deadline
 * finish in it (or are aborted {@link ANSWER_MARGIN_MS} before Lambda's timeout), and the handler
 * reports what is left, so a slow batch ends with its progress checkpointed instead of a timeout
 * that retries all of it.
 */
export const DEADLINE_RESERVE_SHARE = 0.2;
export const MIN_RESERVE_MS = 2_000;
/** Time kept, after the requests in flight are aborted, to build and return the handler's answer. */
export const ANSWER_MARGIN_MS = 250;

const attemptMs = ({ connectionTimeout, requestTimeout }: { connectionTimeout: number; requestTimeout: number }): number =>
  connectionTimeout + requestTimeout;

/**
 * The most kept back, whatever the function's timeout: what the reserve protects, the requests in
 * flight at the deadline, does not take longer in a longer function. The longest attempt of a
 * request of the relay's clients ({@link CLIENT_TIMEOUTS}) is a dead letter's, 3 s to connect and
 * 25 s for the answer (a `PublishBatch` attempt takes at most 8 s, so all three of the SDK's take
 * about 24 s); with {@link MIN_RESERVE_MS} to answer, 30 s. A 900 s function publishes for 870 s, not
 * 720 s. A request still unanswered later (the SDK retrying a dead letter whose first attempt hung)
 * is aborted, and its records fail and are retried: nothing is lost.
 */
export const MAX_RESERVE_MS = Math.max(attemptMs(CLIENT_TIMEOUTS.sns), attemptMs(CLIENT_TIMEOUTS.sqs)) + MIN_RESERVE_MS;

/** When to stop sending, for an invocation with `remainingMs` left at `now`. */
export const relayDeadline = (now: number, remainingMs: number): number =>
  now + remainingMs - Math.min(Math.max(MIN_RESERVE_MS, remainingMs * DEADLINE_RESERVE_SHARE), MAX_RESERVE_MS, remainingMs / 2);

/** The caller's relay, or one built from the parts, with the SDK clients the deployed relay uses where none is given. */
function relayOf(options: RelayHandlerOptions): Relay {
  if (options.relay === undefined) {
    const { logger: _logger, metrics: _metrics, onOutcome: _onOutcome, now: _now, relay: _relay, sns, sqs, ...parts } = options;
    return new Relay({ ...parts, sns: sns ?? snsClient(), sqs: sqs ?? sqsClient() });
  }
  // The types keep the two forms apart; a caller without them would see its parts ignored.
  const { logger: _logger, metrics: _metrics, onOutcome: _onOutcome, now: _now, relay, ...parts } = options;
  const given = Object.entries(parts)
    .filter(([, value]) => value !== undefined)
    .map(([name]) => name);
  if (given.length > 0) {
    throw new ConfigError(
      'relay',
      `got a relay and also ${given.join(', ')}; allowed: a relay, or the parts to build one (config, topicArns, deadLetterQueueUrl, sns, sqs, backoff, ignoreAggregateTypes or onlyAggregateTypes), not both`,
    );
  }
  return relay;
}

/**
 * The Lambda relay: DynamoDB stream batch in, `batchItemFailures` out; the deployed handler and
 * local runs share it. Give it a {@link Relay}, or the relay's parts (`config`, `topicArns`,
 * `deadLetterQueueUrl`, and optionally the `sns` and `sqs` clients, wrapped as you like);
 * logger and metrics default to Powertools'. It returns the lowest failed record's
 * `SequenceNumber` in `batchItemFailures` (ReportBatchItemFailures): the event source mapping
 * retries from there. Given Lambda's context, it stops sending at {@link relayDeadline} and
 * reports what is left as failed. Each batch's counts go to the metrics, to one log line and,
 * when given, to `onOutcome`.
 *
 * @throws ConfigError when a configured topic has no ARN, the DLQ URL is not a standard queue's URL, a `relay` comes with parts of another,
 * or a logger, metrics sink, `onOutcome` or `now` lacks the functions the handler calls (it would fail each invocation after publishing)
 *
 * @example
 * ```ts
 * // The deployed relay: everything from the environment, SDK clients and Powertools by default.
 * export const handler = createRelayHandler(relayEnvironment());
 *
 * // A traced SNS client, and the counts of each batch.
 * export const traced = createRelayHandler({
 *   ...relayEnvironment(),
 *   sns: tracer.captureAWSv3Client(new SNSClient({})),
 *   onOutcome: (summary) => console.log(summary.published, summary.failedByReason),
 * });
 *
 * // A relay assembled by hand.
 * export const assembled = createRelayHandler({ relay, logger, metrics });
 * ```
 */
export function createRelayHandler(options: RelayHandlerOptions): RelayHandler {
  checkHandlerOptions(options);
  const relay = relayOf(options);
  const logger: RelayLogger = options.logger ?? new Logger({ serviceName: RELAY_METRICS.service });
  const metrics: RelayMetrics = options.metrics ?? relayMetrics();
  const { onOutcome, now = Date.now } = options;
  // Read once: the declared event types bound the lagByEventType dimension; without a catalog there is none.
  const declared = declaredEventTypes(relay.config);
  return async (event, context) => {
    const records = event.Records ?? [];
    // Every log line of the invocation names its request, as Powertools' injectLambdaContext does.
    if (typeof context?.awsRequestId === 'string') logger.addContext?.(context as Context);
    // Lambda (and the local event source mapping) always passes its context; a caller without one (a test) sets no deadline.
    const remainingMs = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
    const fault =
      remainingMs === undefined
        ? undefined
        : remainingTimeFault(remainingMs, { maxMs: MAX_DEADLINE_AHEAD_MS, bound: "a Lambda function's longest timeout" });
    if (fault !== undefined) throw new ConfigError('context.getRemainingTimeInMillis', fault);
    const result = await relay.relay(
      records,
      remainingMs === undefined
        ? {}
        : { deadline: relayDeadline(Date.now(), remainingMs), signal: AbortSignal.timeout(Math.max(0, remainingMs - ANSWER_MARGIN_MS)) },
    );
    for (const outcome of result.outcomes) {
      if (outcome.status === 'failed') logger.warn('record failed; it will be retried', { ...outcome });
      else if (outcome.status === 'delivered' && outcome.deadLettered > 0) logger.error('events sent to the relay DLQ', { ...outcome });
    }
    const summary = summarizeBatch(records, result, now(), declared);
    metrics.addMetric(RELAY_METRICS.published, 'Count', summary.published);
    metrics.addMetric(RELAY_METRICS.retried, 'Count', summary.retried);
    metrics.addMetric(RELAY_METRICS.deadLettered, 'Count', summary.deadLettered);
    metrics.addMetric(RELAY_METRICS.failedRecords, 'Count', summary.failed);
    if (summary.lagMs !== undefined) metrics.addMetric(RELAY_METRICS.lag, 'Milliseconds', summary.lagMs);
    metrics.publishStoredMetrics?.();
    if (metrics.addDimension !== undefined && metrics.publishStoredMetrics !== undefined) {
      // One EMF line per aggregate type: the dimension set differs from the batch's line above.
      for (const [aggregateType, lagMs] of Object.entries(summary.lagByAggregateType)) {
        metrics.addDimension(RELAY_METRICS.aggregateTypeDimension, aggregateType);
        metrics.addMetric(RELAY_METRICS.lagByAggregateType, 'Milliseconds', lagMs);
        metrics.publishStoredMetrics();
      }
      // One line per (aggregate type, event type): at most (declared types + 1) × aggregate types in the batch.
      for (const [aggregateType, byEventType] of Object.entries(summary.lagByEventType ?? {})) {
        for (const [eventType, lagMs] of Object.entries(byEventType)) {
          metrics.addDimension(RELAY_METRICS.aggregateTypeDimension, aggregateType);
          metrics.addDimension(RELAY_METRICS.eventTypeDimension, eventType);
          metrics.addMetric(RELAY_METRICS.lagByEventType, 'Milliseconds', lagMs);
          metrics.publishStoredMetrics();
        }
      }
    }
    const { records: count, published, retried, deadLettered, ignored, failed, retryFrom } = summary;
    logger.info('batch relayed', {
      records: count,
      published,
      retried,
      deadLettered,
      ignored,
      failed,
      ...(retryFrom === undefined ? {} : { retryFrom }),
    });
    await onOutcome?.(summary);
    return { batchItemFailures: retryFrom === undefined ? [] : [{ itemIdentifier: retryFrom }] };
  };
}
