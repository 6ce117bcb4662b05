import { describe, expect, it } from 'vitest';
import { LocalStats } from '../../shared/local/stack/stats.js';

describe('local stats of batch messages', () => {
  it('measures a batch message’s lag from its first event, the earliest committed', () => {
    const stats = new LocalStats();
    const first = Date.parse('2026-11-22T10:00:00.000Z');
    const body = JSON.stringify([
      { id: 'e1', time: new Date(first).toISOString() },
      { id: 'e2', time: new Date(first + 40).toISOString() },
    ]);
    expect(stats.recordLag(body, first + 100)).toBe(100);
    expect(stats.lag().samples).toBe(1);
  });

  it('rejects an empty batch and a JSON null instead of counting a made-up lag', () => {
    const stats = new LocalStats();
    expect(stats.recordLag('[]', Date.now())).toBeUndefined();
    expect(stats.recordLag('null', Date.now())).toBeUndefined();
    expect(stats.lag().samples).toBe(0);
  });

  it('rejects a time that is no RFC 3339 date-time instead of counting a lag from a made-up instant', () => {
    const stats = new LocalStats();
    for (const time of ['5', '2026-11-22T10:00:00', '2026-02-30T10:00:00Z']) {
      expect(stats.recordLag(JSON.stringify({ id: 'e1', time }), Date.parse('2026-11-22T10:00:01Z'))).toBeUndefined();
    }
    expect(stats.lag().samples).toBe(0);
  });
});
