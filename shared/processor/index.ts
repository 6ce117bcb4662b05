export {
  LeaseLostError,
  ProcessorOptionsError,
  ProcessorStartError,
  RecordsTrimmedError,
  StreamCallTimeoutError,
} from './errors.js';
export { isHealthy, STARTING_HEALTHY_MS, startHealthServer } from './health.js';
export { HeldLease } from './held-lease.js';
export type { Lease, LeaseStore } from './lease.js';
export { hasStarted, isFinished, SHARD_END, TRIM_HORIZON } from './lease.js';
export type { BalanceInput, LeasePlan } from './lease-balance.js';
export { planLeases } from './lease-balance.js';
export type { LeaseEvents } from './lease-coordinator.js';
export { LeaseCoordinator } from './lease-coordinator.js';
export { createLeaseTableInput, DynamoDbLeaseTable, LEASE_TABLE } from './lease-table.js';
export type { ProcessorObserver } from './observability.js';
export { PROCESSOR_METRICS, processorMetrics, processorObserver } from './observability.js';
export type { ProcessorRelayOptions, StartProcessorOptions } from './processor.js';
export { createProcessor, createProcessorRelay, startProcessor } from './processor.js';
export type { ProcessorEnvironment } from './processor-env.js';
export { PROCESSOR_ENV, processorEnvironment } from './processor-env.js';
export type { ProcessorSettings } from './settings.js';
export { DEFAULT_FAILOVER_MS, leaseExpiresAfterMs, processorSettings } from './settings.js';
export type { ConsumerContext, ConsumerExit, RecordPublisher } from './shard-consumer.js';
export { ShardConsumer } from './shard-consumer.js';
export type { ShardSyncResult } from './shard-sync.js';
export { parentsFinished, syncShards } from './shard-sync.js';
export type { ReadResult, ShardInfo, ShardIteratorResult, StreamCallBound, StreamsApi, StreamsCallOptions } from './stream-source.js';
export { MAX_RECORDS_PER_READ, StreamSource } from './stream-source.js';
export type { ProcessorWorkerOptions, WorkerStatus } from './worker.js';
export { ProcessorWorker } from './worker.js';
export type { BatchReport, PublishFailureReport, ReadFailureReport, TrimReport, WorkerObserver } from './worker-observer.js';
