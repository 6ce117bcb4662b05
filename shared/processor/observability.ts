import type { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { WorkerObserver } from './worker-observer.js';

/**
 * Where the processor's EMF metrics land: the namespace, the `service` dimension Powertools adds,
 * and the metric names. The container, its CDK construct and its alarms all take them from here.
 */
export const PROCESSOR_METRICS = {
  namespace: 'Outbox',
  service: 'outbox-processor',
  /** Dimension naming the deployment: its lease table, so two outboxes in one account never share a metric. */
  leaseTableDimension: 'leaseTable',
  /**
   * Largest now − `ApproximateCreationDateTime` of a flush interval's pages, in ms: of each
   * page's oldest record, reported when the page is published and each time it fails to publish.
   */
  lag: 'lag',
} as const;

/**
 * The processor's metrics: namespace and `service` from {@link PROCESSOR_METRICS}, and the lease
 * table as a dimension of every metric, which is where the construct's alarms look for them.
 *
 * @example
 * ```ts
 * const metrics = processorMetrics(process.env.OUTBOX_LEASE_TABLE!);
 * ```
 */
export function processorMetrics(leaseTableName: string): Metrics {
  return new Metrics({
    namespace: PROCESSOR_METRICS.namespace,
    serviceName: PROCESSOR_METRICS.service,
    defaultDimensions: { [PROCESSOR_METRICS.leaseTableDimension]: leaseTableName },
  });
}

/**
 * Structured logs and EMF metrics for a worker: `records`, `published` and `lag` per batch (`lag`
 * also per failed publish, so it keeps rising while a shard cannot publish); `leasesHeld` and
 * `leasesTotal` per lease scan. Metrics are flushed at most every
 * `flushIntervalMs`, so a busy shard does not write one EMF line per page.
 *
 * @example
 * ```ts
 * const observer = processorObserver(new Logger({ serviceName: 'outbox-processor' }), processorMetrics('outbox-leases'));
 * ```
 */
export function processorObserver(logger: Logger, metrics: Metrics, flushIntervalMs = 10_000): WorkerObserver {
  let flushedAt = Date.now();
  let records = 0;
  let published = 0;
  let maxLagMs: number | undefined;
  const flush = (held: number, total: number): void => {
    metrics.addMetric('records', MetricUnit.Count, records);
    metrics.addMetric('published', MetricUnit.Count, published);
    if (maxLagMs !== undefined) metrics.addMetric(PROCESSOR_METRICS.lag, MetricUnit.Milliseconds, maxLagMs);
    metrics.addMetric('leasesHeld', MetricUnit.Count, held);
    metrics.addMetric('leasesTotal', MetricUnit.Count, total);
    metrics.publishStoredMetrics();
    records = 0;
    published = 0;
    maxLagMs = undefined;
    flushedAt = Date.now();
  };
  return {
    batch(report) {
      records += report.records;
      published += report.published;
      if (report.lagMs !== undefined) maxLagMs = Math.max(maxLagMs ?? 0, report.lagMs);
      logger.debug('batch published', { ...report });
    },
    publishFailed(report) {
      if (report.lagMs !== undefined) maxLagMs = Math.max(maxLagMs ?? 0, report.lagMs);
    },
    leaseScan({ held, total }) {
      if (Date.now() - flushedAt >= flushIntervalMs) flush(held, total);
    },
    leaseAcquired: (shardId) => logger.info('lease acquired', { shardId }),
    leaseLost: (shardId, reason) => logger.warn('lease lost', { shardId, reason }),
    leaseReleased: (shardId) => logger.info('lease released', { shardId }),
    consumerExited: (shardId, exit) => logger.info('shard consumer exited', { shardId, exit }),
    error: (message, error) => logger.error(message, error as Error),
  };
}
