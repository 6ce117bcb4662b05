import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startLiveRefresher } from '../../shared/local/stack/live-refresher.js';
import { type LiveSnapshot, renderLiveLine, renderLiveView } from '../../shared/local/stack/live-view.js';
import { LocalStats, MAX_LAG_TYPES, OTHER_TYPES } from '../../shared/local/stack/stats.js';

const snapshot = (overrides: Partial<LiveSnapshot> = {}): LiveSnapshot => ({
  at: Date.parse('2026-11-22T10:01:05Z'),
  startedAt: Date.parse('2026-11-22T10:00:00Z'),
  written: 1200,
  published: 1190,
  delivered: 1100,
  lag: { samples: 1000, p50: 41.6, p99: 230 },
  relay: { invocations: 300, failedInvocations: 2, batchesSentToOnFailure: 0 },
  relayDeadLetters: 1,
  consumers: [
    { name: 'order-view', delivered: 800, failed: 3, deadLetters: 2 },
    { name: 'order-view-payments', delivered: 300, failed: 0, deadLetters: 0 },
  ],
  ...overrides,
});

describe('live view', () => {
  it('shows totals, per-second rates from the previous snapshot, dead letters, lag and one row per consumer', () => {
    const before = snapshot({ at: Date.parse('2026-11-22T10:01:03Z'), written: 1180, published: 1170, delivered: 1090 });
    const lines = renderLiveView(snapshot(), before);
    const text = lines.join('\n');

    expect(lines[0]).toContain('up 0:01:05');
    expect(lines.find((l) => l.startsWith('written'))).toMatch(/written\s+1,200\s+10\.0$/);
    expect(lines.find((l) => l.startsWith('published'))).toMatch(/1,190\s+10\.0$/);
    expect(lines.find((l) => l.startsWith('delivered'))).toMatch(/1,100\s+5\.0$/);
    expect(lines.find((l) => l.startsWith('dead-lettered'))).toMatch(/dead-lettered\s+3\s+now in DLQs \(relay DLQ 1\)/);
    expect(text).toContain('p50 42 ms · p99 230 ms   (last 1,000 deliveries)');
    expect(lines.find((l) => l.startsWith('order-view '))).toMatch(/order-view\s+800\s+3\s+2$/);
    expect(lines.find((l) => l.startsWith('order-view-payments'))).toMatch(/300\s+0\s+0$/);
    expect(text).not.toContain('load');
  });

  it('leaves rates blank without a previous snapshot and shows the load line while --load runs', () => {
    const lines = renderLiveView(snapshot({ load: { rate: 20, sent: 400, succeeded: 390, rejected: 9, errors: 1, skipped: 0 } }));

    expect(lines.find((l) => l.startsWith('written'))).toMatch(/written\s+1,200$/);
    expect(lines[1]).toBe('load 20/s: sent 400 · 2xx 390 · 4xx 9 · 5xx/failed 1');
    expect(renderLiveView(snapshot({ load: { rate: 500, sent: 9, succeeded: 9, rejected: 0, errors: 0, skipped: 1200 } }))[1]).toBe(
      'load 500/s: sent 9 · 2xx 9 · 4xx 0 · 5xx/failed 0 · skipped 1,200 (API behind)',
    );
  });

  it('shows a dash for lag before the first delivery, and one plain line for non-terminal output', () => {
    const empty = snapshot({ lag: { samples: 0, p50: Number.NaN, p99: Number.NaN } });

    expect(renderLiveView(empty).join('\n')).toContain('p50 – · p99 –');
    expect(renderLiveLine(empty)).toBe('10:01:05 written 1200 · published 1190 · delivered 1100 · dead-lettered 3 · lag p50 – p99 –');
  });

  it('shows the load requests skipped in the one-line view too, as the terminal view does', () => {
    const load = { rate: 500, sent: 9, succeeded: 9, rejected: 1, errors: 2, skipped: 1200 };

    expect(renderLiveLine(snapshot({ load }))).toMatch(/ · load sent 9 \(4xx 1, 5xx\/failed 2, skipped 1200 \(API behind\)\)$/);
    expect(renderLiveLine(snapshot({ load: { ...load, skipped: 0 } }))).toMatch(/ · load sent 9 \(4xx 1, 5xx\/failed 2\)$/);
  });
});

