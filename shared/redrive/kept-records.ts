import type { KeptRecords, RedriveSummary } from './types.js';

/**
 * Why a message (an on-failure record) stays in its source although events of it were published:
 * `trimmed`, an on-failure record whose first records the stream trimmed; `failed`, one some of
 * whose events failed, or a message published but not deleted.
 */
export type KeptKind = 'trimmed' | 'failed';

/**
 * Counts the messages (on-failure records) that stay in their source though events of theirs were
 * published (in a dry run: would be), by why they stay, for {@link RedriveSummary.keptRepublished}:
 * their events count in `republished`, but the messages did not move.
 */
export class KeptRepublished {
  private readonly counts = new Map<KeptKind, KeptRecords>();

  /** A record that stays after `events` of its events were published; one with none is not counted. */
  add(kind: KeptKind, events: number): void {
    if (events <= 0) return;
    const { records, events: before } = this.counts.get(kind) ?? { records: 0, events: 0 };
    this.counts.set(kind, { records: records + 1, events: before + events });
  }

  /** The summary's field, or nothing when no record stays with events published. */
  summary(): Pick<RedriveSummary, 'keptRepublished'> {
    if (this.counts.size === 0) return {};
    const { trimmed, failed } = { trimmed: this.counts.get('trimmed'), failed: this.counts.get('failed') };
    return { keptRepublished: { ...(trimmed === undefined ? {} : { trimmed }), ...(failed === undefined ? {} : { failed }) } };
  }
}
