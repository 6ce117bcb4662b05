/**
 * `dynamodb-outbox/relay`: the relay core (stream records → CloudEvents envelopes → SNS), the
 * Lambda handler factory the deployed relay and the local stack share, and the event source
 * mapping's definition.
 */

export { ConfigError, EnvironmentError, OutboxError } from '../errors.js';
export { RELAY_ENV, type RelayEventSourceSettings, relayEventSourceSettings } from '../event-source.js';
export type { LagByEventType } from '../lag-by-event-type.js';
export type { RelayBatchSummary } from './batch-summary.js';
export type { DeadLetterClient } from './dead-letter-sender.js';
export { createRelayHandler } from './handler.js';
export type {
  RelayHandler,
  RelayHandlerDependencies,
  RelayHandlerOptions,
  RelayInvocationContext,
  RelayLogger,
  RelayMetrics,
} from './handler-types.js';
export { RELAY_METRICS, type RelayMetricName, relayMetrics } from './metrics.js';
export type { RecordFailureReason, RecordOutcome, RelayResult } from './outcome.js';
export { lowestFailedSequenceNumber } from './outcome.js';
export { Relay } from './relay.js';
export { type RelayEnvironment, relayEnvironment } from './relay-env.js';
export type { RetryDelays } from './retry-delays.js';
export type { RecordCoordinates, StreamRecordInput } from './stream-record.js';
export type { AggregateTypeSelection, PublishBatchClient, RelayOptions, RelayRunOptions } from './types.js';
