/** The relay handler's options, the logging and metrics it writes to, and what it returns: types only, below its behaviour. */

import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { OutboxConfig } from '../config.js';
import type { HandlerLogger } from '../logger.js';
import type { RelayBatchSummary } from './batch-summary.js';
import type { DeadLetterClient } from './dead-letter-sender.js';
import type { RelayMetricName } from './metrics.js';
import type { Relay } from './relay.js';
import type { RetryDelays } from './retry-delays.js';
import type { AggregateTypeSelection, PublishBatchClient } from './types.js';

/**
 * The logging the relay handler does: one line per batch, one per failed or dead-lettered record.
 * Powertools `Logger` fits.
 *
 * @example
 * ```ts
 * const logger: RelayLogger = { info: console.info, warn: console.warn, error: console.error };
 * ```
 */
export type RelayLogger = HandlerLogger;

/**
 * The metrics sink the relay handler writes one value of each metric to per batch
 * (`RELAY_METRICS`: counts, and the lag in ms). Powertools `Metrics` fits.
 *
 * @example
 * ```ts
 * const metrics: RelayMetrics = { addMetric: (name, unit, value) => statsd.gauge(`relay.${name}`, value) };
 * ```
 */
export interface RelayMetrics {
  addMetric(name: RelayMetricName, unit: 'Count' | 'Milliseconds', value: number): void;
  /**
   * Adds a dimension to the metrics stored until the next `publishStoredMetrics`, which clears it,
   * as Powertools does. Without it (or without `publishStoredMetrics`), the relay emits no
   * `lagByAggregateType` or `lagByEventType`: their values would mix with the batch's metrics of the default dimensions.
   */
  addDimension?(name: string, value: string): void;
  /** Called once per batch, after the batch's metrics were added (Powertools writes its EMF line then), and once per aggregate type's and per (aggregate type, event type)'s lag. */
  publishStoredMetrics?(): void;
}

/** Options of `createRelayHandler` in either form. */
interface RelayHandlerCommonOptions {
  /** @default a Powertools `Logger`, service `outbox-relay` (`RELAY_METRICS.service`) */
  readonly logger?: RelayLogger;
  /**
   * @default `relayMetrics()`: Powertools `Metrics`, namespace `Outbox`, service `outbox-relay`, and
   * the `functionName` dimension from `AWS_LAMBDA_FUNCTION_NAME` when it is set (Lambda sets it)
   */
  readonly metrics?: RelayMetrics;
  /**
   * Receives each batch's {@link RelayBatchSummary} once its metrics and log line are written,
   * and is awaited before the handler answers. An error it throws fails the invocation, as
   * any handler error does: the event source mapping retries the whole batch, so its events
   * are published again (consumers deduplicate them by id).
   * @default none
   */
  readonly onOutcome?: (summary: RelayBatchSummary) => void | Promise<void>;
  /** Clock for the lag metric, in epoch ms. @default Date.now */
  readonly now?: () => number;
}

/** The handler around a {@link Relay} built by the caller. */
export interface RelayHandlerWithRelay extends RelayHandlerCommonOptions {
  readonly relay: Relay;
  readonly config?: never;
  readonly topicArns?: never;
  readonly deadLetterQueueUrl?: never;
  readonly sns?: never;
  readonly sqs?: never;
  readonly backoff?: never;
  readonly ignoreAggregateTypes?: never;
  readonly onlyAggregateTypes?: never;
}

/** The handler and its {@link Relay}, built from the relay's parts (the clients may be wrapped: tracing, a proxy, a test double). */
export type RelayHandlerFromParts = RelayHandlerCommonOptions &
  AggregateTypeSelection & {
    readonly relay?: never;
    readonly config: OutboxConfig;
    /** Topic name (as in the config) → topic ARN; every configured topic needs one. */
    readonly topicArns: Readonly<Record<string, string>>;
    /** URL of the relay dead-letter queue (SQS). */
    readonly deadLetterQueueUrl: string;
    /** @default `snsClient()`: the SDK's SNS client with the relay's timeouts, from the environment's region and credentials */
    readonly sns?: PublishBatchClient;
    /** Sends to the relay DLQ. @default `sqsClient()`, like `sns` */
    readonly sqs?: DeadLetterClient;
    /** Backoff between in-process retries. @default 50 ms base, 2 s cap */
    readonly backoff?: RetryDelays;
  };

/**
 * Options of `createRelayHandler`: a `relay`, or the parts to build one from, never both.
 *
 * @example
 * ```ts
 * const options: RelayHandlerOptions = { ...relayEnvironment(), sns: tracedSns, onOutcome: (summary) => record(summary) };
 * ```
 */
export type RelayHandlerOptions = RelayHandlerWithRelay | RelayHandlerFromParts;

/** @deprecated the former name of {@link RelayHandlerOptions} */
export type RelayHandlerDependencies = RelayHandlerOptions;

/** Lambda's context as the relay reads it: how long the invocation has left; the rest (request id, function) for the logs when Lambda passes it. */
export type RelayInvocationContext = Pick<Context, 'getRemainingTimeInMillis'> & Partial<Context>;

/**
 * The Lambda handler `createRelayHandler` returns: publishes a DynamoDB stream batch and answers
 * with its lowest failed record in `batchItemFailures`, which the event source mapping (with
 * `ReportBatchItemFailures` on) retries from.
 */
export type RelayHandler = (event: DynamoDBStreamEvent, context?: RelayInvocationContext) => Promise<DynamoDBBatchResponse>;
