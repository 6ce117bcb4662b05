import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  ArchiveObjectError,
  archiveObjectKey,
  archivePartitionOf,
  archiveTypePrefix,
  decodeArchiveObject,
  encodeArchiveObject,
  parseArchiveObjectKey,
} from '../../shared/archive/layout.js';
import { archiveSegment, MAX_ARCHIVE_SEGMENT_BYTES } from '../../shared/archive/layout-segment.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('archive layout', () => {
  it('places an event by aggregate type, type and the UTC hour of its time', () => {
    const partition = archivePartitionOf({ aggregatetype: 'order', type: 'order.placed', time: '2026-03-01T23:59:59.999+01:00' });
    expect(partition).toEqual({ aggregateType: 'order', type: 'order.placed', hour: '2026-03-01T22' });
    expect(archiveObjectKey(partition!, 'a-1')).toBe(
      'events/v1/aggregatetype=order/type=order.placed/date=2026-03-01/hour=22/a-1.ndjson.gz',
    );
  });

  it('returns no partition for an event whose time is not a date', () => {
    expect(archivePartitionOf({ aggregatetype: 'order', type: 't', time: 'yesterday' })).toBeUndefined();
  });

  it('returns no partition for a time that is not RFC 3339 with an offset on a real date', () => {
    for (const time of ['5', '2026-03-01T10:15:00', '2026-03-01', '2026-02-30T10:00:00Z', '2026-03-01 10:15:00Z', '2026-03-01T24:00:00Z']) {
      expect(archivePartitionOf({ aggregatetype: 'order', type: 't', time }), time).toBeUndefined();
    }
    expect(archivePartitionOf({ aggregatetype: 'order', type: 't', time: '2024-02-29t23:30:00.123456-01:00' })?.hour).toBe('2024-03-01T00');
  });

  it('round-trips keys whose names need encoding', () => {
    const partition = { aggregateType: 'order/line', type: 'line added=1', hour: '2026-11-27T05' };
    const key = archiveObjectKey(partition, 'x');
    expect(key.startsWith(archiveTypePrefix('order/line', 'line added=1'))).toBe(true);
    expect(parseArchiveObjectKey(key)).toEqual({ partition, name: 'x' });
  });

  it('keeps every key within 1,024 bytes, however long or wide the names', () => {
    // 256 four-byte characters: the write helper's longest event type at 12 encoded bytes each.
    const widest = '😀'.repeat(256);
    const partition = { aggregateType: widest, type: widest, hour: '9999-12-31T23' };
    expect(bytes(archiveObjectKey(partition, 'x'.repeat(64)))).toBeLessThanOrEqual(1024);
    // Each width of character (1 to 4 UTF-8 bytes, and ASCII that encodes to 3), around every length that matters.
    for (const character of ['a', '%', 'é', '確', '😀']) {
      for (const length of [1, 33, 34, 133, 134, 256, 400, 1000]) {
        const name = character.repeat(length);
        const key = archiveObjectKey({ aggregateType: name, type: `${name}.x`, hour: '2026-03-01T10' }, 'x'.repeat(64));
        expect(bytes(key), `${character} × ${length}`).toBeLessThanOrEqual(1024);
      }
    }
  });

  it('shortens a long type name to a readable beginning and a hash of the whole name, and says so when parsing the key', () => {
    const long = `注文${'確'.repeat(118)}`;
    const other = `注文${'確'.repeat(117)}済`;
    const segment = archiveSegment(long);
    expect(segment.length).toBeLessThanOrEqual(MAX_ARCHIVE_SEGMENT_BYTES);
    expect(segment).toMatch(/^%E6%B3%A8%E6%96%87(%E7%A2%BA)+~[0-9a-f]{16}$/);
    expect(decodeURIComponent(segment.slice(0, -17))).toBe(long.slice(0, decodeURIComponent(segment.slice(0, -17)).length));
    expect(archiveSegment(other)).not.toBe(segment);
    const key = archiveObjectKey({ aggregateType: 'order', type: long, hour: '2026-03-01T10' }, 'x');
    expect(key).toBe(`events/v1/aggregatetype=order/type=${segment}/date=2026-03-01/hour=10/x.ndjson.gz`);
    expect(parseArchiveObjectKey(key)).toEqual({
      partition: { aggregateType: 'order', type: undefined, hour: '2026-03-01T10' },
      name: 'x',
    });
  });

  it('keeps a name that fits as it was, even one ending in ~ and hex', () => {
    expect(archiveSegment('order.placed~0123456789abcdef')).toBe('order.placed~0123456789abcdef');
    const fits = 'a'.repeat(MAX_ARCHIVE_SEGMENT_BYTES);
    expect(archiveSegment(fits)).toBe(fits);
    // As long as a shortened one and shaped like one: shortened, so a key never reads two ways.
    const lookalike = `${'a'.repeat(MAX_ARCHIVE_SEGMENT_BYTES - 17)}~0123456789abcdef`;
    expect(archiveSegment(lookalike)).not.toBe(lookalike);
  });

  it('rejects a key outside the layout, naming it', () => {
    expect(() => parseArchiveObjectKey('events/v1/other.json')).toThrow(ArchiveObjectError);
    expect(() => parseArchiveObjectKey('events/v1/other.json')).toThrow(/events\/v1\/other\.json/);
  });

  it('rejects object names that would leave their partition', () => {
    expect(() => archiveObjectKey({ aggregateType: 'a', type: 't', hour: '2026-01-01T00' }, '../x')).toThrow(RangeError);
  });

  it('round-trips envelopes and reports lines that are not JSON', () => {
    const body = encodeArchiveObject(['{"id":"1"}', '{"id":"2"}']);
    expect(decodeArchiveObject('k', body)).toEqual({
      lines: [
        { line: 1, text: '{"id":"1"}', record: { id: '1' } },
        { line: 2, text: '{"id":"2"}', record: { id: '2' } },
      ],
      malformed: [],
    });
    const mixed = decodeArchiveObject('k', gzipSync('{"id":"1"}\nnot json\n'));
    expect(mixed.lines.map((l) => l.record)).toEqual([{ id: '1' }]);
    expect(mixed.malformed).toEqual([{ line: 2, reason: expect.any(String) }]);
  });

  it('rejects a body that is not gzip, naming the object', () => {
    const error = (() => {
      try {
        decodeArchiveObject('events/v1/bad.ndjson.gz', new TextEncoder().encode('plain'));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ArchiveObjectError);
    expect((error as ArchiveObjectError).code).toBe('CORRUPT_ARCHIVE_OBJECT');
    expect((error as ArchiveObjectError).message).toContain('events/v1/bad.ndjson.gz');
  });
});
