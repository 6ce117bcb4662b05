/**
 * A key as DynamoDB tells items apart, so a `commit: 'batch'` group knows one item however its key
 * is written in JavaScript: each attribute's value as the DocumentClient sends it (marshalled with
 * the client's `marshallOptions`, as the group sizes its writes), spelt as the write helper spells
 * the keys of its operations ({@link keyValueText}: `7`, `7n` and `NumberValue('7.0')` alike, a
 * `Buffer`, a `Uint8Array` or any view of the same bytes alike), a string with a lone surrogate
 * read as DynamoDB keeps it in UTF-8 (each one replacement character).
 */

import { keyText, keyValueText } from '../write/key-text.js';

/**
 * The text of the item `key` names in its table: each attribute, by name, of the key as sent, its
 * values marshalled (its table's key schema is not known here, so every attribute counts). A value
 * of no key type (a map, a list, a set, a `Blob`) is shown as JSON: DynamoDB refuses it in a key,
 * whatever the group holds.
 */
export function itemKeyText(key: Readonly<Record<string, Record<string, unknown>>>): string {
  return keyText(Object.entries(key).map(([name, value]) => [name, keyValueText(value) ?? `?${JSON.stringify(value)}`] as const));
}
