import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ArchiveObjectError, encodeArchiveObject } from '../../shared/archive/layout.js';
import { archiveObjectEvents } from '../../shared/archive/reader-decode.js';
import { anEnvelope } from '../helpers/envelopes.js';

const KEY = 'events/v1/aggregatetype=order/type=order.placed/date=2026-03-01/hour=10/a.ndjson.gz';

describe('archiveObjectEvents', () => {
  it('keeps each envelope with its line as archived, a legacy envelope ordered by its sequence', () => {
    const current = anEnvelope({ aggregateId: 'o-1', sequence: 4, data: { note: '\\ufffe' } });
    const legacy = anEnvelope({ aggregateId: 'o-2', sequence: 7, legacy: true });

    const { events, problems } = archiveObjectEvents(KEY, encodeArchiveObject([current.body, legacy.body]));

    expect(problems).toEqual([]);
    expect(events.map((e) => [e.id, e.aggregateId, e.sequence])).toEqual([
      [current.id, 'o-1', 4],
      [legacy.id, 'o-2', 7],
    ]);
    // The text as published, escapes and all: a parse and stringify would not give it back.
    expect(events[0]?.body).toBe(current.body);
  });

  it('reports each line that is not JSON or not an envelope, by line, and keeps the others', () => {
    const good = anEnvelope();
    const body = gzipSync(
      [
        good.body,
        '{"id":',
        '[1,2]',
        JSON.stringify({ ...JSON.parse(good.body), time: 'soon' }),
        JSON.stringify({ ...JSON.parse(good.body), aggregatesequence: 0 }),
        JSON.stringify({ ...JSON.parse(good.body), time: '2026-03-01T10:15:00' }),
        JSON.stringify({ ...JSON.parse(good.body), time: '5' }),
      ].join('\n'),
    );

    const { events, problems } = archiveObjectEvents(KEY, body);

    expect(events).toHaveLength(1);
    expect(problems.map((p) => [p.key, p.line, p.reason])).toEqual([
      [KEY, 2, expect.stringMatching(/^not JSON/)],
      [KEY, 3, 'not a JSON object'],
      [KEY, 4, expect.stringContaining('time "soon" is not a date')],
      [KEY, 5, expect.stringContaining('aggregatesequence is 0')],
      // What the archiver placed by when it was published: no instant to order it by.
      [KEY, 6, expect.stringContaining('time "2026-03-01T10:15:00" is not a date')],
      [KEY, 7, expect.stringContaining('time "5" is not a date')],
    ]);
  });

  it('fails on a body that is not gzip, naming the key', () => {
    expect(() => archiveObjectEvents(KEY, new TextEncoder().encode('{}'))).toThrow(ArchiveObjectError);
    expect(() => archiveObjectEvents(KEY, new TextEncoder().encode('{}'))).toThrow(`archive object ${JSON.stringify(KEY)} is not gzip`);
  });
});
