/**
 * The dashboard's lag charts per aggregate type and per event type, for the relay and the
 * low-latency processor: what `OutboxAlarms` adds once it knows the outbox config.
 */

import { Duration } from 'aws-cdk-lib';
import { GraphWidget, MathExpression, type Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { OutboxConfig } from '../shared/config.js';
import { PROCESSOR_METRICS } from '../shared/processor/observability.js';
import { processorAggregateTypes, relayPublishes } from '../shared/publishing-paths.js';
import { RELAY_METRICS } from '../shared/relay/metrics.js';
import { processorDimensions, processorMetric, relayDimensions, relayMetric } from './private/emf-metrics.js';

/**
 * Every `lagByEventType` series of one publisher (its `dimensions`: service and function or lease
 * table), one line per (aggregate type, event type), by a SEARCH: the publisher writes only the
 * declared event types and the undeclared bucket, so the lines are bounded by the config, and a
 * pair shows as soon as it has data, without a metric per declared type and aggregate type here.
 */
function lagByEventTypeSearch(
  names: Pick<
    typeof RELAY_METRICS | typeof PROCESSOR_METRICS,
    'namespace' | 'lagByEventType' | 'aggregateTypeDimension' | 'eventTypeDimension'
  >,
  dimensions: Readonly<Record<string, unknown>>,
): MathExpression {
  const schema = [names.aggregateTypeDimension, names.eventTypeDimension, ...Object.keys(dimensions)].sort();
  const filters = Object.entries(dimensions)
    .map(([name, value]) => `${name}="${String(value)}"`)
    .join(' ');
  return new MathExpression({
    expression: `SEARCH('{${names.namespace},${schema.join(',')}} MetricName="${names.lagByEventType}" ${filters}', 'Maximum', 60)`,
    usingMetrics: {},
    label: '',
    period: Duration.minutes(1),
  });
}

/** The relay's `lagByAggregateType` of one aggregate type, the worst of each minute. */
export const relayLagOf = (functionName: string, aggregateType: string): Metric =>
  relayMetric(functionName, RELAY_METRICS.lagByAggregateType, {}, { [RELAY_METRICS.aggregateTypeDimension]: aggregateType });

/**
 * The relay's lag per aggregate type it publishes (its routes less the low-latency ones not handed over) and, with
 * an event catalog, per event type; none when the processor publishes every routed type.
 */
export function relayLagCharts(functionName: string, config: OutboxConfig): GraphWidget[] {
  const relayed = Object.keys(config.routes).filter((type) => relayPublishes(config, type));
  if (relayed.length === 0) return [];
  const perAggregateType = new GraphWidget({
    title: 'Relay lag per aggregate type, commit to published (ms)',
    left: relayed.map((type) => relayLagOf(functionName, type).with({ label: type })),
    width: 24,
  });
  if (config.eventTypes === undefined) return [perAggregateType];
  return [
    perAggregateType,
    new GraphWidget({
      title: 'Relay lag per event type, commit to published (ms)',
      left: [lagByEventTypeSearch(RELAY_METRICS, relayDimensions(functionName))],
      width: 24,
    }),
  ];
}

/**
 * The lag per aggregate type the processor publishes (low-latency or handed over) and, with an event catalog, per event type, of the
 * processor with that lease table; none without low-latency types.
 */
export function processorLagCharts(leaseTableName: string, config: OutboxConfig | undefined): GraphWidget[] {
  const lowLatency = config === undefined ? [] : processorAggregateTypes(config);
  if (lowLatency.length === 0) return [];
  const lagOf = (aggregateType: string) =>
    processorMetric(
      leaseTableName,
      PROCESSOR_METRICS.lagByAggregateType,
      { label: aggregateType },
      { [PROCESSOR_METRICS.aggregateTypeDimension]: aggregateType },
    );
  const perAggregateType = new GraphWidget({
    title: 'Processor lag per aggregate type, commit to published (ms)',
    left: lowLatency.map(lagOf),
    width: 24,
  });
  if (config?.eventTypes === undefined) return [perAggregateType];
  return [
    perAggregateType,
    new GraphWidget({
      title: 'Processor lag per event type, commit to published (ms)',
      left: [lagByEventTypeSearch(PROCESSOR_METRICS, processorDimensions(leaseTableName))],
      width: 24,
    }),
  ];
}
