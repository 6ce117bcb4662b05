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

  it('round-trips keys whose names need encoding', () => {
    const partition = { aggregateType: 'order/line', type: 'line added=1', hour: '2026-11-27T05' };
    const key = archiveObjectKey(partition, 'x');
    expect(key.startsWith(archiveTypePrefix('order/line', 'line added=1'))).toBe(true);
    expect(parseArchiveObjectKey(key)).toEqual({ partition, name: 'x' });
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
