/**
 * An item's key spelt as one text, one per item DynamoDB tells apart, so that two writes of one
 * item are known however their keys are written in JavaScript: by the write helper among its
 * operations (keys.ts, from the values as given) and by a consumer's `commit: 'batch'` group
 * (consumer/item-key.ts, from the values as marshalled). Attributes count by name, in any order;
 * an `N` value by the number it means (DynamoDB takes `7`, `7.0`, `07`, `70e-1` and `+7` for one
 * key, and `-0` for `0`), a `B` value by its bytes (a `Buffer`, a `Uint8Array`, any other view of
 * the same bytes or an `ArrayBuffer` of them alike), an `S` value by the text DynamoDB keeps in
 * UTF-8 (each lone surrogate one replacement character).
 */

import { canonicalNumber } from './numbers.js';

/** A key attribute's value as DynamoDB types it: `S`, `N` (the number's text) or `B`. */
export interface KeyAttributeValue {
  readonly S?: unknown;
  readonly N?: unknown;
  readonly B?: unknown;
}

/**
 * The bytes of a `B` value as base64 (a view's own bytes, an `ArrayBuffer`'s all), one text for
 * the same bytes whatever holds them; `undefined` for what holds no bytes to read at once (a
 * `Blob`, say). Also how a binary Set's members are told apart.
 */
export function bytesText(value: unknown): string | undefined {
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString('base64');
  return undefined;
}

/**
 * The text of one key attribute's value, the same for every spelling of a value DynamoDB takes for
 * one; `undefined` for a value of no key type (a map, a list, a set, a `Blob`), which DynamoDB
 * refuses in a key.
 */
export function keyValueText(value: KeyAttributeValue): string | undefined {
  if (typeof value.S === 'string') return `S${value.S.toWellFormed()}`;
  if (typeof value.N === 'string') return `N${canonicalNumber(value.N)}`;
  const bytes = bytesText(value.B);
  return bytes === undefined ? undefined : `B${bytes}`;
}

/** The text of a key from each of its attributes' name and {@link keyValueText}, given in any order. */
export function keyText(attributes: readonly (readonly [name: string, text: string])[]): string {
  return [...attributes]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map((attribute) => JSON.stringify(attribute))
    .join(',');
}
