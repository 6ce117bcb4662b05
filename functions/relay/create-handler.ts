import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { lowestFailedSequenceNumber, RELAY_METRICS, type Relay } from '../../shared/relay/index.js';

export interface RelayHandlerDependencies {
  readonly relay: Relay;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** @default Date.now */
  readonly now?: () => number;
}

export type RelayHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

/**
 * The Lambda relay as a function of its dependencies, so the deployed handler and local runs
 * share it. Returns the lowest failed record's `SequenceNumber` in `batchItemFailures`
 * (ReportBatchItemFailures): the event source mapping retries from there.
 *
 * @example
 * ```ts
 * export const handler = createRelayHandler({ relay, logger, metrics });
 * ```
 */
export function createRelayHandler({ relay, logger, metrics, now = Date.now }: RelayHandlerDependencies): RelayHandler {
  return async (event) => {
    const records = event.Records ?? [];
    const result = await relay.relay(records);
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
