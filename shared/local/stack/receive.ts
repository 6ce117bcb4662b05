import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sleep } from '../../backoff.js';
import { parseMessage } from '../../consumer/parse.js';
import { MAX_WAIT_TIME_SECONDS } from '../../consumer/poll-options.js';
import type { OutboxEnvelope } from '../../envelope.js';
import type { ReceivedMessage } from './test-stack-types.js';

/** Pause between short polls in the last second before the deadline. */
const SHORT_POLL_PAUSE_MS = 50;

function toReceived<TData>(message: Message): ReceivedMessage<TData> {
  const body = message.Body ?? '';
  const parsed = parseMessage(body);
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    if (value.StringValue !== undefined) attributes[name] = value.StringValue;
  }
  const system = message.Attributes ?? {};
  return {
    ...(parsed.status === 'parsed'
      ? { envelope: parsed.envelope as OutboxEnvelope<TData>, envelopes: parsed.envelopes as readonly OutboxEnvelope<TData>[] }
      : { problem: parsed.error.message }),
    body,
    attributes,
    messageId: message.MessageId ?? '',
    ...(system.MessageGroupId === undefined ? {} : { messageGroupId: system.MessageGroupId }),
    ...(system.MessageDeduplicationId === undefined ? {} : { deduplicationId: system.MessageDeduplicationId }),
    receiveCount: Number(system.ApproximateReceiveCount ?? 1),
  };
}

async function deleteMessages(sqs: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  const { Failed = [] } = await sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
    }),
  );
  if (Failed.length > 0) {
    const reasons = Failed.map((f) => `${f.Code}: ${f.Message}`).join('; ');
    throw new Error(`${Failed.length} of ${messages.length} messages received from ${queueUrl} could not be deleted (${reasons})`);
  }
}

/** How {@link receiveMessages} waits, and what it says when `signal` ends the wait. */
export interface ReceiveWait {
  readonly count: number;
  readonly timeoutMs: number;
  /** Ends the wait at once, a long poll in flight included: the stack is stopping. */
  readonly signal?: AbortSignal;
  /** The error to throw when `signal` ends the wait, given how many messages had arrived (and were deleted). */
  readonly stopped?: (received: number) => Error;
}

/**
 * Takes up to `count` messages off a queue, deleting each batch as it arrives, and resolves once
 * `count` have arrived or `timeoutMs` has passed (with those that did). Long polls never run
 * past the deadline, and none is cut short but by `signal`: a receive abandoned in flight would
 * hide its messages for the visibility timeout, which matters only while the stack runs.
 *
 * @example
 * ```ts
 * const [message] = await receiveMessages(sqs, queueUrl, { count: 1, timeoutMs: 10_000 });
 * ```
 */
export async function receiveMessages<TData = unknown>(
  sqs: SQSClient,
  queueUrl: string,
  { count, timeoutMs, signal, stopped = () => signal?.reason }: ReceiveWait,
): Promise<ReceivedMessage<TData>[]> {
  const received: ReceivedMessage<TData>[] = [];
  const deadline = Date.now() + timeoutMs;
  // Read anew each time: the signal can abort while a request is in flight.
  const aborted = () => signal?.aborted === true;
  do {
    if (aborted()) throw stopped(received.length);
    const waitSeconds = Math.min(MAX_WAIT_TIME_SECONDS, Math.max(0, Math.floor((deadline - Date.now()) / 1000)));
    const { Messages = [] } = await sqs
      .send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(10, count - received.length),
          WaitTimeSeconds: waitSeconds,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['ApproximateReceiveCount', 'MessageGroupId', 'MessageDeduplicationId'],
        }),
        signal === undefined ? {} : { abortSignal: signal },
      )
      .catch((error: unknown) => {
        throw aborted() ? stopped(received.length) : error;
      });
    if (Messages.length > 0) {
      await deleteMessages(sqs, queueUrl, Messages);
      received.push(...Messages.map((m) => toReceived<TData>(m)));
    } else if (waitSeconds === 0) {
      await sleep(Math.max(0, Math.min(SHORT_POLL_PAUSE_MS, deadline - Date.now())), signal);
    }
  } while (received.length < count && Date.now() < deadline);
  return received;
}
