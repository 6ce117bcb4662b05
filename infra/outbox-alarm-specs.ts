/**
 * The alarms `OutboxAlarms` raises on the relay and on the low-latency processor, as data: each
 * one's id, metric, threshold, periods and what it tells the person it wakes.
 */

import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, type IMetric, MathExpression, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { OutboxConfig } from '../shared/config.js';
import type { LowLatencyProcessor } from './low-latency-processor.js';
import { relayLagOf } from './outbox-lag-charts.js';
import { alphanumeric, distinctIds } from './private/construct-ids.js';
import { checkMillisToken, checkSeconds } from './private/props-error.js';

/** One alarm to raise: `OutboxAlarms.addAlarm`'s arguments. */
export interface AlarmSpec {
  readonly id: string;
  readonly metric: IMetric;
  readonly threshold: number;
  readonly periods: number;
  readonly description: string;
  readonly options?: { comparisonOperator?: ComparisonOperator; treatMissingData?: TreatMissingData };
}

/** The relay's metrics its alarms watch, which the dashboard charts too. */
export interface RelayAlarmMetrics {
  readonly iteratorAge: IMetric;
  readonly errors: IMetric;
  readonly throttles: IMetric;
}

/** The relay falling behind, failing whole batches, being throttled, and its mapping giving records up. */
export function relayAlarmSpecs(
  fn: IFunction,
  eventSourceMappingId: string,
  iteratorAgeThreshold: Duration,
): { readonly specs: AlarmSpec[]; readonly metrics: RelayAlarmMetrics } {
  const iteratorAge = fn.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: Duration.minutes(1) });
  const errors = fn.metricErrors({ period: Duration.minutes(5), statistic: Stats.SUM });
  const throttles = fn.metricThrottles({ period: Duration.minutes(5), statistic: Stats.SUM });
  // Records that fail to publish come back as a partial batch response, not a function error, so
  // RelayErrors never sees them; what the mapping finally gives up on shows only in its own metrics:
  // delivered to the failed-batch bucket, or dropped when even that delivery failed.
  const mappingMetric = (metricName: string) =>
    new Metric({
      namespace: 'AWS/Lambda',
      metricName,
      dimensionsMap: { EventSourceMappingUUID: eventSourceMappingId },
      statistic: Stats.SUM,
      period: Duration.minutes(5),
    });
  const givenUp = new MathExpression({
    expression: 'FILL(delivered, 0) + FILL(dropped, 0)',
    usingMetrics: {
      delivered: mappingMetric('OnFailureDestinationDeliveredEventCount'),
      dropped: mappingMetric('DroppedEventCount'),
    },
    label: 'Records given up',
    period: Duration.minutes(5),
  });
  const specs: AlarmSpec[] = [
    {
      id: 'RelayIteratorAge',
      metric: iteratorAge,
      threshold: iteratorAgeThreshold.toMilliseconds(),
      periods: 3,
      // The alarm fires at the threshold (GreaterThanOrEqualToThreshold), not only past it.
      // IteratorAge is the age of a batch's last (newest) record: every record of that batch waited as long.
      description: `The relay is falling behind the table stream: the last record of a relay batch (Lambda's IteratorAge) had waited ${iteratorAgeThreshold.toMilliseconds() / 1000} s or more (iteratorAgeThreshold), and so every record before it, 3 minutes in a row.`,
    },
    {
      id: 'RelayErrors',
      metric: errors,
      threshold: 1,
      periods: 1,
      description: 'The relay failed whole batches (function errors); they are retried, then go to the failed-batch bucket.',
    },
    {
      id: 'RelayThrottles',
      metric: throttles,
      threshold: 1,
      periods: 1,
      description: 'Relay invocations were throttled: check account concurrency and reserved concurrency.',
    },
    {
      id: 'RelayFailedBatches',
      metric: givenUp,
      threshold: 1,
      periods: 1,
      description:
        'The relay gave records up after its retries or their maximum age: they are in the failed-batch bucket (or, if writing there failed too, dropped), not published. Fix the cause, then redrive them.',
    },
  ];
  return { specs, metrics: { iteratorAge, errors, throttles } };
}

/**
 * An alarm per entry of `config.lagAlarmSeconds`: events of that aggregate type published that
 * long or longer after their commit, three minutes in a row.
 */
export function relayLagAlarmSpecs(functionName: string, config: OutboxConfig): AlarmSpec[] {
  const alarms = config.lagAlarmSeconds ?? {};
  // Aggregate types that differ only in punctuation (order.v2, order_v2) would share an alarm id.
  const types = Object.keys(alarms);
  const ids = distinctIds(types, (type) => `RelayLag${alphanumeric(type)}`);
  return types.map((type, i) => {
    const seconds = alarms[type] as number;
    return {
      id: ids[i]!,
      metric: relayLagOf(functionName, type),
      threshold: seconds * 1000,
      periods: 3,
      description: `Events of aggregate type ${type} are published ${seconds} s or more after their commit (lagAlarmSeconds): the relay is falling behind or retrying them.`,
    };
  });
}

/**
 * Refuses a processor lag threshold outside 1 s–24 h or in part seconds: `Outbox` checks its
 * `processorLagThreshold` before building anything, `OutboxAlarms.addProcessor` its `lagThreshold`.
 *
 * @example
 * ```ts
 * checkProcessorLagThreshold(this.node.path, 'lagThreshold', options.lagThreshold);
 * ```
 */
export function checkProcessorLagThreshold(path: string, prop: string, value: Duration | undefined): void {
  checkSeconds(path, prop, value, 1, 86_400);
  checkMillisToken(path, prop, value);
}

/** The processor lagging, not running, giving records up, and failing to write them to the failed-batch bucket. */
export function processorAlarmSpecs(processor: LowLatencyProcessor, lagThreshold: Duration): AlarmSpec[] {
  return [
    {
      id: 'ProcessorLag',
      metric: processor.metricLag(),
      threshold: lagThreshold.toMilliseconds(),
      periods: 3,
      description: `The low-latency processor is falling behind the table stream: its records are published ${lagThreshold.toMilliseconds() / 1000} s or more after their commit (the lag threshold), 3 minutes in a row.`,
    },
    {
      id: 'ProcessorNotRunning',
      metric: processor.metricRunningTaskCount(),
      threshold: 1,
      periods: 3,
      description:
        'No low-latency processor task is running: events of the low-latency aggregate types are not being published (the Lambda relay leaves them to the processor).',
      options: { comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD, treatMissingData: TreatMissingData.BREACHING },
    },
    {
      id: 'ProcessorOnFailureRecords',
      metric: processor.metricOnFailureRecords(),
      threshold: 1,
      periods: 1,
      description:
        'The low-latency processor gave records up after their retries or their maximum age: they are in the failed-batch bucket under outbox-processor/, not published. Fix the cause, then redrive them (redrive on-failure).',
    },
    {
      id: 'ProcessorOnFailureWriteFailures',
      metric: processor.metricOnFailureWriteFailures(),
      threshold: 1,
      periods: 1,
      description:
        'The low-latency processor cannot write records it gave up on to the failed-batch bucket: their shard waits until it can. Check the bucket, its key and the task role.',
    },
  ];
}
