import type { BatchWorkerContext } from './batch-worker.js';
import { asError } from './errors.js';
import type { PreparedMessage } from './handle-message.js';
import { type MessageProgress, runEvents } from './run-events.js';
import { traceMessage } from './tracing.js';
import type { ConsumerMessage, MessageOutcome } from './types.js';
import { reportUnexpected, unexpectedOutcome } from './unexpected.js';

/**
 * Runs a message under `commit: 'event'`, or reports its outcome decided already (`decided`),
 * containing an unexpected error (a logger, metrics sink or tracker that throws) as the batch path
 * does: the message keeps an outcome it had (rejected, skipped, failed), else it fails and SQS
 * delivers it again, a duplicate then if its event was committed; the error is logged, and the
 * batch's other messages keep their outcomes.
 */
async function settleMessage(
  context: BatchWorkerContext,
  index: number,
  decided: MessageOutcome | undefined,
  work: (progress: MessageProgress) => Promise<MessageOutcome>,
): Promise<MessageOutcome> {
  const message = context.messages[index] as ConsumerMessage;
  const ready = context.prepared[index] as PreparedMessage;
  // Its events' outcomes as they are known, for the outcome an error leaves it with.
  const progress: MessageProgress = { outcomes: [], reported: 0 };
  try {
    return await work(progress);
  } catch (error) {
    const failure = asError(error);
    const outcome = decided ?? unexpectedOutcome(message, ready, progress, failure);
    const { deps, reporter } = context;
    reportUnexpected(
      deps.consumer,
      deps.logger,
      reporter,
      [outcome],
      failure,
      'Running or reporting a message failed unexpectedly; unless its outcome was decided already (rejected, skipped, failed, or every event handled and reported), it failed and is delivered again',
    );
    return outcome;
  }
}

/**
 * Runs the messages of a FIFO group (or one message of a standard queue) under `commit: 'event'`,
 * each event committing its own transaction; the group stops at its first failure and its later
 * messages are skipped. Never throws.
 */
export async function runEventGroup(context: BatchWorkerContext, group: readonly number[]): Promise<void> {
  const { deps, messages, prepared, outcomes, reporter } = context;
  let failedMessageId: string | undefined;
  for (const index of group) {
    const message = messages[index] as ConsumerMessage;
    if (failedMessageId !== undefined) {
      const skipped: MessageOutcome = {
        status: 'skipped',
        messageId: message.messageId,
        reason: 'EARLIER_MESSAGE_OF_GROUP_FAILED',
        failedMessageId,
      };
      outcomes[index] = await settleMessage(context, index, skipped, async () => {
        reporter.outcome(skipped);
        return skipped;
      });
      continue;
    }
    const ready = prepared[index] as PreparedMessage;
    // Each event is reported as it runs; a batch message's events run in order, and its first failure ends it.
    const outcome = await settleMessage(context, index, undefined, (progress) =>
      traceMessage(context.tracing, message, ready, async () => {
        if (ready.status === 'done') {
          reporter.outcome(ready.outcome);
          return ready.outcome;
        }
        return runEvents(deps, message, ready, context, progress);
      }),
    );
    outcomes[index] = outcome;
    if ((outcome.status === 'failed' || outcome.status === 'rejected') && message.messageGroupId !== undefined) {
      failedMessageId = message.messageId;
    }
  }
}
