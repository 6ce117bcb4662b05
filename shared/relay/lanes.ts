import type { TopicSettings } from '../config.js';
import type { SlotMessage } from '../envelope.js';
import type { DeadLetterFields } from './dead-letter-sender.js';
import { batchSize } from './publish-entry.js';

/** One event waiting in its aggregate's lane. */
export interface EventItem {
  readonly kind: 'event';
  readonly recordIndex: number;
  readonly message: SlotMessage;
  /** The topic, or `undefined` when the aggregate type has no route (the item goes to the DLQ). */
  readonly topic: TopicSettings | undefined;
  attempts: number;
  /** Sent in a request of its own, after a request it was in failed as a whole for a reason no retry fixes. */
  alone: boolean;
  /** Sent as a message of its own, after SNS refused a batch message it was in for good: only the event at fault is dead-lettered. */
  single: boolean;
  /** Set once SNS refused the event's message for good: the detail of its dead letter, sent next as a request of its own. */
  rejection: string | undefined;
}

/** A record that is not a well-formed slot, waiting in its aggregate's lane for its dead letter. */
export interface MalformedItem {
  readonly kind: 'malformed';
  readonly recordIndex: number;
  readonly letter: DeadLetterFields;
}

export type LaneItem = EventItem | MalformedItem;

/**
 * An aggregate's events of one batch, in stream order. Only the head is ever in flight — one
 * event, or on a batching topic the head run that one message carries ({@link headRun}) — so a
 * later event of the aggregate can never overtake an earlier one, whatever fails.
 */
export interface Lane {
  readonly key: string;
  readonly items: LaneItem[];
  busy: boolean;
  /** Epoch ms before which the head must not be retried. */
  readyAt: number;
  failed: boolean;
}

export const laneKey = (message: Pick<SlotMessage, 'aggregateType' | 'aggregateId'>): string =>
  `${message.aggregateType}#${message.aggregateId}`;

const finished = (lane: Lane): boolean => lane.failed || (lane.items.length === 0 && !lane.busy);

/** The aggregates' lanes of one batch, in the order their first record came. */
export class Lanes {
  private readonly byKey = new Map<string, Lane>();
  private readonly order: Lane[] = [];
  /** Every lane before this index is finished (emptied or failed) for good, so scans start here. */
  private first = 0;

  add(recordIndex: number, messages: readonly SlotMessage[], topic: TopicSettings | undefined): void {
    for (const message of messages)
      this.lane(laneKey(message)).items.push({
        kind: 'event',
        recordIndex,
        message,
        topic,
        attempts: 0,
        alone: false,
        single: false,
        rejection: undefined,
      });
  }

  /** Queues a malformed record's dead letter in the lane of `key` (its aggregate's, when its key names one). */
  addMalformed(recordIndex: number, key: string, letter: DeadLetterFields): void {
    this.lane(key).items.push({ kind: 'malformed', recordIndex, letter });
  }

  private lane(key: string): Lane {
    let lane = this.byKey.get(key);
    if (lane === undefined) {
      lane = { key, items: [], busy: false, readyAt: 0, failed: false };
      this.byKey.set(key, lane);
      this.order.push(lane);
    }
    return lane;
  }

  /** The lanes that may still have work, in order; a large batch's finished lanes are not scanned again. */
  private *open(): Generator<Lane> {
    while (this.first < this.order.length && finished(this.order[this.first]!)) this.first++;
    for (let i = this.first; i < this.order.length; i++) yield this.order[i]!;
  }

  /** Lanes whose head may be sent now. */
  *ready(now: number): Generator<Lane> {
    for (const lane of this.waiting()) if (lane.readyAt <= now) yield lane;
  }

  /** Lanes with events still to send that are not in flight: ready now, or after a backoff. */
  *waiting(): Generator<Lane> {
    for (const lane of this.open()) {
      if (!lane.busy && !lane.failed && lane.items.length > 0) yield lane;
    }
  }

  /** True while some lane still has work, now or after a backoff. */
  pending(): boolean {
    for (const lane of this.open()) if (!lane.failed && lane.items.length > 0) return true;
    return false;
  }

  /** The earliest time a waiting lane becomes ready, or `undefined` when none waits. */
  nextReadyAt(): number | undefined {
    let next: number | undefined;
    for (const lane of this.waiting()) if (next === undefined || lane.readyAt < next) next = lane.readyAt;
    return next;
  }
}

/**
 * The events one message of the lane carries next: the head alone, or on a batching topic the run
 * of consecutive events from the head that share its type (so every subscription's filter policy
 * decides alike on the whole message), none sent single after a refusal, up to the topic's
 * `maxEvents` and while `size` of the run stays within `maxBytes`. The same lane always gives the
 * same run, so a retried message carries exactly the events it carried before.
 */
export function headRun(lane: Lane, maxBytes: number): EventItem[] {
  const head = lane.items[0] as EventItem;
  const maxEvents = head.topic?.batching?.maxEvents ?? 1;
  const run = [head];
  if (head.single || maxEvents === 1) return run;
  // As batchSize() counts: the envelopes, brackets and commas, the attributes once with content-type.
  let bytes = batchSize([head.message]);
  for (let i = 1; i < lane.items.length && run.length < maxEvents; i++) {
    const item = lane.items[i]!;
    if (item.kind !== 'event' || item.single || item.topic !== head.topic || item.message.type !== head.message.type) break;
    bytes += Buffer.byteLength(item.message.body) + 1;
    if (bytes > maxBytes) break;
    run.push(item);
  }
  return run;
}
