import { Metrics } from '@aws-lambda-powertools/metrics';
import { LAMBDA_FUNCTION_NAME_ENV } from '../relay/metrics.js';

/**
 * Where the archiver's EMF metrics land: the relay's namespace, its own `service`, the function's
 * name as a dimension (as the relay's), and the metric names, one value of each per batch.
 * Exported by `dynamodb-outbox/cdk` for alarms and dashboards made outside `OutboxArchive`
 * (whose `metric(name)` builds one of these for its function).
 *
 * @example
 * ```ts
 * import { ARCHIVER_METRICS } from 'dynamodb-outbox/cdk';
 *
 * const failedWrites = new Metric({
 *   namespace: ARCHIVER_METRICS.namespace,
 *   metricName: ARCHIVER_METRICS.failedWrites,
 *   dimensionsMap: { service: ARCHIVER_METRICS.service, [ARCHIVER_METRICS.functionDimension]: archiverFunctionName },
 * });
 * ```
 */
export const ARCHIVER_METRICS = {
  namespace: 'Outbox',
  service: 'outbox-archiver',
  /** Dimension naming the deployment: the archiver function's name. */
  functionDimension: 'functionName',
  /** Envelopes written to archive objects (a batch message counts each of its events). */
  archivedEvents: 'archivedEvents',
  /** Archive objects written, malformed-record objects included. */
  objectsWritten: 'objectsWritten',
  /** Objects whose `PutObject` failed: their messages are reported failed and come back. */
  failedWrites: 'failedWrites',
  /** Messages reported failed (in `batchItemFailures`). */
  failedRecords: 'failedRecords',
  /** Messages that hold no outbox envelope, kept under `malformed/v1/`. */
  malformedRecords: 'malformedRecords',
} as const;

/** The name of one of the archiver's metrics: what `OutboxArchive`'s `metric(name)` takes. */
export type ArchiverMetricName = (typeof ARCHIVER_METRICS)[
  | 'archivedEvents'
  | 'objectsWritten'
  | 'failedWrites'
  | 'failedRecords'
  | 'malformedRecords'];

/**
 * The archiver's Powertools metrics: namespace and `service` from {@link ARCHIVER_METRICS}, and
 * the function's name (`AWS_LAMBDA_FUNCTION_NAME` by default) as a dimension of every metric.
 *
 * @example
 * ```ts
 * const metrics = archiverMetrics('orders-archiver');
 * ```
 */
export function archiverMetrics(functionName: string | undefined = process.env[LAMBDA_FUNCTION_NAME_ENV]): Metrics {
  return new Metrics({
    namespace: ARCHIVER_METRICS.namespace,
    serviceName: ARCHIVER_METRICS.service,
    ...(functionName === undefined || functionName === ''
      ? {}
      : { defaultDimensions: { [ARCHIVER_METRICS.functionDimension]: functionName } }),
  });
}
