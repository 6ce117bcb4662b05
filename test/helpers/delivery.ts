import type { OutboxEnvelope } from '../../shared/envelope.js';
import type { CommittedEvent } from './slot-writer.js';

/** What a subscriber saw, after dedup by event id, compared with what was committed. */
export interface DeliveryReport {
  readonly missing: string[];
  readonly unexpected: string[];
  readonly duplicates: number;
  /** Aggregates whose sequences did not arrive in increasing order (after dedup). */
  readonly outOfOrder: string[];
}

export function deliveryReport(committed: readonly CommittedEvent[], received: readonly OutboxEnvelope[]): DeliveryReport {
  const seen = new Set<string>();
  const lastSequence = new Map<string, number>();
  const outOfOrder = new Set<string>();
  let duplicates = 0;
  for (const envelope of received) {
    if (seen.has(envelope.id)) {
      duplicates++;
      continue;
    }
    seen.add(envelope.id);
    const key = `${envelope.aggregatetype}#${envelope.subject}`;
    const last = lastSequence.get(key) ?? 0;
    if (envelope.aggregatesequence <= last) outOfOrder.add(key);
    lastSequence.set(key, envelope.aggregatesequence);
  }
  const committedIds = new Set(committed.map((e) => e.id));
  return {
    missing: committed.filter((e) => !seen.has(e.id)).map((e) => e.id),
    unexpected: [...seen].filter((id) => !committedIds.has(id)),
    duplicates,
    outOfOrder: [...outOfOrder],
  };
}
