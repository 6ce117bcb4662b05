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
    const before = snapshot({
      at: Date.parse('2026-11-22T10:01:03Z'),
      archive: { archivedEvents: 100, objectsWritten: 30, deadLetters: 0 },
    });
    const lines = renderLiveView(snapshot({ archive: { archivedEvents: 120, objectsWritten: 36, deadLetters: 0 } }), before);
    expect(lines.find((l) => l.startsWith('archived'))).toMatch(/^archived\s+120\s+10\.0 {3}in 36 objects$/);
  });

  it('shows no archive row without an archive', () => {
    expect(renderLiveView(snapshot()).some((l) => l.startsWith('archived'))).toBe(false);
    expect(renderLiveLine(snapshot())).not.toContain('archived');
  });

  it('shows the events archived in the one-line view too', () => {
    expect(renderLiveLine(snapshot({ archive: { archivedEvents: 117, objectsWritten: 9, deadLetters: 0 } }))).toContain(
      'delivered 118 · archived 117 · dead-lettered 0',
    );
  });

  it('counts the archive DLQ in the dead-lettered total and names it beside the relay DLQ', () => {
    const now = snapshot({
      relayDeadLetters: 1,
      consumers: [{ name: 'billing', delivered: 5, failed: 1, deadLetters: 2 }],
      archive: { archivedEvents: 117, objectsWritten: 9, deadLetters: 4 },
    });
    expect(renderLiveView(now).find((l) => l.startsWith('dead-lettered'))).toMatch(
      /^dead-lettered\s+7\s+now in DLQs \(relay DLQ 1 · archive DLQ 4\)$/,
    );
    expect(renderLiveLine(now)).toContain('dead-lettered 7 ·');
    expect(renderLiveView(snapshot({ relayDeadLetters: 1 })).find((l) => l.startsWith('dead-lettered'))).toMatch(/\(relay DLQ 1\)$/);
  });
});
