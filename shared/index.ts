/**
 * `dynamodb-outbox`: the write helper that commits business writes and their events in one
 * transaction, the config both the CDK stack and the local stack read, the envelope consumers
 * receive, and the errors these throw.
 */

/** The bounds `WriteRetryOptions` extends (the same type `dynamodb-outbox/redrive` exports). */
export type { BackoffOptions } from './backoff.js';
export {
  type EventSchemaCode,
  EventSchemaError,
  type EventSchemaIssue,
} from './catalog/errors.js';
export type {
  ArchiveConfig,
  OutboxConfig,
  OutboxConfigInput,
  RelayTuning,
  TopicBatching,
  TopicConfig,
  TopicSettings,
} from './config.js';
export { AGGREGATE_TYPE_PATTERN, CONFIG_ENV, configFromEnv, defineConfig, serializeConfig } from './config.js';
export { MessageRejectedError, type RejectionCode } from './consumer/errors.js';
export { type ParsedEvents, type ParseResult, parseMessage } from './consumer/parse.js';
/** The attributes a `ParseResult` of an SNS notification carries (the same type `dynamodb-outbox/consumer` exports). */
export type { MessageAttribute } from './consumer/types.js';
export { requireEnv } from './env.js';
export { BATCH_CONTENT_TYPE, type OutboxEnvelope } from './envelope.js';
export {
  ConfigError,
  EnvironmentError,
  IdempotencyConflictError,
  type OperationFailure,
  OutboxError,
  type SpentRetryBound,
  TransactionConflictError,
  TransactionFailedError,
  type UnknownOutcome,
  type UnknownOutcomeReason,
  WriteOutcomeUnknownError,
  WriteRejectedError,
  type WriteValidationCode,
  WriteValidationError,
} from './errors.js';
export type { EventTypeCatalog, EventTypeDeclaration, EventTypeInput, UndeclaredEventTypes } from './event-types.js';
export type { AggregateRef } from './slot.js';
export * from './write/index.js';
