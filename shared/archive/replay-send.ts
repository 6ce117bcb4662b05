import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type BackoffOptions, backoffDelay, sleep } from '../backoff.js';
import { MAX_MESSAGE_BYTES, messageAttributes, messageSize, REPLAY_ATTRIBUTE } from '../envelope.js';
import type { RateLimiter } from '../rate-limit.js';
import { entryFailureKind, requestErrorKind } from '../relay/failure-kind.js';
import { messageGroupId } from '../relay/publish-entry.js';
import type { ArchivedEvent } from './reader-decode.js';
import type { RefusedEvent } from './replay-types.js';

/** SendMessageBatch takes at most 10 entries. */
export const MAX_BATCH_ENTRIES = 10;

/** Sending again what the queue failed for a passing reason: 6 attempts in all, from 200 ms up to 10 s apart. */
export const SEND_RETRY: BackoffOptions = { maxAttempts: 6, baseDelayMs: 200, maxDelayMs: 10_000 };

/** Where and how a replay sends. */
export interface SendTarget {
  readonly sqs: Pick<SQSClient, 'send'>;
  readonly queueUrl: string;
  readonly fifo: boolean;
  readonly replayId: string;
  readonly concurrency: number;
  readonly limiter: Pick<RateLimiter, 'take'>;
  readonly retry?: BackoffOptions;
  readonly signal?: AbortSignal | undefined;
}

/** What a window's sending did; `onAcknowledged` has had every event the queue took. */
export interface WindowSent {
  readonly refused: RefusedEvent[];
  readonly retried: number;
  /** The signal stopped it before every event went. */
  readonly stopped: boolean;
}

/** The queue cannot take this replay's messages at all (permission, queue gone, retries used up): the run stops. */
export class SendHaltedError extends Error {}

const refusal = (event: ArchivedEvent, reason: string): RefusedEvent => ({
  eventId: event.id,
  type: event.type,
  aggregateType: event.aggregateType,
  aggregateId: event.aggregateId,
  reason,
});

/**
 * The SQS entry of an event: its envelope unchanged, the relay's attributes (its trace context's
 * too) and the replay's mark: at most 5 of the 10 attributes SQS takes.
 */
export function replayEntry(event: ArchivedEvent, entryId: string, replayId: string, fifo: boolean): SendMessageBatchRequestEntry {
  return {
    Id: entryId,
    MessageBody: event.body,
    MessageAttributes: {
      ...messageAttributes(event.type, event.aggregateType, event.trace),
      [REPLAY_ATTRIBUTE]: { DataType: 'String', StringValue: replayId },
    },
    // The relay's group (one per aggregate) and dedup id: a FIFO queue drops an event it already has within 5 minutes.
    ...(fifo ? { MessageGroupId: messageGroupId(event), MessageDeduplicationId: event.id } : {}),
  };
}

/** Bytes an entry counts against the request's 256 KiB: body and attribute names, types and values. */
export const replayEntrySize = (event: ArchivedEvent, replayId: string): number =>
  messageSize(event.body, event.type, event.aggregateType, event.trace) +
  Buffer.byteLength(REPLAY_ATTRIBUTE) +
  6 +
  Buffer.byteLength(replayId);

interface AggregateQueue {
  readonly events: readonly ArchivedEvent[];
  next: number;
}

/**
 * Sends a window's events, each aggregate's in the order given, in `SendMessageBatch` requests of
 * up to 10 events of 10 different aggregates (never two of one aggregate in a request or in
 * flight: SQS answers each entry on its own, so a later event could land while an earlier one
 * is retried). `concurrency` requests go at once. An entry failed for a passing reason is sent
 * again after a backoff, its aggregate waiting; one the queue refuses for good is reported with
 * every later event of its aggregate (held back, never sent out of order). A failure of the
 * deployment (permission, queue gone, KMS) or retries used up throws a {@link SendHaltedError}
 * after the requests in flight are answered.
 */
