import { context, createTraceState, ROOT_CONTEXT, TraceFlags, type TraceState, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { messageSize } from '../../shared/envelope.js';
import { WriteValidationError } from '../../shared/errors.js';
import { otelApi, otelImport, resetOtelApi } from '../../shared/tracing/otel-api.js';
import { ambientTraceContext, tracestateProblem, XRAY_TRACE_ENV, xrayTraceparent } from '../../shared/tracing/trace-context.js';
import type { EventInput } from '../../shared/write/input.js';
import { event, stored } from '../helpers/planned-event.js';

const XRAY = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
const FROM_XRAY = '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01';
const EXPLICIT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const OTEL_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const OTEL_SPAN = '00f067aa0ba902b7';

/**
 * Runs `fn` with a span of `traceState` active (and of other ids than OTEL_TRACE and OTEL_SPAN
 * with `ids`), under an AsyncLocalStorage context manager registered for the call only.
 */
async function withActiveSpan<T>(
  fn: () => T | Promise<T>,
  traceState?: string | TraceState,
  ids: { traceId?: string; spanId?: string } = {},
): Promise<T> {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  try {
    const span = trace.wrapSpanContext({
      traceId: OTEL_TRACE,
      spanId: OTEL_SPAN,
      traceFlags: TraceFlags.SAMPLED,
      ...ids,
      ...(traceState === undefined ? {} : { traceState: typeof traceState === 'string' ? createTraceState(traceState) : traceState }),
    });
    return await context.with(trace.setSpan(ROOT_CONTEXT, span), fn);
  } finally {
    context.disable();
    resetOtelApi();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
  resetOtelApi();
});

describe('X-Ray trace header to W3C traceparent', () => {
  it('turns the root and parent into trace id and parent id, Sampled=1 into flags 01', () => {
    expect(xrayTraceparent(XRAY)).toBe(FROM_XRAY);
  });

  it('reads the fields in any order and ignores Lineage and others', () => {
    expect(
      xrayTraceparent('Lineage=a87bd80c:1|68fd508a:5;Sampled=1;Parent=53995c3f42cd8ad8;Root=1-5759e988-bd862e3fe1be46a994272793'),
    ).toBe(FROM_XRAY);
  });

  it.each([
    ['Sampled=0', 'Sampled=0'],
    ['Sampled=? (decision deferred)', 'Sampled=?'],
    ['no Sampled field', ''],
  ])('gives flags 00 for %s', (_, sampled) => {
    const header = `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8${sampled === '' ? '' : `;${sampled}`}`;
    expect(xrayTraceparent(header)).toBe('00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-00');
  });

  it.each([
    ['no Parent (the function is the segment root)', 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1'],
    ['no Root', 'Parent=53995c3f42cd8ad8;Sampled=1'],
    ['a root of another version', 'Root=2-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8'],
    ['a short root id', 'Root=1-5759e988-bd862e3fe1be46a99427279;Parent=53995c3f42cd8ad8'],
    ['upper-case hex', 'Root=1-5759E988-BD862E3FE1BE46A994272793;Parent=53995c3f42cd8ad8'],
    ['a parent of 15 hex digits', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad'],
    ['an all-zero root', 'Root=1-00000000-000000000000000000000000;Parent=53995c3f42cd8ad8'],
    ['an all-zero parent', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=0000000000000000'],
    ['an empty header', ''],
    ['no header', undefined],
    ['text that is no header', 'not a trace header'],
  ])('ignores a header with %s', (_, header) => {
    expect(xrayTraceparent(header)).toBeUndefined();
  });
});

describe('tracestate validation', () => {
  it.each([
    ['one member', 'congo=t61rcWkgMzE'],
    ['two members with spaces and an empty member', 'rojo=00f067aa0ba902b7 , ,congo=t61rcWkgMzE'],
    ['a multi-tenant key', 'tenant1@vendor=value'],
    ['32 members', Array.from({ length: 32 }, (_, i) => `k${i}=v`).join(',')],
    // W3C: vendors must accept an empty tracestate, and empty and whitespace-only members.
    ['an empty one', ''],
    ['nothing but commas and spaces', ', ,\t,'],
  ])('takes %s', (_, state) => {
    expect(tracestateProblem(state)).toBeUndefined();
  });

  it('writes an event whose traceparent comes with an empty tracestate, as W3C says one must be accepted', () => {
    expect(stored(event({ traceparent: EXPLICIT, tracestate: '' }))).toMatchObject({ traceparent: EXPLICIT });
    expect(stored(event({ traceparent: EXPLICIT, tracestate: ' , ' }))).toMatchObject({ traceparent: EXPLICIT });
  });

  it.each([
    ['over 512 characters', `a=${'b'.repeat(511)}`, '513 characters'],
    ['33 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(','), '33 list members'],
    ['a member without =', 'congo', 'is not key=value'],
    ['an upper-case key', 'Congo=1', 'is not key=value'],
    ['a value with a comma-free = sign', 'a=b=c', 'is not key=value'],
    ['a repeated key', 'a=1,a=2', 'appears twice'],
    ['keys repeated, naming the first found twice', 'a=1,b=1, b=2,a=2', 'its key "b" appears twice'],
  ])('rejects %s', (_, state, problem) => {
    expect(tracestateProblem(state)).toContain(problem);
  });

  it('rejects a tracestate without a traceparent, saying why', () => {
    expect(() => stored(event({ tracestate: 'congo=1' }))).toThrow(WriteValidationError);
    expect(() => stored(event({ tracestate: 'congo=1' }))).toThrow(
      /INVALID_TRACESTATE|events\[0\]\.tracestate is "congo=1" \(the event has no traceparent/,
    );
  });

  it('rejects a malformed tracestate with the code INVALID_TRACESTATE and what is allowed', () => {
    const attempt = () => stored(event({ traceparent: EXPLICIT, tracestate: 'a=1,a=2' }));
    expect(attempt).toThrow(expect.objectContaining({ code: 'INVALID_TRACESTATE' }));
    expect(attempt).toThrow(/its key "a" appears twice\); allowed: W3C tracestate/);
  });

  it.each([
    ['a number', 42, '42'],
    ['a bigint', 10n, '10n'],
    ['a symbol', Symbol('ts'), 'Symbol(ts)'],
  ])('rejects a tracestate that is %s, showing it', (_, tracestate, shown) => {
    const attempt = () => stored(event({ traceparent: EXPLICIT, tracestate: tracestate as unknown as string }));
    expect(attempt).toThrow(expect.objectContaining({ code: 'INVALID_TRACESTATE' }));
    expect(attempt).toThrow(`events[0].tracestate is ${shown} (it is not a string); allowed: `);
  });
});

describe('traceparent of a version after 00', () => {
  const FUTURE = '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it.each([
    ['nothing after the flags', FUTURE],
    ['fields after the flags', `${FUTURE}-f00d-extra.field_2`],
  ])('is taken with %s, as W3C says a higher version is parsed, and sent on as version 00', (_, traceparent) => {
    expect(stored(event({ traceparent }))).toMatchObject({ traceparent: `00${FUTURE.slice(2)}` });
  });

  it.each([
    ['a control character', `${FUTURE}-a\u0001b`],
    ['a line feed', `${FUTURE}-a\nb`],
    ['a space', `${FUTURE}-a b`],
    ['a non-ASCII character', `${FUTURE}-caf\u00e9`],
    ['a lone surrogate', `${FUTURE}-\ud800`],
    ['flags not followed by a dash', `${FUTURE}x`],
  ])('is refused with %s after the flags: trace context is visible ASCII, as HTTP headers carry it', (_, traceparent) => {
    expect(() => stored(event({ traceparent }))).toThrow(expect.objectContaining({ code: 'INVALID_TRACEPARENT' }));
  });
});

describe('which trace context an event carries', () => {
  it('keeps the explicit traceparent and tracestate over the ambient context, never mixing them', () => {
    const ambient = { traceparent: FROM_XRAY, tracestate: 'other=1' };
    expect(stored(event({ traceparent: EXPLICIT, tracestate: 'congo=1' }), ambient)).toMatchObject({
      traceparent: EXPLICIT,
      tracestate: 'congo=1',
    });
    const alone = stored(event({ traceparent: EXPLICIT }), ambient);
    expect(alone.traceparent).toBe(EXPLICIT);
    expect(alone).not.toHaveProperty('tracestate');
  });

  it('takes the ambient context for an event without its own', () => {
    expect(stored(event(), { traceparent: FROM_XRAY })).toMatchObject({ traceparent: FROM_XRAY });
    expect(stored(event())).not.toHaveProperty('traceparent');
  });

  it('takes the X-Ray header when no OpenTelemetry context manager is registered, and nothing without it', () => {
    expect(ambientTraceContext({ [XRAY_TRACE_ENV]: XRAY })).toEqual({ traceparent: FROM_XRAY });
    expect(ambientTraceContext({})).toBeUndefined();
  });

  it('takes the active OpenTelemetry span over the X-Ray header, with its trace state', async () => {
    const picked = await withActiveSpan(() => ambientTraceContext({ [XRAY_TRACE_ENV]: XRAY }), 'vendor=abc');
    expect(picked).toEqual({ traceparent: `00-${OTEL_TRACE}-${OTEL_SPAN}-01`, tracestate: 'vendor=abc' });
  });

  it('writes the span ids in lower case, as W3C has them, when the span context has them in upper case', async () => {
    const picked = await withActiveSpan(() => ambientTraceContext({}), undefined, {
      traceId: OTEL_TRACE.toUpperCase(),
      spanId: OTEL_SPAN.toUpperCase(),
    });
    expect(picked).toEqual({ traceparent: `00-${OTEL_TRACE}-${OTEL_SPAN}-01` });
  });

  it('cuts a span trace state past 512 characters by whole members, those over 128 characters first, then from the end', async () => {
    // TraceState.set() checks nothing, so a span's trace state may be longer than W3C carries.
    const long = `big=${'x'.repeat(200)}`;
    const members = ['a=1', long, ...Array.from({ length: 4 }, (_, i) => `m${i}=${'v'.repeat(80)}`)];
    const state = members.reduceRight(
      (built, member) => built.set(member.split('=')[0]!, member.slice(member.indexOf('=') + 1)),
      createTraceState(),
    );
    expect(state.serialize()).toBe(members.join(','));
    const picked = await withActiveSpan(() => ambientTraceContext({}), state);
    // Without `big`, 3 + 4 * 84 characters and commas fit in 512.
    expect(picked?.tracestate).toBe(['a=1', ...members.slice(2)].join(','));
    const over = members.slice(2).concat(['z=1', 'y=2']);
    const longer = over.reduceRight((built, member) => built.set(member.split('=')[0]!, 'w'.repeat(120)), createTraceState());
    const cut = (await withActiveSpan(() => ambientTraceContext({}), longer))?.tracestate;
    expect(cut).toBe(['m0', 'm1', 'm2', 'm3'].map((key) => `${key}=${'w'.repeat(120)}`).join(','));
  });

  it('keeps the first 32 members of a span trace state with more', async () => {
    const state = Array.from({ length: 40 }, (_, i) => i).reduceRight((built, i) => built.set(`k${i}`, 'v'), createTraceState());
    const picked = await withActiveSpan(() => ambientTraceContext({}), state);
    expect(picked?.tracestate).toBe(Array.from({ length: 32 }, (_, i) => `k${i}=v`).join(','));
  });

  it('reads a span trace state of 100 000 members, keeping its first 32', async () => {
    // A TraceState is an interface: one of another implementation serialises whatever it holds.
    // (Its keys are checked for repeats in one pass: comparing each with every one before it took most of a minute here.)
    const members = Array.from({ length: 100_000 }, (_, i) => `k${i}=v`);
    const state = Object.assign(createTraceState(), { serialize: () => members.join(',') });
    const picked = await withActiveSpan(() => ambientTraceContext({}), state);
    expect(picked?.tracestate).toBe(members.slice(0, 32).join(','));
  });

  it('leaves out a span trace state that is not W3C trace state, keeping the traceparent, and the write goes on', async () => {
    const state = createTraceState('good=1').set('bad', 'has,comma');
    const picked = await withActiveSpan(() => ambientTraceContext({}), state);
    expect(picked).toEqual({ traceparent: `00-${OTEL_TRACE}-${OTEL_SPAN}-01` });
    expect(stored(event(), picked)).not.toHaveProperty('tracestate');
  });

  it('answers at once once the API is loaded, and falls back to X-Ray outside any span', async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      await otelApi('context');
      const now = ambientTraceContext({ [XRAY_TRACE_ENV]: XRAY });
      expect(now).not.toBeInstanceOf(Promise);
      expect(now).toEqual({ traceparent: FROM_XRAY });
    } finally {
      context.disable();
    }
  });

  it('imports nothing while no OpenTelemetry global is registered', () => {
    const load = vi.spyOn(otelImport, 'load');
    expect(otelApi('context')).toBeUndefined();
    expect(otelApi('trace')).toBeUndefined();
    expect(load).not.toHaveBeenCalled();
  });

  it('falls back to X-Ray without an error when a context manager is registered but the package cannot be loaded', async () => {
    const load = vi
      .spyOn(otelImport, 'load')
      .mockImplementation(() => import('@opentelemetry/api-not-installed' as string).catch(() => undefined));
    const picked = await withActiveSpan(() => ambientTraceContext({ [XRAY_TRACE_ENV]: XRAY }));
    expect(load).toHaveBeenCalledOnce();
    expect(picked).toEqual({ traceparent: FROM_XRAY });
  });
});

describe('size of an event message with trace attributes', () => {
  it('counts each trace attribute’s name, type and value', () => {
    const body = '{}';
    const base = messageSize(body, 'order.placed', 'order');
    expect(messageSize(body, 'order.placed', 'order', { traceparent: EXPLICIT })).toBe(base + 'traceparent'.length + 'String'.length + 55);
    expect(messageSize(body, 'order.placed', 'order', { traceparent: EXPLICIT, tracestate: 'a=1' })).toBe(
      base + 'traceparent'.length + 'String'.length + 55 + 'tracestate'.length + 'String'.length + 3,
    );
  });

  it('refuses an event whose envelope and trace attributes together pass the SNS limit', () => {
    const state = Array.from({ length: 5 }, (_, i) => `k${i}=${'b'.repeat(95)}`).join(',');
    // Data that fits alone, and no longer with the trace context in the envelope and the attributes.
    const fits = (data: string, fields: Partial<EventInput>) => {
      try {
        stored(event({ data, ...fields }));
        return true;
      } catch (error) {
        expect(error).toMatchObject({ code: 'ENVELOPE_TOO_LARGE' });
        return false;
      }
    };
    let size = 262_000;
    while (!fits('x'.repeat(size), {})) size -= 10;
    expect(fits('x'.repeat(size), { traceparent: EXPLICIT, tracestate: state })).toBe(false);
  });
});
