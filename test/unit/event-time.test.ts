import { describe, expect, it } from 'vitest';
import { parseEventTime, parseInstantText } from '../../shared/event-time.js';

describe('parseEventTime', () => {
  it('reads RFC 3339 date-times with Z or a numeric offset, any fraction, either case of T and Z', () => {
    expect(parseEventTime('2026-03-01T10:15:00.000Z')).toBe(Date.parse('2026-03-01T10:15:00.000Z'));
    expect(parseEventTime('2026-03-01T10:15:00+01:00')).toBe(Date.parse('2026-03-01T09:15:00Z'));
    expect(parseEventTime('2026-03-01t10:15:00-05:30')).toBe(Date.parse('2026-03-01T15:45:00Z'));
    expect(parseEventTime('2026-03-01T10:15:00.123456789z')).toBe(Date.parse('2026-03-01T10:15:00.123Z'));
    expect(parseEventTime('2024-02-29T00:00:00Z')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    expect(parseEventTime('0001-01-01T00:00:00Z')).toBe(Date.parse('0001-01-01T00:00:00Z'));
    // A leap second is the instant after :59.
    expect(parseEventTime('2016-12-31T23:59:60Z')).toBe(Date.parse('2017-01-01T00:00:00Z'));
  });

  it('rejects what Date.parse takes but RFC 3339 does not, whatever the machine time zone', () => {
    for (const text of [
      '5',
      '20000',
      '2026-03-01',
      '2026-03-01T10:15:00',
      '2026-03-01T10:15Z',
      '2026-03-01 10:15:00Z',
      'Sun, 01 Mar 2026 10:15:00 GMT',
      '+010000-01-01T00:00:00.000Z',
      '2026-03-01T10:15:00+0100',
      ' 2026-03-01T10:15:00Z',
    ]) {
      expect(parseEventTime(text), text).toBeUndefined();
    }
  });

  it('rejects a date or time that does not exist instead of rolling it over', () => {
    for (const text of [
      '2026-02-29T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-03-00T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T10:60:00Z',
      '2026-03-01T10:15:61Z',
      '2026-03-01T10:15:00+24:00',
    ]) {
      expect(parseEventTime(text), text).toBeUndefined();
    }
  });
});

describe('parseInstantText', () => {
  it('reads a date as its UTC midnight, and a date-time with Z or an offset, the seconds optional, spaces around ignored', () => {
    expect(parseInstantText('2026-03-01')).toBe(Date.parse('2026-03-01T00:00:00Z'));
    expect(parseInstantText('2026-03-01T10:30Z')).toBe(Date.parse('2026-03-01T10:30:00Z'));
    expect(parseInstantText('2026-03-01T10:30+02:00')).toBe(Date.parse('2026-03-01T08:30:00Z'));
    expect(parseInstantText('2026-03-01T10:30:15.123456789-01:00')).toBe(Date.parse('2026-03-01T11:30:15.123Z'));
    expect(parseInstantText(' 2028-02-29 ')).toBe(Date.parse('2028-02-29T00:00:00Z'));
    expect(parseInstantText('2026-06-30T23:59:60Z')).toBe(Date.parse('2026-07-01T00:00:00Z'));
  });

  it('refuses a time without its zone, a day or hour that does not exist, and what is not a date', () => {
    for (const text of [
      '2026-03-01T10:30:00',
      '2026-03-01T10:30',
      '2026-02-29',
      '2026-02-30T10:00:00Z',
      '2026-03-01T24:00Z',
      '2026-03-01T10:00:00+24:00',
      '2026-03-01t10:00:00z',
      '2026-03-01T10:00:00.1234567890Z',
      '+002026-03-01T10:00:00Z',
      '2026-03',
      'yesterday',
      '',
    ]) {
      expect(parseInstantText(text), text).toBeUndefined();
    }
  });
});
