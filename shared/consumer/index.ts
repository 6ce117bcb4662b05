export { type Consumer, consumerMetrics, createConsumer, METRICS_NAMESPACE } from './consumer.js';
export {
  ClaimDeadlinePassedError,
  ClaimHeldError,
  ConsumerOptionsError,
  InboxWriteError,
  MessageRejectedError,
  type RejectionCode,
} from './errors.js';
export { INBOX_PREFIX, Inbox, type InboxRecord, inboxKey } from './inbox.js';
export { fromSqsMessage, fromSqsRecord } from './messages.js';
export { eventHandler } from './options.js';
export { envelopeProblem, type ParseResult, parseMessage } from './parse.js';
export { classify, type SequenceObservation, type SequencePosition, SequenceTracker, sequenceKey } from './sequence-tracker.js';
export { type PollOptions, type PollResult, pollOnce } from './sqs-poller.js';
export type * from './types.js';
