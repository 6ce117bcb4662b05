import { describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { isTraceparent, traceparentProblem } from '../../shared/tracing/trace-context.js';
import { event, stored } from '../helpers/planned-event.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const EXPLICIT = `00-${TRACE_ID}-${PARENT_ID}-01`;

const refusal = (traceparent: unknown): WriteValidationError => {
  try {
    stored(event({ traceparent: traceparent as string }));
  } catch (error) {
    return error as WriteValidationError;
  }
  throw new Error(`${String(traceparent)} was not refused`);
};

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

describe('INVALID_TRACEPARENT says what was wrong, what was given and what is allowed', () => {
  const later = `01-${TRACE_ID}-${PARENT_ID}-01`;
  it.each([
    ['not-a-traceparent', 'its version is not 2 lower-case hex digits and a dash'],
    ['', 'its version is not 2 lower-case hex digits and a dash'],
    [`ff-${TRACE_ID}-${PARENT_ID}-01`, 'version ff is invalid'],
    [`00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`, 'its trace id is not 32 lower-case hex digits and a dash'],
    [`00-${'0'.repeat(32)}-${PARENT_ID}-01`, 'its trace id is all zeros'],
    [`00-${TRACE_ID}-${PARENT_ID.slice(1)}-01`, 'its parent id is not 16 lower-case hex digits and a dash'],
    [`00-${TRACE_ID}-${'0'.repeat(16)}-01`, 'its parent id is all zeros'],
    [`00-${TRACE_ID}-${PARENT_ID}-1`, 'its flags are not 2 lower-case hex digits'],
    [`00-${TRACE_ID}-${PARENT_ID}-`, 'its flags are not 2 lower-case hex digits'],
    [`00-${TRACE_ID}-${PARENT_ID}-0`, 'its flags are not 2 lower-case hex digits'],
    [`00-${TRACE_ID}-${PARENT_ID.slice(1)}`, 'its parent id is not 16 lower-case hex digits and a dash'],
    [`00-${TRACE_ID}-${PARENT_ID}-01-extra`, 'version 00 has nothing after the flags'],
    [`${later}x`, 'its flags are followed by "x", not a dash'],
    [`${later}-a\nb`, 'after its flags it has "\\n", which is not visible ASCII'],
    [`${later}-a b`, 'after its flags it has " ", which is not visible ASCII'],
    [`${later}-caf\u00e9`, 'after its flags it has "é", which is not visible ASCII'],
    [`${later}-\ud800`, 'after its flags it has "\\ud800", which is not visible ASCII'],
    [`${later}-a\u{1f600}`, 'after its flags it has "\u{1f600}", which is not visible ASCII'],
  ])('for %j', (traceparent, problem) => {
    expect(traceparentProblem(traceparent)).toBe(problem);
    const error = refusal(traceparent);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error.code).toBe('INVALID_TRACEPARENT');
    expect(error.message).toContain(`events[0].traceparent is ${JSON.stringify(traceparent)} (${problem}); allowed: `);
    // Every rule checked is named in what is allowed.
    for (const rule of ['lower-case hex', 'version not ff', 'not all zeros', 'nothing after the flags for version 00', 'visible ASCII']) {
      expect(error.message).toContain(rule);
    }
  });

  it.each([
    ['a number', 42, '42'],
    ['a bigint', 10n, '10n'],
    ['a symbol', Symbol('tp'), 'Symbol(tp)'],
    ['null', null, 'null'],
  ])('shows %s given for it safely', (_, traceparent, shown) => {
    const error = refusal(traceparent);
    expect(error.code).toBe('INVALID_TRACEPARENT');
    expect(error.message).toContain(`events[0].traceparent is ${shown} (it is not a string); allowed: `);
  });

  it('shows a long one cut, with its length', () => {
    const traceparent = `01-${TRACE_ID}-${PARENT_ID}-01-${'\u0001'.repeat(100_000)}`;
    const error = refusal(traceparent);
    expect(error.message).toContain('characters in all)');
    expect(error.message.length).toBeLessThan(1500);
  });

  it.each([
    [EXPLICIT, true],
    [later, true],
    [`${later}-`, true],
    [`${later}-x-y`, true],
    [`${later}-~!`, true],
    [`${later}-\u007f`, false],
    [`00-${TRACE_ID}-${PARENT_ID}-01-`, false],
    [`0-${TRACE_ID}-${PARENT_ID}-01`, false],
    [`00-${TRACE_ID}-${PARENT_ID}`, false],
    [`00-${TRACE_ID}-${PARENT_ID}-`, false],
    [`00-${TRACE_ID}x${PARENT_ID}-01`, false],
    [`ff-${TRACE_ID}-${PARENT_ID}-01-x`, false],
    [`01-${'0'.repeat(32)}-${PARENT_ID}-01-x`, false],
    [42, false],
  ])('isTraceparent(%j) is %s, as traceparentProblem finds', (sample, valid) => {
    expect(isTraceparent(sample)).toBe(valid);
    expect(traceparentProblem(sample) === undefined).toBe(valid);
  });
});