export async function sendWindow(
  target: SendTarget,
  aggregates: ReadonlyMap<string, readonly ArchivedEvent[]>,
  onAcknowledged: (events: readonly ArchivedEvent[]) => void,
): Promise<WindowSent> {
  const retry = target.retry ?? SEND_RETRY;
  const stopped = () => target.signal?.aborted === true;
  const queues: AggregateQueue[] = [];
  for (const events of aggregates.values()) if (events.length > 0) queues.push({ events, next: 0 });
  const ready: AggregateQueue[] = [...queues];
  let head = 0;
  let inFlight = 0;
  let halted: unknown;
  let wake: (() => void) | undefined;
  let wakeup = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const notify = () => {
    wake?.();
    wakeup = new Promise<void>((resolve) => {
      wake = resolve;
    });
  };
  const refused: RefusedEvent[] = [];
  let retried = 0;

  const release = (queue: AggregateQueue) => {
    if (queue.next < queue.events.length) ready.push(queue);
  };
  const refuse = (queue: AggregateQueue, reason: string) => {
    const first = queue.events[queue.next] as ArchivedEvent;
    refused.push(refusal(first, reason));
    for (const later of queue.events.slice(queue.next + 1)) {
      refused.push(refusal(later, `held back: earlier event ${first.id} of its aggregate was refused`));
    }
    queue.next = queue.events.length;
  };

  const sendBatch = async (batch: AggregateQueue[]) => {
    let pending = batch.map((_, i) => i);
    for (let attempt = 1; pending.length > 0; attempt++) {
      const entries = pending.map((i) =>
        replayEntry(batch[i]?.events[batch[i]?.next as number] as ArchivedEvent, String(i), target.replayId, target.fifo),
      );
      let output: SendMessageBatchCommandOutput;
      try {
        output = await target.sqs.send(new SendMessageBatchCommand({ QueueUrl: target.queueUrl, Entries: entries }));
      } catch (error) {
        if (requestErrorKind(error) !== 'transient')
          throw new SendHaltedError(`SendMessageBatch to ${target.queueUrl} failed: ${(error as Error).message}`, { cause: error });
        if (attempt >= retry.maxAttempts)
          throw new SendHaltedError(
            `SendMessageBatch to ${target.queueUrl} still failing after ${attempt} attempts: ${(error as Error).message}`,
            { cause: error },
          );
        retried += pending.length;
        await sleep(backoffDelay(retry, attempt), target.signal);
        if (stopped()) return;
        continue;
      }
      const acknowledged: ArchivedEvent[] = [];
      for (const ok of output.Successful ?? []) {
        const queue = batch[Number(ok.Id)] as AggregateQueue;
        acknowledged.push(queue.events[queue.next] as ArchivedEvent);
        queue.next++;
      }
      if (acknowledged.length > 0) onAcknowledged(acknowledged);
      const again: number[] = [];
      for (const bad of output.Failed ?? []) {
        const queue = batch[Number(bad.Id)] as AggregateQueue;
        const kind = entryFailureKind(bad);
        const reason = `${bad.Code ?? 'failed'}: ${bad.Message ?? 'SendMessageBatch entry failed'}`;
        if (kind === 'rejected') refuse(queue, reason);
        else if (kind === 'deployment') throw new SendHaltedError(`the queue ${target.queueUrl} refused an entry: ${reason}`);
        else if (attempt >= retry.maxAttempts) throw new SendHaltedError(`an entry still failing after ${attempt} attempts: ${reason}`);
        else again.push(Number(bad.Id));
      }
      const answered = new Set([...(output.Successful ?? []), ...(output.Failed ?? [])].map((e) => e.Id));
      for (const i of pending) if (!answered.has(String(i))) again.push(i);
      pending = again;
      if (pending.length === 0) return;
      retried += pending.length;
      await sleep(backoffDelay(retry, attempt), target.signal);
      if (stopped()) return;
    }
  };

  const worker = async () => {
    while (halted === undefined && !stopped()) {
      const batch: AggregateQueue[] = [];
      let bytes = 0;
      while (batch.length < MAX_BATCH_ENTRIES && head < ready.length) {
        const queue = ready[head] as AggregateQueue;
        const size = replayEntrySize(queue.events[queue.next] as ArchivedEvent, target.replayId);
        // An envelope over the limit goes alone: the queue may take up to 1 MiB, or refuse it for good.
        if (batch.length > 0 && bytes + size > MAX_MESSAGE_BYTES) break;
        head++;
        batch.push(queue);
        bytes += size;
      }
      if (head > 1024 && head * 2 > ready.length) {
        ready.splice(0, head);
        head = 0;
      }
      if (batch.length === 0) {
        if (inFlight === 0) return;
        await wakeup;
        continue;
      }
      inFlight++;
      try {
        if (await target.limiter.take(batch.length, target.signal)) await sendBatch(batch);
      } catch (error) {
        halted ??= error;
      } finally {
        inFlight--;
        for (const queue of batch) release(queue);
        notify();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(target.concurrency, queues.length)) }, worker));
  notify();
  if (halted !== undefined) throw halted;
  return { refused, retried, stopped: stopped() && queues.some((q) => q.next < q.events.length) };
}

/**
 * Keeps from a window every event of an aggregate the queue already refused an event of, in this
 * hour or an earlier one: each is reported held back, so an aggregate never arrives with a gap.
 * `refusedBefore` maps an aggregate's key to the id of its refused event.
 */
export function withoutRefused(aggregates: Map<string, ArchivedEvent[]>, refusedBefore: ReadonlyMap<string, string>): RefusedEvent[] {
  const held: RefusedEvent[] = [];
  for (const [key, events] of aggregates) {
    const first = refusedBefore.get(key);
    if (first === undefined) continue;
    for (const event of events) held.push(refusal(event, `held back: earlier event ${first} of its aggregate was refused`));
    aggregates.delete(key);
  }
  return held;
}
