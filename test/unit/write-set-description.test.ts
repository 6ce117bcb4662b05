import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { marshallOptions } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { marshalOperation } from '../../shared/write/operation-size.js';

/** The message a Put of `tags` is refused with, before anything is sent. */
function refusal(tags: Set<unknown>, options: marshallOptions = {}): string {
  try {
    marshalOperation({ Put: { TableName: 'shop', Item: { pk: 'SET#1', sk: 'A', tags } } }, 0, options);
  } catch (error) {
    expect(error).toBeInstanceOf(WriteValidationError);
    return (error as Error).message;
  }
  throw new Error('the Set was accepted');
}

describe('a Set the DocumentClient cannot marshal', () => {
  it.each([
    ['a Set of strings holding undefined', new Set<unknown>(['a', undefined]), {}],
    ['a Set of binary values holding undefined', new Set<unknown>([new Uint8Array(2), undefined]), {}],
    ['a Set of numbers holding undefined', new Set<unknown>([1n, undefined, 2]), {}],
    ['a Set holding undefined', new Set<unknown>([undefined]), { convertEmptyValues: true }],
  ])('is named %s, not a Set of mixed types, when it holds undefined', (described, tags, options) => {
    const message = refusal(tags, options);
    expect(message).toContain(`operations[0].Put.Item.tags is ${described}, which the DynamoDB DocumentClient cannot marshal (`);
    expect(message).toContain('removeUndefinedValues');
  });

  it.each([
    ['NaN', new Set<unknown>([1, Number.NaN])],
    ['a number beyond 2^53 after a number', new Set<unknown>([1, 2 ** 60])],
  ])('is named a Set of numbers when it holds %s', (_name, tags) => {
    expect(refusal(tags)).toContain('operations[0].Put.Item.tags is a Set of numbers, which the DynamoDB DocumentClient cannot marshal (');
  });
});

describe('a Set of members of two kinds', () => {
  const members: [string, unknown][] = [
    ['a string', 'a'],
    ['a number', 1],
    ['a bigint', 2n],
    ['a NumberValue', NumberValue.from('3')],
    ['a Uint8Array', new Uint8Array([1])],
    ['an ArrayBuffer', new ArrayBuffer(1)],
    ['a boolean', true],
    ['null', null],
    ['a plain object', { a: 1 }],
  ];
  const numeric = new Set(['a number', 'a bigint', 'a NumberValue']);
  const binary = new Set(['a Uint8Array', 'an ArrayBuffer']);
  const sameKind = (a: string, b: string) => a === b || (numeric.has(a) && numeric.has(b)) || (binary.has(a) && binary.has(b));
  const pairs = members.flatMap(([a, first]) =>
    members.filter(([b]) => !sameKind(a, b)).map(([b, second]) => [a, b, new Set([first, second])] as const),
  );

  it.each(pairs)('(%s, then %s) is refused as mixed before it is marshalled', (_a, _b, tags) => {
    // Checked before marshalling: no Set of mixed members is left for the marshaller to refuse.
    expect(refusal(tags)).toMatch(
      /^operations\[0\]\.Put\.Item\.tags is a Set of mixed types \([^)]+\), which the DocumentClient would send as a set of its first member's type/,
    );
  });
});
