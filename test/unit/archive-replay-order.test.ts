import { describe, expect, it } from 'vitest';
import type { ArchivedEvent } from '../../shared/archive/reader-decode.js';
import { afterPositions, aggregateKeyOf, splitWindow } from '../../shared/archive/replay-order.js';

const anEvent = (aggregateId: string, sequence: number, time: string, epoch = '2026-01-01T00:00:00.000Z'): ArchivedEvent => ({
  id: `${aggregateId}-${epoch}-${sequence}`,
  type: 'order.placed',
  aggregateType: 'order',
  aggregateId,
  epoch,
  sequence,
  timeMs: Date.parse(time),
  body: '{}',
});

const sequences = (events: readonly ArchivedEvent[] | undefined) => (events ?? []).map((e) => e.sequence);
const key = (id: string) => aggregateKeyOf('order', id);
const HOUR_END = Date.parse('2026-03-01T11:00:00Z');
const CUTOFF = HOUR_END - 300_000;

describe('splitWindow', () => {
  it('orders each aggregate by epoch, then sequence, whatever the order read', () => {
    const { send } = splitWindow(
      [
        anEvent('o-1', 2, '2026-03-01T10:01:00Z', '2026-02-01T00:00:00.000Z'),
        anEvent('o-1', 9, '2026-03-01T10:00:00Z'),
        anEvent('o-2', 1, '2026-03-01T10:00:00Z'),
        anEvent('o-1', 1, '2026-03-01T10:02:00Z', '2026-02-01T00:00:00.000Z'),
      ],
      CUTOFF,
    );
    expect(send.get(key('o-1'))?.map((e) => [e.epoch.slice(0, 7), e.sequence])).toEqual([
      ['2026-01', 9],
      ['2026-02', 1],
      ['2026-02', 2],
    ]);
    expect(sequences(send.get(key('o-2')))).toEqual([1]);
  });

  it('holds back an aggregate from its first event in the last minutes of the hour, later sequences included', () => {
    const { send, carry } = splitWindow(
      [
        anEvent('o-1', 1, '2026-03-01T10:30:00Z'),
        anEvent('o-1', 2, '2026-03-01T10:56:00Z'),
        // Started before event 2's write, committed after it.
        anEvent('o-1', 3, '2026-03-01T10:54:00Z'),
        anEvent('o-2', 1, '2026-03-01T10:54:59Z'),
      ],
      CUTOFF,
    );
    expect(sequences(send.get(key('o-1')))).toEqual([1]);
    expect(sequences(carry.get(key('o-1')))).toEqual([2, 3]);
    expect(sequences(send.get(key('o-2')))).toEqual([1]);
    expect(carry.has(key('o-2'))).toBe(false);
  });

  it('sends an event of the next hour before an earlier-timed one it precedes in sequence, across the hour boundary', () => {
    // Event 1 was written second but committed first: its time is in hour 11, event 2's in hour 10.
    const first = splitWindow([anEvent('o-1', 2, '2026-03-01T10:59:58Z')], CUTOFF);
    expect(first.send.size).toBe(0);
    const next = splitWindow(
      [...first.carry.values()].flat().concat(anEvent('o-1', 1, '2026-03-01T11:00:01Z')),
      HOUR_END + 3_600_000 - 300_000,
    );
    expect(sequences(next.send.get(key('o-1')))).toEqual([1, 2]);
  });

  it('sends everything in the last window', () => {
    const { send, carry } = splitWindow([anEvent('o-1', 1, '2026-03-01T10:59:59Z')], undefined);
    expect(sequences(send.get(key('o-1')))).toEqual([1]);
    expect(carry.size).toBe(0);
  });
});

describe('afterPositions', () => {
  it('drops what a stopped run had sent of each aggregate, and keeps the rest', () => {
    const events = [
      anEvent('o-1', 1, '2026-03-01T10:00:00Z'),
      anEvent('o-1', 2, '2026-03-01T10:01:00Z'),
      anEvent('o-2', 1, '2026-03-01T10:00:00Z'),
    ];
    const kept = afterPositions(events, new Map([[key('o-1'), { epoch: '2026-01-01T00:00:00.000Z', sequence: 1 }]]));
    expect(kept.map((e) => e.id)).toEqual([events[1]?.id, events[2]?.id]);
  });
});
