import type { OutboxEnvelope } from '../envelope.js';
import { type MessageHandlingDeps, type PreparedEvent, type PreparedMessage, runMessage } from './handle-message.js';
import type { InboxSnapshot } from './inbox-snapshot.js';
import type { SequenceObservation, SequenceTracker } from './sequence-tracker.js';
import type { ConsumerMessage, MessageOutcome } from './types.js';

/** What hears of each event's outcome and position: the consumer's logs and metrics. */
export interface EventReporter {
  outcome(outcome: MessageOutcome): void;
  /** An event this consumer's handler has just handled (not a duplicate), live: its commit-to-handled lag. */
  handled?(envelope: OutboxEnvelope): void;
  /** A replayed event acknowledged (handled, or skipped as a duplicate): counted apart from live ones' lag and gaps. */
  replayed?(envelope: OutboxEnvelope, replayId: string): void;
  sequence(envelope: OutboxEnvelope, observation: SequenceObservation): void;
  trackingFailed(envelope: OutboxEnvelope, error: unknown): void;
  /** Messages an unexpected error failed, counted as failed; never throws. */
  failedUnexpectedly(messages: number): void;
}

export interface RunEventsOptions {
  readonly claimUntil: number | undefined;
  readonly snapshot: InboxSnapshot;
  readonly tracker: SequenceTracker | undefined;
  readonly reporter: EventReporter;
}

/**
 * A message's events' outcomes as they are known (each before it is reported), and how many of
 * them are reported in full: an error that ends the message came at the event after those.
 */
export interface MessageProgress {
  readonly outcomes: MessageOutcome[];
  reported: number;
}

export const acknowledged = (outcome: MessageOutcome): boolean => outcome.status === 'processed' || outcome.status === 'duplicate';

/** Reports one event's outcome: its count, its lag (live) or replay, and its position when tracked. */
export async function reportEvent(
  event: PreparedEvent,
  outcome: MessageOutcome,
  envelope: OutboxEnvelope | undefined,
  { tracker, reporter }: Pick<RunEventsOptions, 'tracker' | 'reporter'>,
): Promise<void> {
  const { replayId } = event;
  reporter.outcome(outcome);
  // A replayed event's commit was long ago: its lag would say nothing of how the consumer keeps up.
  if (replayId !== undefined && envelope !== undefined && acknowledged(outcome)) reporter.replayed?.(envelope, replayId);
  else if (outcome.status === 'processed' && envelope !== undefined) reporter.handled?.(envelope);
  if (tracker !== undefined && envelope !== undefined && acknowledged(outcome)) {
    // A duplicate's first delivery may have been handled without its position recorded (a crash
    // between the two): the position catches up, and only the gap that delivery would have
    // reported is reported, never the duplicate itself as out of order.
    const duplicate = outcome.status === 'duplicate';
    await tracker.observe(envelope, { replayed: replayId !== undefined }).then(
      (observation) => (duplicate && observation.status !== 'gap' ? undefined : reporter.sequence(envelope, observation)),
      (error: unknown) => reporter.trackingFailed(envelope, error),
    );
  }
}

/** A message's outcome from its events' (up to the first not acknowledged), `eventCount` the events it carries. */
export function messageOutcome(eventCount: number, outcomes: readonly MessageOutcome[]): MessageOutcome {
  const last = outcomes[outcomes.length - 1]!;
  if (eventCount === 1) return last;
  if (!acknowledged(last)) return { ...last, events: outcomes } as MessageOutcome;
  const status = outcomes.some((o) => o.status === 'processed') ? 'processed' : 'duplicate';
  return { ...(last as Extract<MessageOutcome, { status: 'processed' | 'duplicate' }>), status, events: outcomes };
}

/**
 * Runs a message's events in order, each under the inbox and tracked, and says what became of
 * the message. The first event that fails or is rejected ends the message: the events after it
 * are not run, and the message is that event's outcome (retried whole: the events before it are
 * duplicates in the inbox by then). A batch's outcome lists its events' in `events`. Each event's
 * outcome goes into `progress` as it is known, before it is reported, and counts as reported after.
 */
export async function runEvents(
  deps: MessageHandlingDeps,
  message: ConsumerMessage,
  ready: Extract<PreparedMessage, { status: 'ready' }>,
  { claimUntil, snapshot, tracker, reporter }: RunEventsOptions,
  progress: MessageProgress = { outcomes: [], reported: 0 },
): Promise<MessageOutcome> {
  for (const event of ready.events) {
    const { outcome, envelope } = await runMessage(deps, { message, event, claimUntil, snapshot });
    progress.outcomes.push(outcome);
    await reportEvent(event, outcome, envelope, { tracker, reporter });
    progress.reported++;
    if (!acknowledged(outcome)) break;
  }
  return messageOutcome(ready.events.length, progress.outcomes);
}
