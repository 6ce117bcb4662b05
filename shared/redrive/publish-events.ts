import { PublishBatchCommand, type PublishBatchRequestEntry, type SNSClient } from '@aws-sdk/client-sns';
import { MAX_MESSAGE_BYTES, messageAttributes, messageSize } from '../envelope.js';
import { messageGroupId } from '../relay/publish-entry.js';

/** One event to publish again exactly as the relay did: same body, attributes and ids. */
export interface RepublishEvent {
  /** The caller's key for this event, unique within one call. */
  readonly key: string;
  readonly body: string;
  readonly eventId: string;
  readonly type: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
}

export interface PublishEventsResult {
  readonly succeeded: ReadonlySet<string>;
  readonly failed: ReadonlyMap<string, string>;
}

/** A topic is FIFO when its name (the ARN's last part) ends in `.fifo`. */
export const isFifoTopicArn = (topicArn: string): boolean => topicArn.endsWith('.fifo');

const MAX_ENTRIES = 10;

function entryOf(event: RepublishEvent, entryId: string, fifo: boolean): PublishBatchRequestEntry {
  return {
    Id: entryId,
    Message: event.body,
    MessageAttributes: messageAttributes(event.type, event.aggregateType),
    // Same group and dedup id as the relay, so a FIFO topic drops a republish of an event it already has.
    ...(fifo ? { MessageGroupId: messageGroupId(event), MessageDeduplicationId: event.eventId } : {}),
  };
}

/**
 * Publishes events to one topic in `PublishBatch` calls of at most 10 entries and 256 KB, in
 * order. Once an event of an aggregate fails, the later events of that aggregate are not
 * published ahead of it and count as failed.
 *
 * @example
 * ```ts
 * const { succeeded, failed } = await publishEvents(sns, topicArn, events);
 * ```
 */
export async function publishEvents(sns: SNSClient, topicArn: string, events: readonly RepublishEvent[]): Promise<PublishEventsResult> {
  const fifo = isFifoTopicArn(topicArn);
  const succeeded = new Set<string>();
  const failed = new Map<string, string>();
  const blocked = new Map<string, string>();
  let index = 0;
  while (index < events.length) {
    const batch: RepublishEvent[] = [];
    let bytes = 0;
    while (index < events.length && batch.length < MAX_ENTRIES) {
      const event = events[index] as RepublishEvent;
      const size = messageSize(event.body, event.type, event.aggregateType);
      if (batch.length > 0 && bytes + size > MAX_MESSAGE_BYTES) break;
      index++;
      const aggregate = `${event.aggregateType}#${event.aggregateId}`;
      const blocker = blocked.get(aggregate);
      if (blocker !== undefined) {
        failed.set(event.key, `not published: earlier event ${blocker} of aggregate ${aggregate} failed`);
        continue;
      }
      batch.push(event);
      bytes += size;
    }
    if (batch.length === 0) continue;
    try {
      const output = await sns.send(
        new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: batch.map((e, i) => entryOf(e, String(i), fifo)) }),
      );
      for (const ok of output.Successful ?? []) succeeded.add((batch[Number(ok.Id)] as RepublishEvent).key);
      for (const bad of output.Failed ?? []) {
        const event = batch[Number(bad.Id)] as RepublishEvent;
        failed.set(event.key, `${bad.Code}: ${bad.Message ?? 'publish failed'}`);
        blocked.set(`${event.aggregateType}#${event.aggregateId}`, event.eventId);
      }
    } catch (error) {
      for (const event of batch) {
        failed.set(event.key, `PublishBatch failed: ${(error as Error).message}`);
        blocked.set(`${event.aggregateType}#${event.aggregateId}`, event.eventId);
      }
    }
  }
  return { succeeded, failed };
}
