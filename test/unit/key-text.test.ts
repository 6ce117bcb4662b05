import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { itemKeyText } from '../../shared/consumer/item-key.js';
import { WriteValidationError } from '../../shared/errors.js';
import { keyText, keyValueText } from '../../shared/write/key-text.js';
import { otherTableItemId } from '../../shared/write/keys.js';
import { marshalOperation } from '../../shared/write/operation-size.js';

/** The key's text as a consumer's group reads it: from the action marshalled as it is sent. */
function groupText(key: Record<string, unknown>): string {
  const { marshalled } = marshalOperation({ Delete: { TableName: 'orders', Key: key } }, 0, {});
  return `orders\u0000${itemKeyText(marshalled.Delete?.Key as Record<string, Record<string, unknown>>)}`;
}

const writeText = (key: Record<string, unknown>) => otherTableItemId('orders', key, 'operations[0].Delete.Key');

describe("an item's key, spelt once for the write helper and a consumer's group", () => {
  const bytes = [0, 1, 2, 250];
  const keys: Record<string, unknown>[] = [
    { id: 7 },
    { id: 7n },
    { id: NumberValue.from('7.0') },
    { id: NumberValue.from('-0') },
    { id: 12345678901234567890n },
    { id: Buffer.from(bytes) },
    { id: Uint8Array.from(bytes) },
    { id: Uint8Array.from([9, ...bytes]).subarray(1) },
    { id: 'k' },
    { id: '7' },
    { pk: 'A', sk: 1 },
    { sk: 1n, pk: 'A' },
    { '\u00e9': 'x', e: 'y' },
    // Sent as the primitives they hold.
    { id: new Number(7) },
    { id: new String('k') },
  ];

  it.each(keys.map((key) => [key] as const))('gives the write helper and the group one text for %o', (key) => {
    expect(writeText(key)).toBe(groupText(key));
  });

  it('keeps the spellings the write helper and the group tell apart, and those they take for one', () => {
    const texts = keys.map(writeText);
    expect(texts[0]).toBe(texts[1]);
    expect(texts[0]).toBe(texts[2]);
    expect(texts[0]).toBe(texts[13]);
    expect(texts[5]).toBe(texts[6]);
    expect(texts[5]).toBe(texts[7]);
    expect(texts[10]).toBe(texts[11]);
    expect(texts[8]).toBe(texts[14]);
    expect(new Set(texts).size).toBe(texts.length - 7);
  });

  it.each([
    ['an ArrayBuffer', () => Uint8Array.from(bytes).buffer, 'an ArrayBuffer of 4 bytes'],
    ['a DataView', () => new DataView(Uint8Array.from([9, ...bytes]).buffer, 1, 4), 'a DataView of 4 bytes'],
    ['a typed array other than Uint8Array', () => new Uint16Array(Uint8Array.from(bytes).buffer), 'a Uint16Array of 4 bytes'],
    ['a Blob', () => new Blob([Uint8Array.from(bytes)]), 'a Blob of 4 bytes'],
  ])('refuses in the write helper a binary key given as %s, which the DocumentClient does not send as its bytes', (_, make, shown) => {
    expect(() => writeText({ id: make() })).toThrow(WriteValidationError);
    expect(() => writeText({ id: make() })).toThrow(
      `operations[0].Delete.Key.id is ${shown}, which the DynamoDB DocumentClient does not send as its bytes`,
    );
  });

  it('refuses a key string with a lone surrogate in the write helper, where the group reads it as DynamoDB keeps it', () => {
    const refusal = (() => {
      try {
        return writeText({ id: 'k\uD800' });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(WriteValidationError);
    expect((refusal as Error).message).toContain('operations[0].Delete.Key.id is "k\\ud800", which is not well-formed Unicode');
    // The group's marshalling refuses such a string as the write helper's does; its key text, given one, reads it as UTF-8 keeps it.
    const sent = (text: string) => itemKeyText({ id: { S: text } });
    expect(sent('k\uD800')).toBe(sent('k\uDC00'));
    expect(sent('k\uD800')).toBe(sent('k\uFFFD'));
    expect(sent('k\uD800')).not.toBe(sent('k'));
  });

  it('gives no text for a value of no key type', () => {
    expect(keyValueText({ M: {} } as never)).toBeUndefined();
    expect(keyValueText({ B: new Blob([Uint8Array.from(bytes)]) })).toBeUndefined();
    expect(writeText({ id: { nested: 1 } })).toBeUndefined();
    expect(
      keyText([
        ['b', 'S1'],
        ['a', 'N1'],
      ]),
    ).toBe(
      keyText([
        ['a', 'N1'],
        ['b', 'S1'],
      ]),
    );
  });
});
