import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { CONTENT_TYPE_ATTRIBUTE, REPLAY_ATTRIBUTE, TRACEPARENT_ATTRIBUTE, TRACESTATE_ATTRIBUTE } from '../envelope.js';
import { checkedRunOf } from './checked-process.js';
import type { Consumer } from './consumer.js';
import { fromSqsMessage, queueNameOf } from './messages.js';
import { describeCause, PollError, type PollPhase, type PollResult } from './poll-errors.js';
import { MIN_VISIBILITY_TIMEOUT_SECONDS, VISIBILITY_TIMEOUT_ALLOWED, validatePollOptions } from './poll-options.js';
import { CHECKED_ATTRIBUTES } from './trust.js';

export type { PollResult } from './poll-errors.js';

/** Options of `pollOnce`: the queue to receive one batch from, the consumer that processes it, and how it is received. */
export interface PollOptions {
  /** The client every SQS call of the poll goes through. */
  readonly sqs: SQSClient;
  /** The queue's http(s) URL, as SQS gives it; anything else is refused before SQS is called. */
  readonly queueUrl: string;
  /** The consumer (from `createConsumer`) whose `process` handles each received batch. */
  readonly consumer: Pick<Consumer, 'process'>;
  /** 1–10. @default 10 */
  readonly maxMessages?: number;
  /** Long-poll wait, 0–20 s. @default 0 */
  readonly waitTimeSeconds?: number;
  /**
   * How long received messages stay hidden from other receivers, 3–43200 s (ReceiveMessage's
   * `VisibilityTimeout`; a queue's own of less is refused too: a batch's claims lapse up to 2 s
   * before it ends, so 2 s or less would leave them no time). Claims (`idempotency: 'claim'`) lapse by the time it ends, so a message whose
   * worker died is taken over as soon as SQS delivers it again, unless `inbox.claimTimeoutSeconds`
   * is set. Handle a batch within it: a message still being handled when it ends is delivered again.
   * @default the queue's visibility timeout, read with GetQueueAttributes (again after 5 minutes)
   */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Make failed messages visible again after this many seconds (0–43200) instead of at the end of
   * their visibility timeout. @default undefined — the visibility timeout, as Lambda does
   */
  readonly retryDelaySeconds?: number;
}

/**
 * How long before the clock read that follows a receive's answer SQS may have handed its messages
 * out (and started their visibility timeout): the answer's way back, its parsing, a busy event loop.
 */
export const HAND_OUT_MARGIN_MS = 1_000;

/**
 * When a batch's claims lapse, in epoch seconds: no later than the end of its messages' visibility
 * timeout, so the first redelivery after a worker died takes its claims over instead of finding
 * them held. SQS starts the timeout when it hands the messages out, between `sentAt` (read before
 * the receive was sent: the attempt that answered, after any retries of the SDK, went out later)
 * and `answeredAt`. A long poll may wait up to 20 s in between, so the hand-out is taken as the
 * later of `sentAt` and `answeredAt` less {@link HAND_OUT_MARGIN_MS}, rounded down to the second
 * (a takeover compares whole seconds).
 */
export function claimsLapseAt(sentAt: number, answeredAt: number, visibilityTimeoutSeconds: number): number {
  return Math.floor(Math.max(sentAt, answeredAt - HAND_OUT_MARGIN_MS) / 1000) + visibilityTimeoutSeconds;
}

/** How long a queue's visibility timeout, once read, is used before it is read again. */
const VISIBILITY_TIMEOUT_TTL_MS = 5 * 60_000;
const visibilityTimeouts = new WeakMap<SQSClient, Map<string, { readonly seconds: number; readonly readAt: number }>>();

/** The queue's own visibility timeout, read with GetQueueAttributes and kept per client and queue for a while. */
async function queueVisibilityTimeout(sqs: SQSClient, queueUrl: string, signal: AbortSignal | undefined): Promise<number> {
  const byQueue = visibilityTimeouts.get(sqs) ?? new Map();
  visibilityTimeouts.set(sqs, byQueue);
  const known = byQueue.get(queueUrl);
  if (known !== undefined && Date.now() - known.readAt < VISIBILITY_TIMEOUT_TTL_MS) return known.seconds;
  const { Attributes } = await step(
    'queue-attributes',
    queueUrl,
    'nothing was received (pass visibilityTimeoutSeconds to poll without reading it)',
    () => sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] }), { abortSignal: signal }),
  );
  const seconds = Number(Attributes?.VisibilityTimeout);
  if (Attributes?.VisibilityTimeout === undefined || !Number.isInteger(seconds) || seconds < 0) {
    throw new PollError(
      'queue-attributes',
      queueUrl,
      `GetQueueAttributes gave no usable VisibilityTimeout (got ${JSON.stringify(Attributes?.VisibilityTimeout)}); nothing was received; pass visibilityTimeoutSeconds to poll without reading it`,
    );
  }
  if (seconds < MIN_VISIBILITY_TIMEOUT_SECONDS) {
    throw new PollError(
      'queue-attributes',
      queueUrl,
      `the queue's VisibilityTimeout is ${seconds} s; allowed: ${VISIBILITY_TIMEOUT_ALLOWED}; nothing was received; raise the queue's visibility timeout, or pass visibilityTimeoutSeconds to poll with another`,
    );
  }
  byQueue.set(queueUrl, { seconds, readAt: Date.now() });
  return seconds;
}

