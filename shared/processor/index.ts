/**
 * `dynamodb-outbox/processor`: the low-latency stream processor (what the ECS task runs): a
 * lease-based reader of the table's stream that publishes through the relay core.
 */

export { ConfigError, EnvironmentError, OutboxError } from '../errors.js';
export type { LagByEventType } from '../lag-by-event-type.js';
export type { OnFailureCondition } from '../on-failure/batch-record.js';
export type { OnFailureBucketClient } from '../on-failure/s3-object.js';
/** The clients and backoff `ProcessorRelayOptions` takes (the same types `dynamodb-outbox/relay` exports). */
export type { DeadLetterClient } from '../relay/dead-letter-sender.js';
export type { RetryDelays } from '../relay/retry-delays.js';
export type { PublishBatchClient } from '../relay/types.js';
export {
  LeaseLostError,
  ProcessorOptionsError,
  ProcessorStartError,
  RecordsTrimmedError,
  StreamCallTimeoutError,
} from './errors.js';
export { startHealthServer } from './health.js';
export { createLeaseTableInput, LEASE_TABLE } from './lease-table.js';
export { leaseTableClient } from './lease-table-client.js';
export { PROCESSOR_METRICS, type ProcessorObserver, processorMetrics, processorObserver } from './observability.js';
export type { ProcessorOnFailureDestination } from './on-failure-writer.js';
export { createProcessor, type ProcessorRelayOptions, type StartProcessorOptions, startProcessor } from './processor.js';
export { PROCESSOR_ENV, type ProcessorEnvironment, processorEnvironment } from './processor-env.js';
export type { ProcessorWorker } from './processor-worker.js';
export { DEFAULT_FAILOVER_MS, type ProcessorSettings, processorSettings } from './settings.js';
export type { StreamsApi, StreamsCallOptions } from './stream-source.js';
export type {
  BatchReport,
  OnFailureReport,
  PublishCutOffReport,
  PublishFailureReport,
  ReadFailureReport,
  TrimReport,
  WorkerObserver,
} from './worker-observer.js';
export type { WorkerStatus } from './worker-types.js';
