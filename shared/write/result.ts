/** The committed events with their per-aggregate sequences, in the caller's order, as a write returns them. */

import type { SlotPlan, WrittenEvent } from './types.js';

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
