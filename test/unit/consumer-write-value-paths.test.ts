import { describe, expect, it } from 'vitest';
import { InboxWriteError } from '../../shared/consumer/errors.js';
import { checkWriteValues } from '../../shared/consumer/inbox-write-failures.js';
import type { TransactItem } from '../../shared/consumer/types.js';

/**
 * A handler's writes refused by the write helper's value check are named as the handler's writes
 * (`writes[1]…`, by the order of `ctx.write`) wherever the check's message names a path, and only
 * there: a value that reads like a path is shown as given.
 */
const event = { id: 'e-1', source: 'urn:test', type: 'order.placed' };
const ok: TransactItem = { Put: { TableName: 't', Item: { pk: 'a', sk: 'b', n: 1, s: 'x', m: { l: [1, 'y'] } } } };

const refusal = (writes: readonly TransactItem[]): Error => {
  try {
    checkWriteValues(event, writes);
  } catch (error) {
    return error as Error;
  }
  throw new Error('nothing refused');
};

const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { d: nested(depth - 1) });

describe('checkWriteValues names a refused value by its path among the writes', () => {
  it('takes writes of scalars, maps and lists as they are', () => {
    expect(() => checkWriteValues(event, [ok, ok])).not.toThrow();
  });

  it.each<[string, TransactItem, string]>([
    [
      'nesting too deep, named at both paths',
      { Put: { TableName: 't', Item: { pk: 'a', v: nested(40) } } },
      'writes[1].Put.Item.v nests maps or lists 32 deep or deeper (one stands on level 32, at writes[1].Put.Item.v.d.',
    ],
    [
      'a name ExpressionAttributeNames stands for',
      { Update: { TableName: 't', Key: { pk: 'a' }, UpdateExpression: 'SET #a = :a', ExpressionAttributeNames: { '#a': '' } } },
      'writes[1].Update.ExpressionAttributeNames["#a"] stands for an attribute name that is empty; allowed: ',
    ],
    [
      'a Set of strings whose member reads like a path',
      { Put: { TableName: 't', Item: { pk: 'a', s: new Set(['operations[1].Put.\uD800']) } } },
      'writes[1].Put.Item.s holds the string "operations[1].Put.\\ud800", which is not well-formed Unicode',
    ],
  ])('%s', (_, write, message) => {
    const error = refusal([ok, write]);

    expect(error).toBeInstanceOf(InboxWriteError);
    expect(error).toMatchObject({ code: 'INVALID_INBOX_WRITE' });
    expect(error.message).toContain(`The writes of event e-1 (order.placed) are refused before sending: ${message}`);
    expect(error.message).not.toContain('operations[1].Put.Item');
  });
});
