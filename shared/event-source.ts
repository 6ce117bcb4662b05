import type { OutboxConfig } from './config.js';
import { SLOT_KIND, SLOT_PREFIX } from './slot.js';
import { TABLE } from './table.js';

/**
 * The relay's event source mapping, defined once: the CDK stack deploys exactly these settings
 * and the local event-source-mapping runner applies exactly these, so local runs mirror AWS.
 */
export interface RelayEventSourceSettings {
  readonly startingPosition: 'TRIM_HORIZON';
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  readonly parallelizationFactor: number;
  readonly bisectBatchOnError: boolean;
  readonly maxRetryAttempts: number;
  readonly maxRecordAgeSeconds: number;
  readonly reportBatchItemFailures: true;
  /** Lambda filter-criteria patterns (each a JSON object); a record passes when any matches. */
  readonly filterPatterns: readonly Record<string, unknown>[];
}

/**
 * The default of the config's `relay.timeoutSeconds` (AWS: 1–900 s): the CDK stack deploys the
 * config's timeout and the local event-source-mapping runner ends an invocation after it.
 */
export const DEFAULT_RELAY_TIMEOUT_SECONDS = 60;

/** Lambda's limit on one filter's `Pattern`, in characters; `defineConfig` keeps the relay's patterns within it. */
export const MAX_FILTER_PATTERN_LENGTH = 4096;

/**
 * Filter patterns that pass only outbox-slot inserts and modifies, never TTL removals or
 * business items, and leave the low-latency aggregate types to the stream processor.
 */
export function relayFilterPatterns(config: Pick<OutboxConfig, 'lowLatencyAggregateTypes'>): Record<string, unknown>[] {
  const newImage: Record<string, unknown> = {
    [TABLE.partitionKey]: { S: [{ prefix: SLOT_PREFIX }] },
    kind: { S: [SLOT_KIND] },
  };
  if (config.lowLatencyAggregateTypes.length > 0) {
    newImage.aggregateType = { S: [{ 'anything-but': [...config.lowLatencyAggregateTypes] }] };
  }
  return [{ eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: newImage } }];
}

export function relayEventSourceSettings(config: OutboxConfig): RelayEventSourceSettings {
  const { relay } = config;
  return {
    startingPosition: 'TRIM_HORIZON',
    batchSize: relay.batchSize,
    maxBatchingWindowSeconds: relay.maxBatchingWindowSeconds,
    parallelizationFactor: relay.parallelizationFactor,
    bisectBatchOnError: relay.bisectBatchOnError,
    maxRetryAttempts: relay.maxRetryAttempts,
    maxRecordAgeSeconds: relay.maxRecordAgeSeconds,
    reportBatchItemFailures: true,
    filterPatterns: relayFilterPatterns(config),
  };
}

/** Environment variables of the relay (Lambda and stream processor), read once at cold start. */
export const RELAY_ENV = Object.freeze({
  /** The outbox config as JSON (see `serializeConfig`). */
  config: 'OUTBOX_CONFIG',
  /** JSON object: topic name → topic ARN. */
  topicArns: 'OUTBOX_TOPIC_ARNS',
  /** URL of the relay dead-letter queue (SQS). */
  deadLetterQueueUrl: 'OUTBOX_RELAY_DLQ_URL',
});
