import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { type EventInput, planSlots } from '../../shared/write/input.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const EXPLICIT = `00-${TRACE_ID}-${PARENT_ID}-01`;

const config = defineConfig({ source: 'urn:test:unit', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const stamp = () => ({ id: '01890a5d-ac96-774b-bcce-b302099a8057', time: '2026-01-01T00:00:00.000Z' });
const event = (fields: Partial<EventInput> = {}): EventInput => ({
  aggregate: { type: 'order', id: 'o-1' },
  type: 'order.placed',
  data: null,
  ...fields,
});
const stored = (input: EventInput) => planSlots([input], config, stamp)[0]!.events[0]!;

describe('a traceparent of a version after 00 is sent on as version 00', () => {
  // W3C: "Vendors MUST use these fields to construct the new traceparent field according to the
  // highest version of the specification known to the implementation (in this specification it is 00)."
  it.each([
    ['nothing after the flags', `01-${TRACE_ID}-${PARENT_ID}-01`, EXPLICIT],
    ['fields after the flags', `01-${TRACE_ID}-${PARENT_ID}-01-f00d-extra.field_2`, EXPLICIT],
    ['an empty field after the flags', `7f-${TRACE_ID}-${PARENT_ID}-00-`, `00-${TRACE_ID}-${PARENT_ID}-00`],
    // Only the sampled bit is parsed; version 00 has every other flag zero.
    ['flags beyond the sampled bit, sampled', `fe-${TRACE_ID}-${PARENT_ID}-0b-x`, EXPLICIT],
    ['flags beyond the sampled bit, not sampled', `01-${TRACE_ID}-${PARENT_ID}-fe`, `00-${TRACE_ID}-${PARENT_ID}-00`],
  ])('with %s', (_, traceparent, sent) => {
    expect(stored(event({ traceparent }))).toMatchObject({ traceparent: sent });
  });

  it('keeps the tracestate that came with it', () => {
    const written = stored(event({ traceparent: `01-${TRACE_ID}-${PARENT_ID}-01-x`, tracestate: 'congo=t61rcWkgMzE' }));
    expect(written).toMatchObject({ traceparent: EXPLICIT, tracestate: 'congo=t61rcWkgMzE' });
  });

  it('sends a version 00 traceparent on as given, flags included', () => {
    const unknownFlags = `00-${TRACE_ID}-${PARENT_ID}-09`;
    expect(stored(event({ traceparent: unknownFlags }))).toMatchObject({ traceparent: unknownFlags });
  });
});

describe('an empty tracestate is not sent', () => {
  // W3C: "Vendors MUST accept empty tracestate headers but SHOULD avoid sending them."
  it.each([
    ['empty', ''],
    ['nothing but commas and spaces', ' , ,\t'],
  ])('when it is %s', (_, tracestate) => {
    const written = stored(event({ traceparent: EXPLICIT, tracestate }));
    expect(written.traceparent).toBe(EXPLICIT);
    expect(written).not.toHaveProperty('tracestate');
  });

  it('while one with members is sent exactly as given', () => {
    const tracestate = 'rojo=00f067aa0ba902b7 , ,congo=t61rcWkgMzE';
    expect(stored(event({ traceparent: EXPLICIT, tracestate }))).toMatchObject({ tracestate });
  });
});
