import type { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { UNDECLARED_EVENT_TYPE } from '../lag-by-event-type.js';
import { methodsFault } from '../methods-fault.js';
import { showValue } from '../show-value.js';
import { ProcessorOptionsError } from './errors.js';
import { checkLeaseTableName } from './processor-options.js';
import { monotonicNow } from './worker-clock.js';
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
   * page's oldest record, reported when the page is published and each time it fails to publish;
   * and while a shard cannot be read, now − when it was last read, each time a read fails.
   */
  lag: 'lag',
  /**
   * Largest now − `ApproximateCreationDateTime` of a flush interval's published records of one
   * aggregate type, in ms: a line per aggregate type per flush, with the extra
   * {@link PROCESSOR_METRICS.aggregateTypeDimension} dimension.
   */
  lagByAggregateType: 'lagByAggregateType',
  /** The dimension of `lagByAggregateType`: a routed (low-latency) aggregate type, which bounds its values. */
  aggregateTypeDimension: 'aggregateType',
  /**
   * Largest now − `ApproximateCreationDateTime` of a flush interval's published records of one
   * (aggregate type, event type), in ms: a line per pair per flush, with the extra
   * {@link PROCESSOR_METRICS.aggregateTypeDimension} and {@link PROCESSOR_METRICS.eventTypeDimension}
   * dimensions. Written only when the config declares `eventTypes`.
   */
  lagByEventType: 'lagByEventType',
  /** The event-type dimension of `lagByEventType`: a type the config declares, or {@link PROCESSOR_METRICS.undeclaredEventType}. */
  eventTypeDimension: 'eventType',
  /** The `eventType` value of every type the config does not declare (a config may not declare this name). */
  undeclaredEventType: UNDECLARED_EVENT_TYPE,
  /** Records given up on after their bounds were spent and written to the on-failure destination (the alarm's metric). */
  onFailureRecords: 'onFailureRecords',
  /** Failed writes to the on-failure destination: while they fail, the shard waits. */
  onFailureWriteFailures: 'onFailureWriteFailures',
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
  checkLeaseTableName('leaseTableName', leaseTableName);
  return new Metrics({
    namespace: PROCESSOR_METRICS.namespace,
    serviceName: PROCESSOR_METRICS.service,
    defaultDimensions: { [PROCESSOR_METRICS.leaseTableDimension]: leaseTableName },
  });
}

/** A worker observer whose buffered metrics can be written out at once, e.g. at shutdown. */
export interface ProcessorObserver extends WorkerObserver {
  /** Publishes the metrics gathered since the last flush (`records`, `published`, `lag`, `trimmed`, `onFailureRecords`, `onFailureWriteFailures`). */
  flush(): void;
}

/**
 * Structured logs and EMF metrics for a worker: `records`, `published` and `lag` per batch,
 * `lagByAggregateType` per aggregate type and, when the config declares `eventTypes`,
 * `lagByEventType` per (aggregate type, event type) with records published (`lag`
 * also per failed or cut-off publish and per failed read, so it keeps rising while a shard cannot
 * publish or cannot be read); a warning per page whose publishing was cut off; `trimmed`, the times
 * records were found trimmed from the stream before they were read; `onFailureRecords`, records
 * given up on and written to the on-failure destination (each object logged as an error with its
 * key), and `onFailureWriteFailures`, failed writes there (each logged as an error); `leasesHeld` and
 * `leasesTotal` per lease scan. Metrics are flushed at most every `flushIntervalMs`, so a busy
 * shard does not write one EMF line per page, and by `flush()`, which the entry point calls
 * once the worker has stopped.
 *
 * @example
 * ```ts
 * const observer = processorObserver(new Logger({ serviceName: 'outbox-processor' }), processorMetrics('outbox-leases'));
 * // … at shutdown, after `worker.stop()`:
 * observer.flush();
 * ```
 */
