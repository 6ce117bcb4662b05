import type { PreparedEvent, PreparedMessage } from './handle-message.js';
import { acknowledged, type EventReporter, type MessageProgress, messageOutcome } from './run-events.js';
import type { ConsumerLogger, ConsumerMessage, MessageOutcome } from './types.js';

/**
 * Writes a log line with a logger that may throw (a user's logger is code too): when it does, the
 * line and the logger's own error go to `console.error`, so no error of logging escapes.
 */
export function logSafely(
  logger: ConsumerLogger,
  level: 'info' | 'warn' | 'error',
  message: string,
  attributes: Record<string, unknown>,
): void {
  try {
    logger[level](message, attributes);
  } catch (loggerError) {
    console.error(message, { ...attributes, loggerError });
  }
}

/**
 * The outcome of a message that an unexpected error (a logger, metrics sink, tracker or tracer
 * that throws; a bug) ended, `progress` its events' outcomes known so far: one rejected before it
 * ran, whose event already failed or was rejected, or whose every event was handled and reported
 * in full (the error came after its work was done: a redelivery would only skip it as a
 * duplicate), keeps that outcome; any other fails with the error, so SQS delivers it again (what
 * of it was committed is a duplicate the inbox skips then), naming the event the error came at:
 * the first whose outcome was not reported in full.
 */
export function unexpectedOutcome(
  message: ConsumerMessage,
  ready: PreparedMessage,
  progress: MessageProgress,
  error: Error,
): MessageOutcome {
  if (ready.status === 'done') return ready.outcome;
  const { outcomes, reported } = progress;
  const last = outcomes[outcomes.length - 1];
  if (last !== undefined && !acknowledged(last)) return messageOutcome(ready.events.length, outcomes);
  if (reported === ready.events.length) return messageOutcome(ready.events.length, outcomes);
  // The error came while this event ran or committed, or while its outcome was reported.
  const { envelope } = ready.events[reported] as PreparedEvent;
  return { status: 'failed', messageId: message.messageId, eventId: envelope.id, type: envelope.type, error };
}

/**
 * Reports messages that an unexpected error ended, once for all of them: the ones it failed count
 * as `FailedMessages` (unless the metrics sink is what threw), and one error line names them all.
 * Never throws.
 */
export function reportUnexpected(
  consumer: string,
  logger: ConsumerLogger,
  reporter: Pick<EventReporter, 'failedUnexpectedly'>,
  ended: readonly MessageOutcome[],
  error: Error,
  line: string,
): void {
  reporter.failedUnexpectedly(ended.filter((outcome) => outcome.status === 'failed').length);
  logSafely(logger, 'error', line, {
    consumer,
    messageIds: ended.map((outcome) => outcome.messageId),
    error,
  });
}
