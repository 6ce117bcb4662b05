import type { OutboxEnvelope } from '../envelope.js';
import { asError, ClaimHeldError } from './errors.js';
import type { Inbox } from './inbox.js';
import type { CommitResult } from './inbox-records.js';
import type { ConsumerLogger, MessageOutcome, TransactItem } from './types.js';

/** What settling a commit needs: the consumer's name and logger, and its inbox. */
export interface CommitDeps {
  readonly consumer: string;
  readonly inbox: Inbox;
  readonly logger: ConsumerLogger;
}

/** A `transaction` event whose handler has run and whose writes and inbox record are still to commit (`commit: 'batch'`). */
export interface PendingCommit {
  /** The envelope as validated (its `data` as the schema returned it). */
  readonly envelope: OutboxEnvelope;
  readonly writes: readonly TransactItem[];
  /** The inbox check found a claim of the event, which the commit replaces (it had expired). */
  readonly takesOver: boolean;
  readonly messageId: string;
}

/** What a commit's result means for its event: `held` (an unexpired claim) fails it, `duplicate` skips it. */
export function settleCommit(
  deps: CommitDeps,
  envelope: OutboxEnvelope,
  result: CommitResult,
  takesOver: boolean,
): 'processed' | 'duplicate' {
  if (result.status === 'held') throw new ClaimHeldError(envelope.id, result.expiresAt);
  if (result.status === 'duplicate') return 'duplicate';
  if (takesOver) deps.logger.warn('Took over an expired claim', { consumer: deps.consumer, eventId: envelope.id, type: envelope.type });
  return 'processed';
}

const outcomeOf = (pending: PendingCommit, status: 'processed' | 'duplicate') =>
  ({ status, messageId: pending.messageId, eventId: pending.envelope.id, type: pending.envelope.type }) as const;

/** The outcome of a pending event that committed in its group's transaction. */
export function committedOutcome(deps: CommitDeps, pending: PendingCommit): MessageOutcome {
  return outcomeOf(pending, settleCommit(deps, pending.envelope, { status: 'committed' }, pending.takesOver));
}

/** The outcome of a pending event whose commit failed with `error`: its message fails, and SQS delivers it again. */
export const failedOutcome = (pending: PendingCommit, error: unknown): MessageOutcome => ({
  ...outcomeOf(pending, 'processed'),
  status: 'failed',
  error: asError(error),
});

/**
 * Commits a pending event on its own, with the request `commit: 'event'` sends; never throws: a
 * failure is its outcome. `valuesChecked`: its writes passed `Inbox.commit`'s value check already.
 */
export async function commitPending(deps: CommitDeps, pending: PendingCommit, valuesChecked = false): Promise<MessageOutcome> {
  try {
    const result = await deps.inbox.commit(pending.envelope, pending.writes, valuesChecked);
    return outcomeOf(pending, settleCommit(deps, pending.envelope, result, pending.takesOver));
  } catch (error) {
    return failedOutcome(pending, error);
  }
}
