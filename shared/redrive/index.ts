/**
 * `dynamodb-outbox/redrive`: put back what the pipeline set aside (the relay DLQ, the relay's
 * on-failure records, a subscriber's DLQ), keeping event ids so consumer dedup still holds; and
 * replay the event archive to one queue.
 */

export { replayArchive } from '../archive/replay.js';
export {
  ReplayCheckpointError,
  type ReplayCheckpointErrorCode,
  ReplayOptionsError,
  ReplayStoppedError,
} from '../archive/replay-errors.js';
export { formatReplaySummary } from '../archive/replay-summary-format.js';
export type * from '../archive/replay-types.js';
export type { BackoffOptions } from '../backoff.js';
export type { RelayDeadLetterReason } from '../dead-letter.js';
export { OutboxError } from '../errors.js';
/** The clients the redrive options take (the same types `dynamodb-outbox/relay` exports). */
export type { DeadLetterClient } from '../relay/dead-letter-sender.js';
export type { PublishBatchClient } from '../relay/types.js';
export { checkDeadLetterFilter, type DeadLetterFilter, matchesDeadLetterFilter } from './dead-letter-filter.js';
export {
  DEAD_LETTER_REASONS,
  type DeadLetterEvent,
  type DeadLetterInfo,
  describeDeadLetter,
  MALFORMED,
  MAX_RECEIVE_COUNT_EXCEEDED,
  RELAY_REASONS,
} from './dead-letter-info.js';
export { type DeadLetterGroup, type DlqSummarizeOptions, type DlqSummary, IN_FLIGHT_LIMIT, summarizeDlq } from './dlq-summary.js';
export { formatDlqSummary } from './dlq-summary-format.js';
export {
  type InFlightHolding,
  type InFlightLimitFacts,
  RedriveInFlightLimitError,
  RedriveOptionsError,
  type RedriveRefusalOptions,
  RedriveStoppedError,
  StreamRangeIncompleteError,
} from './errors.js';
export { type OnFailureRedriveOptions, type OnFailureSource, redriveOnFailure } from './on-failure.js';
export type { RelayDeadLetterQueue } from './on-failure-dead-letters.js';
export { type QueueDlqRedriveOptions, redriveQueueDlq } from './queue-dlq.js';
export { type RelayDlqRedriveOptions, redriveRelayDlq } from './relay-dlq.js';
export { formatSummary } from './summary.js';
export type * from './types.js';
