/**
 * The keys of the caller's operations: what DynamoDB refuses in a key of the outbox table, and
 * the identity of the item a key addresses, so two operations on one item are found before
 * sending. A key string must be well-formed Unicode: DynamoDB keeps strings as UTF-8, where each
 * lone surrogate becomes the same replacement, so two different such keys would address one
 * item (`"k\uD800"` and `"k\uDC00"` do).
 */

import { WriteValidationError } from '../errors.js';
import { showValue } from '../show-value.js';
import { TABLE } from '../table.js';
import { binaryProblem, isBinary, scalarValue } from './attribute-values.js';
import { constructorName } from './binary-values.js';
import { keyText, keyValueText } from './key-text.js';
import { isNumeric } from './numbers.js';

/** DynamoDB's limits for the values of a table's keys. */
export const MAX_PARTITION_KEY_BYTES = 2048;
export const MAX_SORT_KEY_BYTES = 1024;

const KEY_WELL_FORMED =
  'which is not well-formed Unicode (it holds a lone surrogate): DynamoDB keeps keys as UTF-8, where every lone surrogate becomes the same replacement, so two different such keys would address one item; allowed: well-formed Unicode text';

/** Refuses what DynamoDB would refuse, or confuse, in `pk` and `sk` of the outbox table (both known to be non-empty strings). */
export function checkOutboxKey(pk: string, sk: string, where: string): void {
  for (const [name, value, limit] of [
    [TABLE.partitionKey, pk, MAX_PARTITION_KEY_BYTES],
    [TABLE.sortKey, sk, MAX_SORT_KEY_BYTES],
  ] as const) {
    if (!value.isWellFormed()) {
      throw new WriteValidationError('INVALID_OPERATION', `${where}.${name} is ${JSON.stringify(value.slice(0, 40))}, ${KEY_WELL_FORMED}`);
    }
    const bytes = Buffer.byteLength(value);
    if (bytes > limit) {
      throw new WriteValidationError(
        'INVALID_OPERATION',
        `${where}.${name} is ${bytes} bytes (${JSON.stringify(value.slice(0, 40))}…); allowed: at most ${limit} bytes (DynamoDB's limit for a ${name === TABLE.partitionKey ? 'partition' : 'sort'} key value)`,
      );
    }
  }
}

/**
 * The text of a key attribute's value as the DocumentClient sends it ({@link keyValueText}: the
 * numbers `1`, `1n`, `new Number(1)` and `NumberValue('1.0')` alike, `'a'` and `new String('a')`
 * alike, a `Buffer` and a `Uint8Array` of the same bytes alike), or `undefined` for a value no key
 * holds (a map, say), which DynamoDB refuses itself. Refused: a string with a lone surrogate
 * (DynamoDB would take two such keys for one item), and binary the DocumentClient would not send
 * as its bytes (an `ArrayBuffer`, a `DataView`, a `Blob`, typed arrays but `Uint8Array`).
 */
function keyValueId(given: unknown, path: string): string | undefined {
  const value = scalarValue(given);
  if (typeof value === 'string') {
    if (!value.isWellFormed())
      throw new WriteValidationError('INVALID_OPERATION', `${path} is ${JSON.stringify(value.slice(0, 40))}, ${KEY_WELL_FORMED}`);
    return keyValueText({ S: value });
  }
  if (isNumeric(value)) return keyValueText({ N: String(value) });
  const binary = binaryProblem(value);
  if (binary !== undefined) throw new WriteValidationError('INVALID_OPERATION', `${path} ${binary}`);
  if (value instanceof Uint8Array && isBinary(value)) return keyValueText({ B: value });
  return undefined;
}

/**
 * The identity of the item `key` addresses in `table` (another table than the outbox's, whose
 * key schema the helper does not know: every attribute of `key` counts), or `undefined` when a
 * value is of no key type. `where` is the key's path, for messages.
 */
export function otherTableItemId(table: string, key: Record<string, unknown>, where: string): string | undefined {
  const attributes: (readonly [string, string])[] = [];
  for (const name of Object.keys(key).sort()) {
    const id = keyValueId(key[name], `${where}.${name}`);
    if (id === undefined) return undefined;
    attributes.push([name, id]);
  }
  return `${table}\u0000${keyText(attributes)}`;
}

/** A key value as given: a String or Number object named so (showValue would show the primitive it holds, as if given). */
export function shownKey(value: unknown): string {
  const held = scalarValue(value);
  return held === value ? showValue(value) : `a ${constructorName(value as object)} object (${showValue(held)})`;
}
