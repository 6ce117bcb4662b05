/**
 * `dynamodb-outbox/consumer`: idempotent SQS consumers of outbox events (Lambda handler or any
 * poller), with the inbox, sequence tracking and the errors they throw.
 */

export { REPLAY_ATTRIBUTE } from '../envelope.js';
export { ConfigError, EnvironmentError, OutboxError } from '../errors.js';
export {
  CONSUMER_LAG_DIMENSION,
  CONSUMER_LAG_METRIC,
  type Consumer,
  type ConsumerHandler,
  createConsumer,
  type LambdaContext,
  METRICS_NAMESPACE,
  OTHER_EVENT_TYPE,
} from './consumer.js';
export {
  ClaimDeadlinePassedError,
  ClaimHeldError,
  ConsumerOptionsError,
  InboxConflictError,
  InboxTransactionInProgressError,
  InboxWriteError,
  MessageRejectedError,
  type RejectionCode,
} from './errors.js';
export { INBOX_PREFIX, INBOX_SORT_KEY, type InboxEventKey, inboxKey } from './inbox.js';
export type { InboxRecord, InboxStatus } from './inbox-records.js';
export { fromSqsMessage, fromSqsRecord } from './messages.js';
export { eventHandler } from './options.js';
export { type ParsedEvents, type ParseResult, parseMessage } from './parse.js';
export { PollError, PollerStoppedError, type PollPhase } from './poll-errors.js';
export { createPoller, type Poller, type PollerOptions, type PollerStopResult } from './poller.js';
export { SEQUENCE_PREFIX, SEQUENCE_SORT_KEY, type SequenceObservation, type SequencePosition } from './sequence-tracker.js';
export { type PollOptions, type PollResult, pollOnce } from './sqs-poller.js';
export type * from './types.js';
