import { OutboxError } from '../errors.js';
import type { BatchResult } from './types.js';

/** What one poll of a queue gave: how many messages came, how many SQS deleted, and each one's outcome. */
export interface PollResult {
  readonly received: number;
  /** Handled (or duplicates) and deleted from the queue: only the messages SQS confirmed deleted. */
  readonly acknowledged: number;
  readonly failed: number;
  readonly result: BatchResult;
}

/**
 * Where a poll failed:
 * - `queue-attributes`: reading the queue's visibility timeout (`GetQueueAttributes`); nothing received.
 * - `receive`: `ReceiveMessage`; no message reached the consumer.
 * - `process`: the consumer threw on the whole batch; none of it deleted.
 * - `delete`: `DeleteMessageBatch` of the acknowledged messages; the batch was processed.
 * - `change-visibility`: `ChangeMessageVisibilityBatch` of the failed messages (`retryDelaySeconds`); the rest is done.
 * - `on-batch`: the poller's `onBatch` callback threw; the batch itself is done.
 */
export type PollPhase = 'queue-attributes' | 'receive' | 'process' | 'delete' | 'change-visibility' | 'on-batch';

/** `ECONNRESET (socket hang up)`, `AccessDenied (…)`: what an error says, for a message. */
export function describeCause(error: unknown): string {
  const { name, code, message } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const label = typeof code === 'string' && (name === 'Error' || name === undefined) ? code : typeof name === 'string' ? name : 'Error';
  return `${label} (${typeof message === 'string' && message !== '' ? message : String(error)})`;
}

/**
 * A poll of a queue failed; `phase` says where, the message what became of the messages, and
 * `cause` holds the underlying error. When it failed after the consumer had processed the batch
 * (`delete`, `change-visibility`, `on-batch`), `batch` holds the batch's outcomes: a message whose
 * delete failed comes back after its visibility timeout and is acknowledged then as a duplicate.
 */
export class PollError extends OutboxError {
  readonly phase: PollPhase;
  readonly queueUrl: string;
  /** The batch as far as it got, when the consumer had processed it; `acknowledged` counts only what SQS confirmed deleted. */
  readonly batch: PollResult | undefined;

  constructor(phase: PollPhase, queueUrl: string, message: string, options?: ErrorOptions & { readonly batch?: PollResult }) {
    super('POLL_FAILED', `Polling ${queueUrl} failed at ${phase}: ${message}`, options);
    this.name = 'PollError';
    this.phase = phase;
    this.queueUrl = queueUrl;
    this.batch = options?.batch;
  }
}

/** A stopped poller was started again; a poller runs once. */
export class PollerStoppedError extends OutboxError {
  constructor(queueUrl: string) {
    super(
      'POLLER_STOPPED',
      `The poller of ${queueUrl} was stopped and cannot start again; allowed: start() once, then stop(); create another poller with createPoller to poll again`,
    );
    this.name = 'PollerStoppedError';
  }
}
