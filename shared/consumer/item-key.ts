/**
 * A key as DynamoDB tells items apart, so a `commit: 'batch'` group knows one item however its key
 * is written in JavaScript: each attribute's value as the DocumentClient sends it (marshalled with
 * the client's `marshallOptions`, as the group sizes its writes), its `N` text read as the number it means (DynamoDB
 * Local takes `7`, `7.0`, `07`, `70e-1` and `+7` for one key, and `-0` for `0`), its `B` as its
 * bytes (a `Buffer`, a `Uint8Array` or any view of the same bytes alike) and its `S` as the text
 * DynamoDB keeps in UTF-8 (each lone surrogate one replacement character).
 */

import { canonicalNumber } from '../write/numbers.js';

/** The bytes of a `B` value as one text; `undefined` for what holds no bytes. */
function bytesText(value: unknown): string | undefined {
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString('base64');
  return undefined;
}

/**
 * One text per value DynamoDB tells apart in a key, of a marshalled attribute value. A value of no
 * key type (a map, a list, a set, a `Blob`) is shown as JSON: DynamoDB refuses it in a key, whatever
 * the group holds.
 */
function attributeText(attribute: Record<string, unknown>): string {
  if (typeof attribute.S === 'string') return `S${attribute.S.toWellFormed()}`;
  if (typeof attribute.N === 'string') return `N${canonicalNumber(attribute.N)}`;
  const bytes = bytesText(attribute.B);
  if (bytes !== undefined) return `B${bytes}`;
  return `?${JSON.stringify(attribute)}`;
}

/**
 * The text of the item `key` names in its table: each attribute, by name, of the key as sent, its
 * values marshalled (its table's key schema is not known here, so every attribute counts).
 */
export function itemKeyText(key: Readonly<Record<string, Record<string, unknown>>>): string {
  return Object.keys(key)
    .sort()
    .map((name) => JSON.stringify([name, attributeText(key[name] as Record<string, unknown>)]))
    .join(',');
}
