import { readFileSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jsonLengthBound } from '../../shared/local/shard-reader.js';
import { slotRecord } from '../helpers/stream-records.js';

const fixture = (name: string): DynamoDBStreamEvent =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as DynamoDBStreamEvent;

describe('JSON length bound of the runner’s payload check', () => {
  test.prop([fc.jsonValue()])('is never below the exact length of any JSON value', (value) => {
    expect(jsonLengthBound(value)).toBeGreaterThanOrEqual(JSON.stringify(value).length);
  });

  test.prop([fc.string({ unit: 'binary' }), fc.double()])('holds for strings that must be escaped and for any double', (text, number) => {
    expect(jsonLengthBound(text)).toBeGreaterThanOrEqual(JSON.stringify(text).length);
    expect(jsonLengthBound(number)).toBeGreaterThanOrEqual(JSON.stringify(number).length);
  });

  it('holds for the longest a double prints, for what JSON leaves out or turns to null, and for toJSON', () => {
    const values: unknown[] = [-0.0000012345678901234567, -1.2345678901234567e-308, -123456789012345680000, Number.NaN];
    values.push({ skipped: undefined, fn: () => 1 }, [undefined, () => 1], new Date(0), { at: new Date(0) });
    for (const value of values) expect(jsonLengthBound(value)).toBeGreaterThanOrEqual(JSON.stringify(value).length);
  });

  it('holds for Lambda stream records, and stays within a small multiple of their length', () => {
    const records = [...fixture('aws-dynamodb-stream-event.json').Records, slotRecord({ eventName: 'MODIFY' })];
    for (const record of records) {
      const exact = JSON.stringify(record).length;
      expect(jsonLengthBound(record)).toBeGreaterThanOrEqual(exact);
      expect(jsonLengthBound(record)).toBeLessThanOrEqual(6 * exact);
    }
  });
});
