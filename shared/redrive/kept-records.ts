import { counted, wasOrWere } from '../plural.js';
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

/** What became of one record's events and dead letters once it was published (in a dry run: would become). */
export interface RecordPublished {
  /** The events of its records read. */
  readonly events: number;
  /** Those published. */
  readonly published: number;
  /** Those SNS refused for good, dead-lettered to the relay DLQ instead (`PUBLISH_REJECTED`). */
  readonly deadLettered: number;
  /** Its own dead letters (malformed slots, unrouted events) sent to the relay DLQ. */
  readonly letters: number;
  /** When not all went out (published or dead-lettered): why. */
  readonly problem?: string;
}

/** `a`, `a and b`, `a, b and c`. */
const listed = (parts: readonly string[]): string =>
  parts.length < 2 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;

/** What went out of a record whose first records the stream trimmed: its events published, dead-lettered, failed, and its dead letters. */
function whatWentOut(outcome: RecordPublished, dryRun: boolean | undefined): string {
  const { events, published, deadLettered, letters } = outcome;
  const verb = (n: number) => (dryRun === true ? 'would be' : wasOrWere(n));
  const failed = events - published - deadLettered;
  const told =
    published === events
      ? `the ${counted(events, 'event')} of its records still there ${verb(events)} republished`
      : `of the ${counted(events, 'event')} of its records still there, ${listed([
          `${published} ${verb(published)} republished`,
          ...(deadLettered === 0
            ? []
            : [`${deadLettered} dead-lettered to the relay DLQ (SNS refused ${deadLettered === 1 ? 'it' : 'them'} for good)`]),
          ...(failed <= 0 ? [] : [`${failed} failed`]),
        ])}`;
  if (letters === 0) return told;
  return `${told}; ${counted(letters, 'dead letter')} of its records (malformed slots, unrouted events) ${verb(letters)} sent to the relay DLQ`;
}

/**
 * Why a record whose first records the stream trimmed stays once the rest was republished (in a
 * dry run: would be): the trimmed range (`trimmed`), which can never be read again, and what went
 * out of the rest (published, dead-lettered to the relay DLQ, failed); when not all went out, why
 * first, as a failed record's reason says.
 */
export function trimmedReason(trimmed: string, outcome: RecordPublished, dryRun: boolean | undefined): string {
  const told = `${trimmed}; ${whatWentOut(outcome, dryRun)}`;
  return outcome.problem === undefined ? told : `${outcome.problem}; ${told}`;
}
