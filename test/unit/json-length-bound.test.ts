import { readFileSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jsonLengthBound } from '../../shared/local/event-source/payload-size.js';
import { slotRecord } from '../helpers/stream-records.js';

const fixture = (name: string): DynamoDBStreamEvent =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as DynamoDBStreamEvent;
/** The exact size the bound is of: UTF-8 bytes of JSON, as Lambda counts its payload limit. */
const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));
/** Any code point (1–3 bytes in one UTF-16 unit, 4 in two), or a lone surrogate (escaped to `\uXXXX`). */
const anyUnit = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
);

describe('JSON length bound of the runner’s payload check', () => {
  test.prop([fc.jsonValue({ stringUnit: anyUnit })])('is never below the exact UTF-8 size of any JSON value', (value) => {
    expect(jsonLengthBound(value)).toBeGreaterThanOrEqual(jsonBytes(value));
  });

  test.prop([fc.string({ unit: anyUnit }), fc.double()])(
    'holds for strings that must be escaped or are not ASCII, and for any double',
    (text, number) => {
      expect(jsonLengthBound(text)).toBeGreaterThanOrEqual(jsonBytes(text));
      expect(jsonLengthBound({ [text]: text })).toBeGreaterThanOrEqual(jsonBytes({ [text]: text }));
      expect(jsonLengthBound(number)).toBeGreaterThanOrEqual(jsonBytes(number));
    },
  );

  it('holds for the widest characters: three bytes in one code unit, four in a surrogate pair, six for an escape', () => {
    for (const text of ['€', '\uffff', '😀', '\ud800', '\udfff', '\u0000', '"']) {
      expect(jsonLengthBound(text.repeat(100))).toBeGreaterThanOrEqual(jsonBytes(text.repeat(100)));
    }
  });

  it('holds for the longest a double prints, for what JSON leaves out or turns to null, and for toJSON', () => {
    const values: unknown[] = [-0.0000012345678901234567, -1.2345678901234567e-308, -123456789012345680000, Number.NaN];
    values.push({ skipped: undefined, fn: () => 1 }, [undefined, () => 1], new Date(0), { at: new Date(0) });
    for (const value of values) expect(jsonLengthBound(value)).toBeGreaterThanOrEqual(jsonBytes(value));
  });

  it('holds for Lambda stream records, and stays within a small multiple of their size', () => {
    const records = [...fixture('aws-dynamodb-stream-event.json').Records, slotRecord({ eventName: 'MODIFY' })];
    records.push(slotRecord({ eventName: 'MODIFY', data: { note: 'Grüße, 東京 😀' } }));
    for (const record of records) {
      const exact = jsonBytes(record);
      expect(jsonLengthBound(record)).toBeGreaterThanOrEqual(exact);
      expect(jsonLengthBound(record)).toBeLessThanOrEqual(6 * exact);
    }
  });
});