/** Runs one phase of a poll, turning its failure into a {@link PollError} that says what became of the messages. */
async function step<T>(phase: PollPhase, queueUrl: string, consequence: string, run: () => Promise<T>, batch?: PollResult): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new PollError(phase, queueUrl, `${describeCause(error)}; ${consequence}`, {
      cause: error,
      ...(batch === undefined ? {} : { batch }),
    });
  }
}

/**
 * One receive → process → acknowledge round on an SQS queue, with the same semantics as an
 * SQS-triggered Lambda with `ReportBatchItemFailures`: acknowledged messages are deleted, the
 * others stay on the queue and come back (to the DLQ after `maxReceiveCount`). Claims taken for
 * the batch lapse by the time its visibility timeout ends. A failure is a {@link PollError} naming its
 * phase, with the batch's outcomes when the consumer had processed it. To poll for as long as a
 * process runs, with backoff and concurrency, use {@link createPoller}.
 *
 * @example
 * ```ts
 * const { received, acknowledged, result } = await pollOnce({ sqs, queueUrl, consumer, waitTimeSeconds: 20 });
 * ```
 */
export async function pollOnce(options: PollOptions): Promise<PollResult> {
  validatePollOptions(options);
  return pollQueue(options);
}

/**
 * {@link pollOnce} on options already checked. `signal` aborts the receive (and the read of the
 * queue's visibility timeout) only: a batch once received is processed and acknowledged.
 */
export async function pollQueue(options: PollOptions, signal?: AbortSignal): Promise<PollResult> {
  const { sqs, queueUrl } = options;
  const visibilityTimeout = options.visibilityTimeoutSeconds ?? (await queueVisibilityTimeout(sqs, queueUrl, signal));
  const sentAt = Date.now();
  const { Messages = [] } = await step(
    'receive',
    queueUrl,
    'no message reached the consumer (any SQS handed out to this receive come back after their visibility timeout)',
    () =>
      sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: options.maxMessages ?? 10,
          WaitTimeSeconds: options.waitTimeSeconds ?? 0,
          VisibilityTimeout: visibilityTimeout,
          MessageSystemAttributeNames: ['MessageGroupId', 'ApproximateReceiveCount'],
          // Checked against the envelope: subscription filters decided on them; the replay marker; and, as the
          // Lambda handler gets them, the trace context a message's span falls back to when its body cannot be read.
          MessageAttributeNames: [
            ...CHECKED_ATTRIBUTES,
            CONTENT_TYPE_ATTRIBUTE,
            REPLAY_ATTRIBUTE,
            TRACEPARENT_ATTRIBUTE,
            TRACESTATE_ATTRIBUTE,
          ],
        }),
        { abortSignal: signal },
      ),
  );
  const claimExpiresAt = claimsLapseAt(sentAt, Date.now(), visibilityTimeout);
  // The messages' spans name the queue they come from.
  const queueName = queueNameOf(queueUrl);
  const named = queueName === undefined ? {} : { queueName };
  const result = await step(
    'process',
    queueUrl,
    `the consumer threw on the batch of ${Messages.length}, so none was deleted: they come back after their visibility timeout, and any it had handled are acknowledged then as duplicates`,
    () => {
      // fromSqsMessage checks each message; a consumer made by createConsumer takes them without checking them again.
      const messages = Messages.map((message) => ({ ...fromSqsMessage(message), ...named }));
      const checkedRun = checkedRunOf(options.consumer.process);
      return checkedRun === undefined ? options.consumer.process(messages, { claimExpiresAt }) : checkedRun(messages, claimExpiresAt);
    },
  );
  const failedIds = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
  const entries = (messages: Message[]) => messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' }));
  const done = Messages.filter((m) => !failedIds.has(m.MessageId ?? ''));
  const failed = Messages.filter((m) => failedIds.has(m.MessageId ?? ''));
  const batch = { received: Messages.length, acknowledged: 0, failed: failed.length, result };
  // A message SQS failed to delete comes back, and the inbox acknowledges it then as a duplicate.
  const notDeleted =
    done.length === 0
      ? 0
      : ((
          await step(
            'delete',
            queueUrl,
            `the batch was processed (its outcomes are in batch), but its ${done.length} acknowledged messages were not deleted: they come back after their visibility timeout and are acknowledged then as duplicates`,
            () => sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries(done) })),
            batch,
          )
        ).Failed?.length ?? 0);
  const polled = { ...batch, acknowledged: done.length - notDeleted };
  if (failed.length > 0 && options.retryDelaySeconds !== undefined) {
    const retryDelaySeconds = options.retryDelaySeconds;
    await step(
      'change-visibility',
      queueUrl,
      `the batch was processed and acknowledged (its outcomes are in batch), but its ${failed.length} failed messages come back at the end of their visibility timeout instead of after retryDelaySeconds`,
      () =>
        sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: queueUrl,
            Entries: entries(failed).map((e) => ({ ...e, VisibilityTimeout: retryDelaySeconds })),
          }),
        ),
      polled,
    );
  }
  return polled;
}
