/**
 * `dynamodb-outbox/redrive`: put back what the pipeline set aside (the relay DLQ, the relay's
 * on-failure records, a subscriber's DLQ), keeping event ids so consumer dedup still holds.
 */

export { OutboxError } from '../errors.js';
export { RedriveOptionsError, RedriveStoppedError, StreamRangeIncompleteError } from './errors.js';
export { type OnFailureRedriveOptions, type OnFailureSource, redriveOnFailure } from './on-failure.js';
export { type QueueDlqRedriveOptions, redriveQueueDlq } from './queue-dlq.js';
export { type RelayDlqRedriveOptions, redriveRelayDlq } from './relay-dlq.js';
export { formatSummary } from './summary.js';
export type * from './types.js';
