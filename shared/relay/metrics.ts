import { Metrics } from '@aws-lambda-powertools/metrics';
import { UNDECLARED_EVENT_TYPE } from '../lag-by-event-type.js';

/**
 * Where the relay's EMF metrics land: the namespace, the `service` dimension Powertools adds, the
 * dimension naming the deployment and the metric names. The handler, the `RelayFunction`
 * construct's metric helpers and its dashboard all take them from here.
 */
export const RELAY_METRICS = {
  namespace: 'Outbox',
  service: 'outbox-relay',
  /** Dimension naming the deployment: the relay function's name, so two outboxes in one account never share a metric. */
  functionDimension: 'functionName',
  /** Events published to SNS, per batch. */
  published: 'published',
  /** Publish attempts of an event repeated in process after a transient failure, per batch. */
  retried: 'retried',
  /** Events (or, for a malformed slot, records) written to the relay DLQ, per batch. */
  deadLettered: 'deadLettered',
  /** Records reported failed to the event source mapping (retried from there), per batch. */
  failedRecords: 'failedRecords',
  /** Now − the oldest relayed record's `ApproximateCreationDateTime`, in ms, per batch. */
  lag: 'lag',
  /**
   * Now − `ApproximateCreationDateTime` of the oldest record of an aggregate type with events
   * published in the batch, in ms: one value per aggregate type per batch, in an EMF line of its
   * own under the extra {@link RELAY_METRICS.aggregateTypeDimension} dimension.
   */
  lagByAggregateType: 'lagByAggregateType',
  /** The dimension of `lagByAggregateType`: an aggregate type with a route, which bounds its values. */
  aggregateTypeDimension: 'aggregateType',
  /**
   * Now − `ApproximateCreationDateTime` of the oldest record of an (aggregate type, event type)
   * with events published in the batch, in ms: one value per pair per batch, each in an EMF line of
   * its own under the {@link RELAY_METRICS.aggregateTypeDimension} and
   * {@link RELAY_METRICS.eventTypeDimension} dimensions. Written only when the config declares
   * `eventTypes`.
   */
  lagByEventType: 'lagByEventType',
  /** The event-type dimension of `lagByEventType`: a type the config declares, or {@link RELAY_METRICS.undeclaredEventType}. */
  eventTypeDimension: 'eventType',
  /** The `eventType` value of every type the config does not declare (a config may not declare this name). */
  undeclaredEventType: UNDECLARED_EVENT_TYPE,
} as const;

/** Set by Lambda in every function's environment: the relay's metrics carry it as a dimension. */
export const LAMBDA_FUNCTION_NAME_ENV = 'AWS_LAMBDA_FUNCTION_NAME';

/** The name of one of the relay's metrics. */
export type RelayMetricName = (typeof RELAY_METRICS)[
  | 'published'
  | 'retried'
  | 'deadLettered'
  | 'failedRecords'
  | 'lag'
  | 'lagByAggregateType'
  | 'lagByEventType'];

/**
 * The relay's metrics: namespace and `service` from {@link RELAY_METRICS}, and the function's name
 * as a dimension of every metric, which is where the construct's metric helpers look for them.
 * The name defaults to `AWS_LAMBDA_FUNCTION_NAME`, which Lambda sets; without one (outside
 * Lambda) the metrics carry the `service` dimension only.
 *
 * @example
 * ```ts
 * const metrics = relayMetrics(); // in Lambda: the function's own name
 * const named = relayMetrics('orders-relay');
 * ```
 */
export function relayMetrics(functionName: string | undefined = process.env[LAMBDA_FUNCTION_NAME_ENV]): Metrics {
  return new Metrics({
    namespace: RELAY_METRICS.namespace,
    serviceName: RELAY_METRICS.service,
    ...(functionName === undefined || functionName === ''
      ? {}
      : { defaultDimensions: { [RELAY_METRICS.functionDimension]: functionName } }),
  });
}
