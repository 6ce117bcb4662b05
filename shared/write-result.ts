/**
 * What a write returns: the committed events with their per-aggregate sequences, in the
 * caller's order. Also used for the idempotency record, which stores this result to replay it.
 */

import type { AggregateRef } from './slot.js';
import type { SlotPlan } from './write-input.js';

/** One event as committed. */
export interface WrittenEvent {
  readonly id: string;
  readonly type: string;
  readonly aggregate: AggregateRef;
  /** Per-aggregate sequence, gapless and increasing within the aggregate's slot. */
  readonly sequence: number;
  readonly time: string;
}

/**
 * What `Outbox.write()` returns.
 *
 * @example
 * ```ts
 * const { events, replayed } = await outbox.write({ operations, events: [placed], idempotencyKey: requestId });
 * if (!replayed) logger.info('order placed', { eventId: events[0].id, sequence: events[0].sequence });
 * ```
 */
export interface WriteResult {
  /** The events in the order they were given. */
  readonly events: readonly WrittenEvent[];
  /** `true` when an earlier call with the same idempotency key committed and this one wrote nothing. */
  readonly replayed: boolean;
}

/**
 * The events as they commit when each slot's sequence is `expected` (absent: 0), back in the
 * caller's order.
 */
export function writtenEvents(slots: readonly SlotPlan[], expected: ReadonlyMap<string, number | undefined>): WrittenEvent[] {
  const events: WrittenEvent[] = [];
  for (const slot of slots) {
    const base = expected.get(slot.pk) ?? 0;
    slot.events.forEach((event, i) => {
      events[slot.inputIndexes[i] as number] = {
        id: event.id,
        type: event.type,
        aggregate: slot.aggregate,
        sequence: base + 1 + i,
        time: event.time,
      };
    });
  }
  return events;
}
