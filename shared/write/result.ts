/** The committed events with their per-aggregate sequences, in the caller's order, as a write returns them. */

import type { SlotPlan, WrittenEvent } from './types.js';

/**
 * The events as they commit when each slot's sequence is `expected` (absent: 0), back in the
 * caller's order, each with the version planning resolved for it.
 */
export function writtenEvents(slots: readonly SlotPlan[], expected: ReadonlyMap<string, number | undefined>): WrittenEvent[] {
  const events: WrittenEvent[] = [];
  for (const slot of slots) {
    const base = expected.get(slot.pk) ?? 0;
    const { versions } = slot;
    slot.events.forEach((event, i) => {
      const written: { -readonly [K in keyof WrittenEvent]: WrittenEvent[K] } = {
        id: event.id,
        type: event.type,
        aggregate: slot.aggregate,
        sequence: base + 1 + i,
        time: event.time,
      };
      // Absent, not undefined, where no version was resolved: the result is stored as JSON and compared.
      const version = versions?.[i];
      if (version !== undefined) written.version = version;
      events[slot.inputIndexes[i] as number] = written;
    });
  }
  return events;
}
