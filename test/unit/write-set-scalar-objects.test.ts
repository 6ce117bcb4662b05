import { describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { checkAttributeValues } from '../../shared/write/attribute-values.js';

/** Checks a Put whose `tags` attribute is `tags`; returns the refusal's message, or undefined when taken. */
function check(tags: Set<unknown>): string | undefined {
  try {
    checkAttributeValues({ Put: { TableName: 'shop', Item: { pk: 'SET#1', sk: 'A', tags } } }, 0, {});
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(WriteValidationError);
    return (error as Error).message;
  }
}

describe('a Set holding Number or String objects', () => {
  it('is a Set of the primitives they hold, as the DocumentClient sends it (a number set, a string set)', () => {
    expect(check(new Set([1, new Number(2)]))).toBeUndefined();
    expect(check(new Set(['a', new String('b')]))).toBeUndefined();
  });

  it('is checked as those primitives: the same number twice, a lone surrogate, a mix of strings and numbers', () => {
    expect(check(new Set([2, new Number(2)]))).toContain('holds the same number twice');
    expect(check(new Set(['a', new String('b\uD800')]))).toContain('holds the string');
    expect(check(new Set(['a', new Number(1)]))).toContain('is a Set of mixed types (strings, numbers)');
  });
});
