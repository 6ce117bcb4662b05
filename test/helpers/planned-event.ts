import { defineConfig } from '../../shared/config.js';
import { type EventInput, planSlots } from '../../shared/write/input.js';

/*
 * One event through the write helper's planning (what `Outbox.write` would store), without a
 * table: for tests of what the helper makes of an event's fields, such as its trace context.
 */

const config = defineConfig({ source: 'urn:test:unit', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const stamp = () => ({ id: '01890a5d-ac96-774b-bcce-b302099a8057', time: '2026-01-01T00:00:00.000Z' });

/** An `order.placed` event of order o-1 with `fields` over it. */
export const event = (fields: Partial<EventInput> = {}): EventInput => ({
  aggregate: { type: 'order', id: 'o-1' },
  type: 'order.placed',
  data: null,
  ...fields,
});

/** The event as the write helper would store it, given the caller's ambient trace context if any. */
export const stored = (input: EventInput, ambient?: Parameters<typeof planSlots>[3]) =>
  planSlots([input], config, stamp, ambient)[0]!.events[0]!;
