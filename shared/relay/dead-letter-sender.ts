import { SendMessageCommand, type SendMessageCommandOutput } from '@aws-sdk/client-sqs';
import { isFifoQueueUrl, SQS_QUEUE_URL_FORM, sqsQueueUrlFault } from '../aws/sqs-queue-url.js';
import { type BackoffOptions, backoffDelay, sleep } from '../backoff.js';
import { deadLetterBody, RELAY_DEAD_LETTER_KIND, type RelayDeadLetter } from '../dead-letter.js';
import { describeError, requestErrorKind } from './failure-kind.js';

/** The SQS operation the dead-letter sender needs; an `SQSClient` fits. */
export interface DeadLetterClient {
  send(command: SendMessageCommand, options?: { abortSignal?: AbortSignal }): Promise<SendMessageCommandOutput>;
}

export type DeadLetterFields = Omit<RelayDeadLetter, 'kind' | 'version' | 'failedAt'>;

/** What the relay DLQ's URL may be, as its refusals say after `allowed: `. */
export const DEAD_LETTER_QUEUE_URL_ALLOWED = `the URL of a standard SQS queue (not FIFO), ${SQS_QUEUE_URL_FORM}`;

/**
 * What is wrong with `url` as the relay DLQ's, worded to follow "which", or `undefined`: checked
 * where a relay is built, where the deployed relay reads its environment and where a redrive is
 * given the relay DLQ, so all refuse the same URLs. A FIFO queue (SQS names every one `….fifo`)
 * refuses a message without a message group, and a dead letter carries none: every dead letter
 * would be refused, and its record fail on every retry of the batch.
 */
export function deadLetterQueueUrlFault(url: unknown): string | undefined {
  const fault = sqsQueueUrlFault(url);
  if (fault !== undefined) return fault;
  return isFifoQueueUrl(url as string)
    ? 'names a FIFO queue (".fifo"), which refuses every dead letter: a dead letter carries no message group'
    : undefined;
}

export type DeadLetterResult =
  | { readonly status: 'sent' }
  | { readonly status: 'failed'; readonly detail: string }
  /** Not sent, and not refused by the DLQ: a retry was due at or after the deadline, `mayPublish()` refused an attempt, or `signal` cut one short. */
  | { readonly status: 'deadline'; readonly detail: string };

/** Writes relay dead letters to the DLQ, retrying transient SQS failures a bounded number of times. */
export class DeadLetterSender {
  constructor(
    private readonly sqs: DeadLetterClient,
    private readonly queueUrl: string,
    private readonly backoff: BackoffOptions,
  ) {}

  /**
   * Sends the dead letter, stamped `now`; `signal` aborts the request in flight or the wait before
   * a retry, and ends the retries; no retry is made at or after `deadline` (epoch ms), neither one
   * due then nor one whose wait ended past it; `mayPublish` is asked just before every attempt, and
   * one it refuses is not made.
   */
  async send(
    fields: DeadLetterFields,
    {
      now = new Date(),
      signal,
      deadline = Number.POSITIVE_INFINITY,
      mayPublish,
    }: { now?: Date; signal?: AbortSignal; deadline?: number; mayPublish?: () => boolean } = {},
  ): Promise<DeadLetterResult> {
    const letter: RelayDeadLetter = { kind: RELAY_DEAD_LETTER_KIND, version: 1, failedAt: now.toISOString(), ...fields };
    const body = deadLetterBody(letter);
    let lastError: unknown;
    for (let attempt = 1; ; attempt++) {
      if (mayPublish?.() === false) {
        const why = signal?.aborted === true ? `cut short (${describeError(signal.reason)})` : 'refused (mayPublish() returned false)';
        const after = lastError === undefined ? '' : ` after ${describeError(lastError)}`;
        return { status: 'deadline', detail: `sending the dead letter was ${why}${after}` };
      }
      try {
        await this.sqs.send(
          new SendMessageCommand({
            QueueUrl: this.queueUrl,
            MessageBody: body,
            MessageAttributes: { reason: { DataType: 'String', StringValue: fields.reason } },
          }),
          signal === undefined ? undefined : { abortSignal: signal },
        );
        return { status: 'sent' };
      } catch (error) {
        lastError = error;
        if (signal?.aborted === true) {
          // Cut short by the run (the invocation's end, a lost lease), not refused by the DLQ.
          return {
            status: 'deadline',
            detail: `sending the dead letter was cut short (${describeError(signal.reason)}): ${describeError(error)}`,
          };
        }
        if (requestErrorKind(error) === 'permanent' || attempt >= this.backoff.maxAttempts) {
          return { status: 'failed', detail: `relay DLQ rejected the dead letter: ${describeError(error)}` };
        }
        const delay = backoffDelay(this.backoff, attempt);
        if (Date.now() + delay >= deadline) {
          return { status: 'deadline', detail: `the retry of the dead letter was due after the deadline: ${describeError(error)}` };
        }
        // An abort (the invocation's end) cuts the wait short; the next attempt then fails at once and ends the retries.
        await sleep(delay, signal);
        // A timer run late (a blocked event loop) may end the wait past the deadline: no retry then either.
        if (Date.now() >= deadline) {
          return { status: 'deadline', detail: `the retry of the dead letter was due after the deadline: ${describeError(error)}` };
        }
      }
    }
  }
}
