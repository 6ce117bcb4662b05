import type { DeadLetterFields } from './dead-letter-sender.js';
import { type EventItem, headRun, type Lane, type Lanes, type MalformedItem } from './lanes.js';
import { batchSize, entrySize, MAX_BATCH_BYTES, MAX_BATCH_ENTRIES } from './publish-entry.js';

/** One entry of a `PublishBatch` request: a lane's head run, one message of one or several events. */
export interface Entry {
  readonly lane: Lane;
  readonly items: readonly EventItem[];
}

/** What the relay sends next: a `PublishBatch` of up to ten entries, or one lane head's dead letter. */
export type NextSend =
  | { readonly kind: 'publish'; readonly batch: readonly Entry[] }
  | { readonly kind: 'malformed'; readonly lane: Lane; readonly item: MalformedItem }
  | {
      readonly kind: 'dead-letter';
      readonly lane: Lane;
      readonly item: EventItem;
      readonly reason: DeadLetterFields['reason'];
      readonly detail: string;
    };

/**
 * Takes the head runs of up to ten ready lanes of one topic that fit in one request, or the first
 * ready lane head that cannot be published (a malformed record, an unrouted or oversized event, an
 * event SNS refused), to be dead-lettered. The lanes taken are marked busy.
 */
export function takeNextSend(lanes: Lanes, now: number): NextSend | undefined {
  let topicName: string | undefined;
  const batch: Entry[] = [];
  let bytes = 0;
  for (const lane of lanes.ready(now)) {
    const item = lane.items[0]!;
    if (item.kind === 'malformed') {
      lane.busy = true;
      return { kind: 'malformed', lane, item };
    }
    if (item.rejection !== undefined) {
      // Its own request, so the relay DLQ sends count against publishConcurrency like every other.
      lane.busy = true;
      return { kind: 'dead-letter', lane, item, reason: 'PUBLISH_REJECTED', detail: item.rejection };
    }
    if (item.topic === undefined) {
      lane.busy = true;
      return {
        kind: 'dead-letter',
        lane,
        item,
        reason: 'UNKNOWN_ROUTE',
        detail: `aggregate type "${item.message.aggregateType}" has no route`,
      };
    }
    const size = entrySize(item.message);
    if (size > MAX_BATCH_BYTES) {
      lane.busy = true;
      const detail = `message is ${size} bytes; allowed: at most ${MAX_BATCH_BYTES} bytes`;
      return { kind: 'dead-letter', lane, item, reason: 'PUBLISH_REJECTED', detail };
    }
    if (topicName !== undefined && item.topic.name !== topicName) continue;
    if (item.alone && batch.length > 0) continue;
    // The run does not depend on the room left in the request: a retried message carries the same events.
    const items = headRun(lane, MAX_BATCH_BYTES);
    const entryBytes = items.length === 1 ? size : batchSize(items.map((i) => i.message));
    if (bytes + entryBytes > MAX_BATCH_BYTES) continue;
    topicName = item.topic.name;
    bytes += entryBytes;
    batch.push({ lane, items });
    if (item.alone || batch.length === MAX_BATCH_ENTRIES) break;
  }
  if (batch.length === 0) return undefined;
  for (const { lane } of batch) lane.busy = true;
  return { kind: 'publish', batch };
}
