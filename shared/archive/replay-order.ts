import type { ArchivedEvent } from './reader-decode.js';

/** An event's place in its aggregate: the slot's epoch, then the sequence within it. */
export interface Position {
  readonly epoch: string;
  readonly sequence: number;
}

/** One aggregate, as a map key. */
export const aggregateKeyOf = (aggregateType: string, aggregateId: string): string => JSON.stringify([aggregateType, aggregateId]);

/** Orders positions: epochs are ISO instants of one writer's form, so their text orders them. */
export const comparePositions = (a: Position, b: Position): number =>
  a.epoch < b.epoch ? -1 : a.epoch > b.epoch ? 1 : a.sequence - b.sequence;

/** A window's events per aggregate, in sequence order: what goes now, and what waits for the next hour. */
export interface WindowSplit {
  readonly send: Map<string, ArchivedEvent[]>;
  readonly carry: Map<string, ArchivedEvent[]>;
}

/**
 * Puts each aggregate's events in sequence order and keeps back, from the first one whose `time`
 * is at or after `cutoffMs` on, everything of that aggregate for the next window (`cutoffMs`
 * undefined: the last window, nothing kept). An envelope's `time` is when its write started, so
 * an event of the next hour may precede, in sequence, one of this hour by as much as a write
 * lasts; with a cutoff that much before the hour's end, every event sent has all its
 * predecessors in this window or an earlier one.
 *
 * @example
 * ```ts
 * const { send, carry } = splitWindow(events, hourEndMs - holdBackMs);
 * ```
 */
export function splitWindow(events: readonly ArchivedEvent[], cutoffMs: number | undefined): WindowSplit {
  const byAggregate = new Map<string, ArchivedEvent[]>();
  for (const event of events) {
    const key = aggregateKeyOf(event.aggregateType, event.aggregateId);
    const list = byAggregate.get(key);
    if (list === undefined) byAggregate.set(key, [event]);
    else list.push(event);
  }
  const send = new Map<string, ArchivedEvent[]>();
  const carry = new Map<string, ArchivedEvent[]>();
  for (const [key, list] of byAggregate) {
    list.sort(comparePositions);
    const held = cutoffMs === undefined ? -1 : list.findIndex((event) => event.timeMs >= cutoffMs);
    if (held === -1) send.set(key, list);
    else {
      if (held > 0) send.set(key, list.slice(0, held));
      carry.set(key, list.slice(held));
    }
  }
  return { send, carry };
}

/** Drops from each aggregate's events those at or before the position already sent (a resumed window). */
export function afterPositions(events: readonly ArchivedEvent[], sent: ReadonlyMap<string, Position>): ArchivedEvent[] {
  if (sent.size === 0) return [...events];
  return events.filter((event) => {
    const last = sent.get(aggregateKeyOf(event.aggregateType, event.aggregateId));
    return last === undefined || comparePositions(event, last) > 0;
  });
}
