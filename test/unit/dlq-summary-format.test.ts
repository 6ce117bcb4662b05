import { describe, expect, it } from 'vitest';
import type { DlqSummary } from '../../shared/redrive/dlq-summary.js';
import { formatDlqSummary } from '../../shared/redrive/dlq-summary-format.js';

/*
 * The first lines of `dlq summarize` count messages and events in words that agree with the
 * count: one dead letter read was "1 messages (1 events) read of about 1 messages".
 */

const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing-dlq.fifo';

function summary(counts: Pick<DlqSummary, 'read' | 'events' | 'before' | 'matched' | 'matchedEvents'>, filter?: string): DlqSummary {
  return {
    status: 'completed',
    queueUrl: QUEUE,
    ...counts,
    ...(filter === undefined ? {} : { filter }),
    kinds: { relay: 0, subscriber: counts.read, malformed: 0 },
    groups: [],
    malformed: [],
    notes: [],
  };
}

describe('formatDlqSummary', () => {
  it('counts one message and one event in the singular', () => {
    const text = formatDlqSummary(summary({ read: 1, events: 1, before: 1, matched: 1, matchedEvents: 1 }, 'type order.placed'));
    expect(text.split('\n').slice(0, 3)).toEqual([
      `Dead letters in ${QUEUE} (completed): 1 message (1 event) read of about 1 message; none deleted, all visible again`,
      '  relay dead letters 0, subscriber messages 1, malformed 0',
      '  filter: type order.placed — 1 event in 1 message matches',
    ]);
  });

  it('counts several, and none, in the plural', () => {
    const text = formatDlqSummary(summary({ read: 2, events: 4, before: 3, matched: 0, matchedEvents: 0 }, 'type order.placed'));
    expect(text.split('\n').slice(0, 3)).toEqual([
      `Dead letters in ${QUEUE} (completed): 2 messages (4 events) read of about 3 messages; none deleted, all visible again`,
      '  relay dead letters 0, subscriber messages 2, malformed 0',
      '  filter: type order.placed — 0 events in 0 messages match',
    ]);
  });
});