export function processorObserver(logger: Logger, metrics: Metrics, flushIntervalMs = 10_000): ProcessorObserver {
  // Else the first report would throw in the worker's loop.
  for (const [field, given, allowed] of [
    ['logger', methodsFault(logger, ['debug', 'info', 'warn', 'error']), 'a Powertools Logger (debug, info, warn and error)'],
    [
      'metrics',
      methodsFault(metrics, ['addMetric', 'addDimension', 'publishStoredMetrics']),
      'a Powertools Metrics, as processorMetrics() gives',
    ],
  ] as const) {
    if (given !== undefined) throw new ProcessorOptionsError(field, `got ${given}; allowed: ${allowed}`);
  }
  // NaN would never flush (no time is ≥ NaN), so the metrics would wait for the shutdown's flush.
  if (typeof flushIntervalMs !== 'number' || !Number.isFinite(flushIntervalMs) || flushIntervalMs < 0) {
    throw new ProcessorOptionsError(
      'flushIntervalMs',
      `got ${showValue(flushIntervalMs)}; allowed: milliseconds from 0 (flush at every report) up, or leave it out for 10000`,
    );
  }
  let flushedAt = monotonicNow();
  let records = 0;
  let published = 0;
  let trimmed = 0;
  let onFailureRecords = 0;
  let onFailureWriteFailures = 0;
  let maxLagMs: number | undefined;
  const lagByAggregateType = new Map<string, number>();
  // Aggregate type → event type → lag; the reports bucket undeclared types, so the keys stay bounded.
  const lagByEventType = new Map<string, Map<string, number>>();
  const flush = (leases?: { readonly held: number; readonly total: number }): void => {
    metrics.addMetric('records', MetricUnit.Count, records);
    metrics.addMetric('published', MetricUnit.Count, published);
    metrics.addMetric('trimmed', MetricUnit.Count, trimmed);
    metrics.addMetric(PROCESSOR_METRICS.onFailureRecords, MetricUnit.Count, onFailureRecords);
    metrics.addMetric(PROCESSOR_METRICS.onFailureWriteFailures, MetricUnit.Count, onFailureWriteFailures);
    if (maxLagMs !== undefined) metrics.addMetric(PROCESSOR_METRICS.lag, MetricUnit.Milliseconds, maxLagMs);
    if (leases !== undefined) {
      metrics.addMetric('leasesHeld', MetricUnit.Count, leases.held);
      metrics.addMetric('leasesTotal', MetricUnit.Count, leases.total);
    }
    metrics.publishStoredMetrics();
    // A line per aggregate type: the dimension set differs from the line above.
    for (const [aggregateType, lag] of lagByAggregateType) {
      metrics.addDimension(PROCESSOR_METRICS.aggregateTypeDimension, aggregateType);
      metrics.addMetric(PROCESSOR_METRICS.lagByAggregateType, MetricUnit.Milliseconds, lag);
      metrics.publishStoredMetrics();
    }
    for (const [aggregateType, byEventType] of lagByEventType) {
      for (const [eventType, lag] of byEventType) {
        metrics.addDimension(PROCESSOR_METRICS.aggregateTypeDimension, aggregateType);
        metrics.addDimension(PROCESSOR_METRICS.eventTypeDimension, eventType);
        metrics.addMetric(PROCESSOR_METRICS.lagByEventType, MetricUnit.Milliseconds, lag);
        metrics.publishStoredMetrics();
      }
    }
    lagByAggregateType.clear();
    lagByEventType.clear();
    records = 0;
    published = 0;
    trimmed = 0;
    onFailureRecords = 0;
    onFailureWriteFailures = 0;
    maxLagMs = undefined;
    flushedAt = monotonicNow();
  };
  return {
    flush: () => flush(),
    batch(report) {
      records += report.records;
      published += report.published;
      if (report.lagMs !== undefined) maxLagMs = Math.max(maxLagMs ?? 0, report.lagMs);
      for (const [type, lag] of Object.entries(report.lagByAggregateType ?? {})) {
        lagByAggregateType.set(type, Math.max(lagByAggregateType.get(type) ?? 0, lag));
      }
      for (const [aggregateType, byEventType] of Object.entries(report.lagByEventType ?? {})) {
        const lags = lagByEventType.get(aggregateType) ?? new Map<string, number>();
        lagByEventType.set(aggregateType, lags);
        for (const [eventType, lag] of Object.entries(byEventType)) lags.set(eventType, Math.max(lags.get(eventType) ?? 0, lag));
      }
      logger.debug('batch published', { ...report });
    },
    publishFailed(report) {
      if (report.lagMs !== undefined) maxLagMs = Math.max(maxLagMs ?? 0, report.lagMs);
    },
    publishCutOff(report) {
      if (report.lagMs !== undefined) maxLagMs = Math.max(maxLagMs ?? 0, report.lagMs);
      logger.warn('publishing cut off; the records not published are left to the next holder', { ...report });
    },
    readFailed(report) {
      maxLagMs = Math.max(maxLagMs ?? 0, report.lagMs);
    },
    trimmed() {
      trimmed++;
    },
    sentToOnFailure(report) {
      onFailureRecords += report.records;
      if (report.lagMs !== undefined) maxLagMs = Math.max(maxLagMs ?? 0, report.lagMs);
      logger.error('records given up on were written to the on-failure destination; redrive them once the cause is fixed', { ...report });
    },
    onFailureWriteFailed({ error, ...report }) {
      onFailureWriteFailures++;
      if (report.lagMs !== undefined) maxLagMs = Math.max(maxLagMs ?? 0, report.lagMs);
      logger.error('writing records given up on to the on-failure destination failed; the shard waits and retries the write', {
        ...report,
        error: error as Error,
      });
    },
    leaseScan(leases) {
      if (monotonicNow() - flushedAt >= flushIntervalMs) flush(leases);
    },
    leaseAcquired: (shardId) => logger.info('lease acquired', { shardId }),
    leaseLost: (shardId, reason) => logger.warn('lease lost', { shardId, reason }),
    leaseReleased: (shardId) => logger.info('lease released', { shardId }),
    consumerExited: (shardId, exit) => logger.info('shard consumer exited', { shardId, exit }),
    error: (message, error) => logger.error(message, error as Error),
  };
}
