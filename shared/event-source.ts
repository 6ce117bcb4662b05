import { checkedConfig, configRefusal, type OutboxConfig } from './config.js';
import { ConfigError } from './errors.js';
import { relayFilterPatterns } from './relay-filter.js';

/**
 * The relay's event source mapping and its function's timeout, defined once: the CDK stack
 * deploys exactly these settings and the local event-source-mapping runner applies exactly
 * these, so local runs mirror AWS.
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
  /**
   * The relay function's timeout (the config's `relay.timeoutSeconds`): an invocation not
   * answered by then is a function error, retried or bisected like a thrown one. The local
   * runner ends its invocations after it and counts the handler's context down from it.
   */
  readonly functionTimeoutSeconds: number;
}

/**
 * The relay's event source mapping and function timeout, from the config: what the CDK stack
 * deploys and what the local runner applies. A config that is none, or one `defineConfig` would
 * refuse, is a `ConfigError` naming `config`; a plain object is given its defaults first, as
 * `new Relay` gives it.
 *
 * @example
 * ```ts
 * const { batchSize, maxRetryAttempts, functionTimeoutSeconds } = relayEventSourceSettings(config);
 * ```
 */
export function relayEventSourceSettings(given: OutboxConfig): RelayEventSourceSettings {
  const config = checkedConfig(given, (cause) => new ConfigError('config', configRefusal(cause), { cause }));
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
    functionTimeoutSeconds: relay.timeoutSeconds,
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
