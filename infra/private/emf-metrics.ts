/**
 * Where the relay's and the processor's EMF metrics of one deployment are found: their
 * dimensions and the statistic and period each is read with. The constructs' metric methods, the
 * alarms and the dashboard all build them here, so what a method returns and what an alarm or a
 * chart watches cannot drift apart.
 */

import { Duration } from 'aws-cdk-lib';
import { Metric, type MetricOptions, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { PROCESSOR_METRICS } from '../../shared/processor/observability.js';
import { RELAY_METRICS, type RelayMetricName } from '../../shared/relay/metrics.js';

/** The dimensions of every relay metric of the function of that name: Powertools' `service` and the function. */
export const relayDimensions = (functionName: string): Record<string, string> => ({
  service: RELAY_METRICS.service,
  [RELAY_METRICS.functionDimension]: functionName,
});

/** The relay's lags (ms), read as the worst of each minute; the rest are counts, read as their sum. */
const RELAY_LAGS: readonly string[] = [RELAY_METRICS.lag, RELAY_METRICS.lagByAggregateType, RELAY_METRICS.lagByEventType];

/**
 * One of the EMF metrics the relay handler writes, for the relay function of that name, under
 * `extraDimensions` too: the `Maximum` per minute for a lag (ms), the `Sum` per minute for the
 * counts. `lagByAggregateType` is written only with its `aggregateType` dimension, and
 * `lagByEventType` with `aggregateType` and `eventType`: name them in `extraDimensions`.
 *
 * @example
 * ```ts
 * new Alarm(this, 'DeadLettered', { metric: relayMetric(relay.function.functionName, 'deadLettered'), threshold: 1, evaluationPeriods: 1 });
 * new Alarm(this, 'OrderLag', { metric: relayMetric(relay.function.functionName, 'lagByAggregateType', {}, { aggregateType: 'order' }), threshold: 30_000, evaluationPeriods: 3 });
 * ```
 */
export function relayMetric(
  functionName: string,
  metricName: RelayMetricName,
  props: MetricOptions = {},
  extraDimensions: Readonly<Record<string, string>> = {},
): Metric {
  return new Metric({
    namespace: RELAY_METRICS.namespace,
    metricName,
    dimensionsMap: { ...relayDimensions(functionName), ...extraDimensions },
    statistic: RELAY_LAGS.includes(metricName) ? Stats.MAXIMUM : Stats.SUM,
    period: Duration.minutes(1),
    ...props,
  });
}

/** The dimensions of every processor metric of the deployment with that lease table: Powertools' `service` and the lease table. */
export const processorDimensions = (leaseTableName: string): Record<string, string> => ({
  service: PROCESSOR_METRICS.service,
  [PROCESSOR_METRICS.leaseTableDimension]: leaseTableName,
});

/** The processor metrics the constructs watch. */
export type ProcessorMetricName = (typeof PROCESSOR_METRICS)['lag' | 'lagByAggregateType' | 'onFailureRecords' | 'onFailureWriteFailures'];

const PROCESSOR_LAGS: readonly string[] = [PROCESSOR_METRICS.lag, PROCESSOR_METRICS.lagByAggregateType];

/**
 * One of the processor's metrics for the deployment with that lease table, under `extraDimensions`
 * too (`lagByAggregateType` is only written with its aggregate type): a lag is the `Maximum` per
 * minute (ms); a count, which any record makes an alarm, the `Sum` per 5 minutes.
 *
 * @example
 * ```ts
 * processorMetric(leaseTable.tableName, PROCESSOR_METRICS.lagByAggregateType, { label: 'stock' }, { aggregateType: 'stock' });
 * ```
 */
export function processorMetric(
  leaseTableName: string,
  metricName: ProcessorMetricName,
  props: MetricOptions = {},
  extraDimensions: Readonly<Record<string, string>> = {},
): Metric {
  const lag = PROCESSOR_LAGS.includes(metricName);
  return new Metric({
    namespace: PROCESSOR_METRICS.namespace,
    metricName,
    dimensionsMap: { ...processorDimensions(leaseTableName), ...extraDimensions },
    statistic: lag ? Stats.MAXIMUM : Stats.SUM,
    period: Duration.minutes(lag ? 1 : 5),
    ...props,
  });
}