describe('local stats', () => {
  it('measures commit→delivery lag from the envelope time and keeps percentiles over the recent deliveries', () => {
    const stats = new LocalStats();
    const committed = Date.parse('2026-11-22T10:00:00.000Z');
    for (let i = 1; i <= 100; i++) stats.recordLag(JSON.stringify({ id: `e${i}`, time: new Date(committed).toISOString() }), committed + i);

    expect(stats.lag()).toEqual({ samples: 100, p50: 50, p99: 99 });
  });

  it('rejects bodies without a readable time instead of counting a made-up lag', () => {
    const stats = new LocalStats();

    expect(stats.recordLag('not json', Date.now())).toBeUndefined();
    expect(stats.recordLag('{"time":"yesterday"}', Date.now())).toBeUndefined();
    expect(stats.lag().samples).toBe(0);
  });

  it('keeps only the last 1,000 lags', () => {
    const stats = new LocalStats();
    const time = new Date(0).toISOString();
    for (let i = 0; i < 1500; i++) stats.recordLag(JSON.stringify({ time }), i < 500 ? 1_000_000 : 10);

    expect(stats.lag()).toEqual({ samples: 1000, p50: 10, p99: 10 });
  });
});

describe('live view on a terminal', () => {
  it('uses the usual width when the terminal reports 0 columns, instead of cutting every line to 20 characters', () => {
    const written: string[] = [];
    const terminal = (columns: number | undefined) =>
      Object.assign(new EventEmitter(), {
        isTTY: true,
        columns,
        write: (chunk: string) => written.push(String(chunk)) > 0,
      }) as unknown as NodeJS.WriteStream;
    const view = startLiveRefresher({ snapshot: () => snapshot(), output: terminal(0), errorOutput: terminal(80), intervalMs: 60_000 });
    view.stop();

    expect(written.join('')).toContain('dynamodb-outbox local stack · up 0:01:05');
  });
});

describe('live view lag per event type', () => {
  it('shows a p50/p99 row per event type under the overall lag', () => {
    const lines = renderLiveView(
      snapshot({
        lagByType: [
          { type: 'order.placed', lag: { samples: 600, p50: 40.2, p99: 180 } },
          { type: 'order.paid', lag: { samples: 12, p50: 1_250, p99: 3_400 } },
        ],
      }),
    );
    const at = lines.findIndex((l) => l.startsWith('commit→delivery lag'));

    expect(lines.slice(at + 1, at + 3)).toEqual([
      '  order.placed         p50 40 ms · p99 180 ms   (last 600)',
      '  order.paid           p50 1,250 ms · p99 3,400 ms   (last 12)',
    ]);
  });

  it('shows no per-type row before the first delivery', () => {
    const lines = renderLiveView(snapshot({ lagByType: [] }));
    const at = lines.findIndex((l) => l.startsWith('commit→delivery lag'));

    expect(lines[at + 1]).toMatch(/^relay invocations/);
  });
});

describe('local stats lag per event type', () => {
  const committed = Date.parse('2026-11-22T10:00:00.000Z');
  const envelope = (type: string, offsetMs = 0) => ({ type, time: new Date(committed + offsetMs).toISOString() });

  it('measures each event type apart, each event of a batch message from its own commit time', () => {
    const stats = new LocalStats();
    stats.recordLag(JSON.stringify(envelope('order.placed')), committed + 100);
    stats.recordLag(JSON.stringify([envelope('order.paid'), envelope('order.placed', 50)]), committed + 300);

    expect(stats.lagByType()).toEqual([
      { type: 'order.placed', lag: { samples: 2, p50: 100, p99: 250 } },
      { type: 'order.paid', lag: { samples: 1, p50: 300, p99: 300 } },
    ]);
    // The overall lag still counts a batch message once, from its first event.
    expect(stats.lag()).toMatchObject({ samples: 2, p50: 100, p99: 300 });
  });

  it(`keeps ${MAX_LAG_TYPES} types in rows of their own and buckets later ones as "${OTHER_TYPES}", last`, () => {
    const stats = new LocalStats();
    for (let i = 0; i < MAX_LAG_TYPES + 3; i++) stats.recordLag(JSON.stringify(envelope(`t${i}`)), committed + i);

    const rows = stats.lagByType();
    expect(rows).toHaveLength(MAX_LAG_TYPES + 1);
    expect(rows.slice(0, MAX_LAG_TYPES).map((r) => r.type)).toEqual(Array.from({ length: MAX_LAG_TYPES }, (_, i) => `t${i}`));
    expect(rows.at(-1)).toEqual({ type: OTHER_TYPES, lag: expect.objectContaining({ samples: 3 }) });
  });
});
