import type { OutboxEnvelope } from '../envelope.js';
import type { PreparedEvent, PreparedMessage } from './handle-message.js';
import type { PendingCommit } from './pending-commit.js';
import type { MessageProgress } from './run-events.js';
import { type MessageScope, UNTRACED } from './tracing.js';
import type { ConsumerMessage, MessageOutcome } from './types.js';

/** An event that has run under `commit: 'batch'`: its outcome, or its commit still pending in the group. */
export type Slot = { readonly event: PreparedEvent } & (
  | { readonly outcome: MessageOutcome; readonly envelope?: OutboxEnvelope }
  | { readonly pending: PendingCommit }
);

/** A message of a batch worker not settled yet: its events that have run, and how far they are reported. */
export interface MessageRecord extends MessageProgress {
  readonly index: number;
  readonly message: ConsumerMessage;
  readonly ready: PreparedMessage;
  readonly slots: Slot[];
  /** Every event that will run has run. */
  complete: boolean;
  /** Its outcome is final: the message ran to its end or one of its events failed; no more of it runs. */
  closed: boolean;
  /** Its span, where its events' own commits run. */
  scope: MessageScope;
  settle(outcome: MessageOutcome): void;
}

/**
 * The record of the message at `index` of the batch as it starts (nothing run, untraced), and the
 * promise its `settle` resolves: the message's span stays open until then.
 */
export function openMessageRecord(
  index: number,
  message: ConsumerMessage,
  ready: PreparedMessage,
): { readonly record: MessageRecord; readonly settled: Promise<MessageOutcome> } {
  let settle: (outcome: MessageOutcome) => void = () => {};
  const settled = new Promise<MessageOutcome>((resolve) => {
    settle = resolve;
  });
  const record: MessageRecord = {
    index,
    message,
    ready,
    slots: [],
    outcomes: [],
    reported: 0,
    complete: false,
    closed: false,
    scope: UNTRACED,
    settle,
  };
  return { record, settled };
}
