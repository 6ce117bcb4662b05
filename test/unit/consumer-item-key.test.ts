import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { marshallOptions } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { itemKeyText } from '../../shared/consumer/item-key.js';
import { marshalOperation } from '../../shared/write/operation-size.js';

/** The key's text as a group reads it: from the action marshalled as it is sized and sent; `undefined` when it does not marshal. */
function keyText(key: Record<string, unknown>, options: marshallOptions = {}): string | undefined {
  try {
    const { marshalled } = marshalOperation({ Delete: { TableName: 'orders', Key: key } }, 0, options);
    return itemKeyText(marshalled.Delete?.Key as Record<string, Record<string, unknown>>);
  } catch {
    return undefined;
  }
}

const text = (id: unknown, options = {}) => keyText({ pk: 'ORDER', id }, options);

describe("a commit group's item keys: one text per item DynamoDB tells apart", () => {
  it('reads each spelling of a number as the number it means', () => {
    const forms = [
      7,
      7n,
      NumberValue.from('7'),
      NumberValue.from('7.0'),
      NumberValue.from('07'),
      NumberValue.from('70e-1'),
      NumberValue.from('+7'),
    ];
    expect(new Set(forms.map((form) => text(form))).size).toBe(1);
    expect(text(0)).toBe(text(-0));
    expect(text(NumberValue.from('-0.0'))).toBe(text(0));
    expect(text(12345678901234567890n)).toBe(text(NumberValue.from('1.2345678901234567890E19')));
    expect(text(7)).not.toBe(text(70));
    expect(text(7)).not.toBe(text(-7));
    expect(text(7)).not.toBe(text(NumberValue.from('7.000001')));
  });

  it('reads a binary value as its bytes, whatever holds them', () => {
    const bytes = [0, 1, 2, 250];
    const larger = new Uint8Array([9, ...bytes, 9]);
    const forms = [Buffer.from(bytes), Uint8Array.from(bytes), larger.subarray(1, 5)];
    expect(new Set(forms.map((form) => text(form))).size).toBe(1);
    expect(text(Buffer.from(bytes))).toBeDefined();
    expect(text(Buffer.from([0, 1, 2]))).not.toBe(text(Buffer.from(bytes)));
    // Marshalled values that hold the bytes otherwise are read as those bytes too.
    const sent = (B: unknown) => itemKeyText({ pk: { S: 'ORDER' }, id: { B } });
    expect(sent(new DataView(larger.buffer, 1, 4))).toBe(sent(Uint8Array.from(bytes)));
    expect(sent(Uint8Array.from(bytes).buffer)).toBe(sent(Uint8Array.from(bytes)));
  });

  it('gives no text for binary the DocumentClient would not send as its bytes: the group marshals it as the write helper does, which refuses it', () => {
    const bytes = Uint8Array.from([0, 1, 2, 250]);
    expect(text(bytes.buffer)).toBeUndefined();
    expect(text(new DataView(bytes.buffer))).toBeUndefined();
    expect(text(new Blob([bytes]))).toBeUndefined();
  });

  it('tells a string from a number or bytes of the same look', () => {
    expect(text('7')).not.toBe(text(7));
    expect(text('7.0')).not.toBe(text('7'));
    expect(text('AAEC+g==')).not.toBe(text(Buffer.from([0, 1, 2, 250])));
  });

  it('gives no text for a key string with a lone surrogate: the group marshals it as the write helper does, which refuses it', () => {
    // How a marshalled string with a lone surrogate is spelt (as UTF-8 keeps it) is held in key-text.test.ts.
    expect(text('k\uD800')).toBeUndefined();
    expect(text('k\uDC00')).toBeUndefined();
    expect(text('k\uFFFD')).toBeDefined();
  });

  it('reads attributes by name, in any order, and leaves out what the DocumentClient leaves out', () => {
    expect(keyText({ pk: 'A', sk: 1 })).toBe(keyText({ sk: 1n, pk: 'A' }));
    expect(keyText({ pk: 'A', sk: 'B' })).not.toBe(keyText({ pk: 'B', sk: 'A' }));
    expect(keyText({ pk: 'A', sk: 'B', extra: undefined, fn: () => 1 })).toBe(keyText({ pk: 'A', sk: 'B' }));
  });

  it("marshals with the client's options, and gives no text for a key that does not marshal", () => {
    // A number past 2^53 marshals only with allowImpreciseNumbers (the DocumentClient refuses it otherwise),
    // and is sent as JavaScript prints it: 2^60 goes as 1152921504606847000, not 1152921504606846976.
    expect(text(2 ** 60)).toBeUndefined();
    expect(text(2 ** 60, { allowImpreciseNumbers: true })).toBe(text(1152921504606847000n));
    expect(text(2 ** 60, { allowImpreciseNumbers: true })).not.toBe(text(2n ** 60n));
    expect(text(new Date(0))).toBeUndefined();
  });
});
