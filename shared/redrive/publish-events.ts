import { PublishBatchCommand, type PublishBatchCommandOutput, type PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { isFifoTopicArn } from '../aws/sns-topic-arn.js';
import { type BackoffOptions, backoffDelay, sleep } from '../backoff.js';
import { MAX_MESSAGE_BYTES, type MessageTrace, messageAttributes, messageSize } from '../envelope.js';
import { REDRIVE_READ_RETRY } from '../read-retry.js';
import { entryFailureKind, requestErrorKind, requestFailureKind } from '../relay/failure-kind.js';
import { messageGroupId } from '../relay/publish-entry.js';
import type { PublishBatchClient } from '../relay/types.js';

/** One event to publish again exactly as the relay did: same body, attributes and ids. */
export interface RepublishEvent {
  /** The caller's key for this event, unique within one call. */
  readonly key: string;
  readonly body: string;
  readonly eventId: string;
  readonly type: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  /** The event's trace context, sent as the relay sends it: `traceparent` and `tracestate` attributes. */
  readonly trace?: MessageTrace | undefined;
}

/**
 * Aggregates (`<aggregateType>#<aggregateId>`) whose event failed to publish, each with the id of
 * the first event of it that failed. One redrive run shares one map across all its `publishEvents` calls, so no later
 * event of such an aggregate is published in the run, whichever message or record it comes from.
 */
export type BlockedAggregates = Map<string, string>;

export interface PublishEventsResult {
  readonly succeeded: ReadonlySet<string>;
  readonly failed: ReadonlyMap<string, string>;
  /** Events SNS refused for good that `onRejected` dead-lettered: neither published nor failed. */
  readonly deadLettered: ReadonlySet<string>;
}

/**
 * Dead-letters an event SNS refuses for good (the relay's `PUBLISH_REJECTED`: an entry refused as
 * the sender's fault, a request of it alone refused so, a message over the size limit): `undefined`
 * once the dead letter is sent, else why it was not (the event then fails, and blocks its aggregate).
 */
export type OnRejected = (event: RepublishEvent, detail: string) => Promise<string | undefined>;

/** How {@link publishEvents} sends again what failed for a passing reason. */
export interface PublishRetryOptions {
  /** @default REDRIVE_READ_RETRY: 4 attempts in all, backing off from 200 ms to 5 s */
  readonly retry?: BackoffOptions;
  /** Ends the waits before a retry: what was still to be sent again fails (and stays). */
  readonly signal?: AbortSignal | undefined;
  /** Without it, an event SNS refuses for good fails, as one failed for any other reason. */
  readonly onRejected?: OnRejected | undefined;
}

const MAX_ENTRIES = 10;

function entryOf(event: RepublishEvent, entryId: string, fifo: boolean): PublishBatchRequestEntry {
  return {
    Id: entryId,
    Message: event.body,
    MessageAttributes: messageAttributes(event.type, event.aggregateType, event.trace),
    // Same group and dedup id as the relay, so a FIFO topic drops a republish of an event it already has.
    ...(fifo ? { MessageGroupId: messageGroupId(event), MessageDeduplicationId: event.eventId } : {}),
  };
}

/**
 * Publishes events to one topic in `PublishBatch` calls of at most 10 entries and 256 KB, in
 * order. An entry SNS fails for a passing reason (throttling, a server error), or a request that
 * fails so, is sent again after a backoff, up to `retry.maxAttempts` in all, before the next
 * request goes out. Once an event of an aggregate fails, the later events of that aggregate are
 * not published ahead of it and count as failed. `blocked` carries the failed aggregates from one
 * call to the next: pass the same map to every call of a run, and it is updated in place.
 *
 * @example
 * ```ts
 * const blocked: BlockedAggregates = new Map();
 * const { succeeded, failed } = await publishEvents(sns, topicArn, events, blocked);
 * ```
 */
export async function publishEvents(
  sns: PublishBatchClient,
  topicArn: string,
  events: readonly RepublishEvent[],
  blocked: BlockedAggregates = new Map(),
  { retry = REDRIVE_READ_RETRY, signal, onRejected }: PublishRetryOptions = {},
): Promise<PublishEventsResult> {
  const fifo = isFifoTopicArn(topicArn);
  const stopped = (): boolean => signal?.aborted === true;
  const succeeded = new Set<string>();
  const failed = new Map<string, string>();
  const deadLettered = new Set<string>();
  // The first event of an aggregate that failed is the one the later ones wait behind.
  const fail = (event: RepublishEvent, reason: string): void => {
    failed.set(event.key, reason);
    const aggregate = `${event.aggregateType}#${event.aggregateId}`;
    if (!blocked.has(aggregate)) blocked.set(aggregate, event.eventId);
  };
  // Sent before the next request goes out, so no later event of its aggregate overtakes its dead letter (as the relay does).
  const reject = async (event: RepublishEvent, detail: string): Promise<void> => {
    const unsent = await (onRejected as OnRejected)(event, detail);
    if (unsent === undefined) deadLettered.add(event.key);
    else fail(event, `${detail}; not dead-lettered: ${unsent}`);
  };
  let index = 0;
  while (index < events.length) {
    const batch: RepublishEvent[] = [];
    // SNS answers each entry on its own: an aggregate's second event in one request could be
    // published while its first fails, so it waits for the next request.
    const inBatch = new Set<string>();
    let bytes = 0;
    while (index < events.length && batch.length < MAX_ENTRIES) {
      const event = events[index] as RepublishEvent;
      const size = messageSize(event.body, event.type, event.aggregateType, event.trace);
      const aggregate = `${event.aggregateType}#${event.aggregateId}`;
      if (batch.length > 0 && (bytes + size > MAX_MESSAGE_BYTES || inBatch.has(aggregate))) break;
      index++;
      const blocker = blocked.get(aggregate);
      if (blocker !== undefined) {
        failed.set(event.key, `not published: earlier event ${blocker} of aggregate ${aggregate} failed`);
        continue;
      }
      if (size > MAX_MESSAGE_BYTES && onRejected !== undefined) {
        // Alone in its request (the batch is empty): SNS would refuse it, so it is dead-lettered unsent, as the relay does.
        await reject(event, `message is ${size} bytes; allowed: at most ${MAX_MESSAGE_BYTES} bytes`);
        break;
      }
      batch.push(event);
      inBatch.add(aggregate);
      bytes += size;
    }
    if (batch.length === 0) continue;
    // Entries still to send, by their index in `batch`; the entry ids stay those indexes.
    let pending = batch.map((_, i) => i);
    for (let attempt = 1; pending.length > 0; attempt++) {
      const last = attempt >= retry.maxAttempts;
      const again: number[] = [];
      let output: PublishBatchCommandOutput;
      try {
        output = await sns.send(
          new PublishBatchCommand({
            TopicArn: topicArn,
            PublishBatchRequestEntries: pending.map((i) => entryOf(batch[i] as RepublishEvent, String(i), fifo)),
          }),
        );
      } catch (error) {
        if (!last && requestErrorKind(error) === 'transient' && !stopped()) {
          await sleep(backoffDelay(retry, attempt), signal);
          if (!stopped()) continue;
        }
        if (onRejected !== undefined && requestFailureKind(error) === 'rejected') {
          // Refused as the sender's fault: alone, the event's own refusal; with others, each is sent alone (as the relay does), one aggregate each.
          if (pending.length === 1)
            await reject(batch[pending[0] as number] as RepublishEvent, `PublishBatch refused it: ${(error as Error).message}`);
          else
            for (const i of pending) {
              const one = await publishEvents(sns, topicArn, [batch[i] as RepublishEvent], blocked, { retry, signal, onRejected });
              for (const key of one.succeeded) succeeded.add(key);
              for (const key of one.deadLettered) deadLettered.add(key);
              for (const [key, reason] of one.failed) failed.set(key, reason);
            }
        } else for (const i of pending) fail(batch[i] as RepublishEvent, `PublishBatch failed: ${(error as Error).message}`);
        break;
      }
      for (const ok of output.Successful ?? []) succeeded.add((batch[Number(ok.Id)] as RepublishEvent).key);
      for (const bad of output.Failed ?? []) {
        const event = batch[Number(bad.Id)] as RepublishEvent;
        if (!last && entryFailureKind(bad) === 'transient') {
          again.push(Number(bad.Id));
          continue;
        }
        const reason = `${bad.Code}: ${bad.Message ?? 'publish failed'}`;
        if (entryFailureKind(bad) === 'rejected' && onRejected !== undefined) await reject(event, reason);
        else fail(event, reason);
      }
      // An entry SNS answered neither way is not known to be published: it fails, and blocks its aggregate.
      const answered = new Set([...(output.Successful ?? []), ...(output.Failed ?? [])].map((e) => e.Id));
      for (const i of pending) if (!answered.has(String(i))) fail(batch[i] as RepublishEvent, 'SNS returned no result for the entry');
      pending = again;
      if (pending.length === 0) break;
      await sleep(backoffDelay(retry, attempt), signal);
      if (stopped()) {
        for (const i of pending) fail(batch[i] as RepublishEvent, 'not sent again: the run was stopped while it waited to retry');
        break;
      }
    }
  }
  return { succeeded, failed, deadLettered };
}
