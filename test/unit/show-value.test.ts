import { describe, expect, it } from 'vitest';
import { showValue } from '../../shared/show-value.js';

describe('showValue', () => {
  it.each([
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
    [1.5, '1.5'],
    [-3, '-3'],
  ])('shows %s as written, not as JSON would (null, or a refusal)', (value, shown) => {
    expect(showValue(value)).toBe(shown);
  });

  it.each([
    ['text', '"text"'],
    [{ version: 0 }, '{"version":0}'],
    [[1, 'a'], '[1,"a"]'],
    [null, 'null'],
    [undefined, 'undefined'],
    [true, 'true'],
  ])('shows %s as JSON where it has one', (value, shown) => {
    expect(showValue(value)).toBe(shown);
  });

  it('shows a bigint as written, not as the number it would read as', () => {
    expect(showValue(10n)).toBe('10n');
    expect(showValue(-3n)).toBe('-3n');
  });

  it('shows code as a function, and a value JSON refuses (a cycle) as String does', () => {
    expect(showValue(() => 1)).toBe('a function');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(showValue(cycle)).toBe('[object Object]');
  });
});
