import { describe, expect, it } from 'vitest';
import { CONSUMER_LAG_DIMENSION, CONSUMER_LAG_METRIC, Reporter } from '../../shared/consumer/reporter.js';
import type { OutboxEnvelope } from '../../shared/envelope.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const NOW = Date.parse('2026-03-01T09:15:10.000Z');

/** The lag lines one batch writes, as [event type, ms], after one handled event committed at `time`. */
function lagAfterHandling(time: string): [string, number][] {
  const lines: [string, number][] = [];
  let dimension = '';
  let lag: number | undefined;
  const metrics = {
    addDimension: (_name: string, value: string) => {
      dimension = value;
    },
    addMetric: (name: string, _unit: string, value: number) => {
      if (name === CONSUMER_LAG_METRIC) lag = value;
    },
    publishStoredMetrics: () => {
      if (lag !== undefined) lines.push([dimension, lag]);
      lag = undefined;
    },
  };
  const reporter = new Reporter('lag-unit', silent, metrics, new Set(['order.placed']), () => NOW);
  reporter.handled({ id: 'e-1', type: 'order.placed', time } as OutboxEnvelope);
  reporter.flush();
  return lines;
}

describe('the consumer lag metric', () => {
  it('reads an RFC 3339 time with its offset: 10:15:00+01:00 is 09:15 UTC, 10 s before now', () => {
    expect(CONSUMER_LAG_DIMENSION).toBe('eventType');
    expect(lagAfterHandling('2026-03-01T10:15:00.000+01:00')).toEqual([['order.placed', 10_000]]);
    expect(lagAfterHandling('2026-03-01T09:15:05Z')).toEqual([['order.placed', 5_000]]);
  });

  it.each([
    ['a bare number', '5'],
    ['a time without an offset', '2026-03-01T09:15:00'],
    ['a date alone', '2026-03-01'],
    ['a day the month does not have', '2026-02-30T09:15:00Z'],
    ['a date in another format', 'Sun, 01 Mar 2026 09:15:00 GMT'],
  ])('writes no lag for %s as the time (%s), which Date.parse would take', (_what, time) => {
    expect(Number.isNaN(Date.parse(time))).toBe(false);
    expect(lagAfterHandling(time)).toEqual([]);
  });
});
