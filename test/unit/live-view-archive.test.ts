import { describe, expect, it } from 'vitest';
import { type LiveSnapshot, renderLiveLine, renderLiveView } from '../../shared/local/stack/live-view.js';

const snapshot = (overrides: Partial<LiveSnapshot> = {}): LiveSnapshot => ({
  at: Date.parse('2026-11-22T10:01:05Z'),
  startedAt: Date.parse('2026-11-22T10:00:00Z'),
  written: 120,
  published: 120,
  delivered: 118,
  lag: { samples: 100, p50: 40, p99: 200 },
  relay: { invocations: 30, failedInvocations: 0, batchesSentToOnFailure: 0 },
  relayDeadLetters: 0,
  consumers: [],
  ...overrides,
});

describe('live view, archive', () => {
  it('shows the events archived, their rate and the objects written when the config has an archive', () => {
    const before = snapshot({ at: Date.parse('2026-11-22T10:01:03Z'), archive: { archivedEvents: 100, objectsWritten: 30 } });
    const lines = renderLiveView(snapshot({ archive: { archivedEvents: 120, objectsWritten: 36 } }), before);
    expect(lines.find((l) => l.startsWith('archived'))).toMatch(/^archived\s+120\s+10\.0 {3}in 36 objects$/);
  });

  it('shows no archive row without an archive', () => {
    expect(renderLiveView(snapshot()).some((l) => l.startsWith('archived'))).toBe(false);
    expect(renderLiveLine(snapshot())).not.toContain('archived');
  });

  it('shows the events archived in the one-line view too', () => {
    expect(renderLiveLine(snapshot({ archive: { archivedEvents: 117, objectsWritten: 9 } }))).toContain(
      'delivered 118 · archived 117 · dead-lettered 0',
    );
  });
});
