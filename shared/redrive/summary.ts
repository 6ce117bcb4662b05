import { counted, wasOrWere } from '../plural.js';
import type { RedriveSummary } from './types.js';

function headline(summary: RedriveSummary): string {
  const dryRun = summary.status === 'dry-run' || summary.dryRun === true;
  if (summary.status === 'interrupted') {
    return `Redrive interrupted — the counts are partial${dryRun ? '; dry run: nothing was republished or deleted' : ''}`;
  }
  if (dryRun) return 'DRY RUN — nothing was republished or deleted';
  return `Redrive completed${leftInSource(summary)}`;
}

/**
 * What a finished run left in its source, for the headline: a run that failed some messages (or
 * records) exits 1 and one that skipped some exits 3, and "Redrive completed" alone read as done.
 * Nothing when all moved; `status` stays `completed` either way.
 */
function leftInSource({ failed, skipped }: RedriveSummary): string {
  if (failed.length === 0 && skipped.length === 0) return '';
  const parts = [
    ...(failed.length === 0 ? [] : [`${failed.length} failed`]),
    ...(skipped.length === 0 ? [] : [`${skipped.length} skipped`]),
  ];
  return `${failed.length === 0 ? '' : ' with failures'} — ${parts.join(' and ')}, kept in the source`;
}

/** What went to the relay DLQ instead of its topic, when the run had one. */
const deadLettered = ({ deadLettered: n }: RedriveSummary): string =>
  n === undefined ? '' : ` published; ${n} dead-lettered to the relay DLQ`;

const events = (n: number): string => counted(n, 'event');

/**
 * The records of a count that stay although events of theirs were republished (in a dry run: would
 * be), which the moved records' events do not include: told with the failed and skipped counts.
 */
function keptAfterRepublish(summary: RedriveSummary, dryRun: boolean) {
  const { trimmed, failed } = summary.keptRepublished ?? {};
  const kept = dryRun ? 'would be kept' : 'kept';
  return {
    failed:
      failed === undefined
        ? ''
        : ` (${failed.records} kept after ${events(failed.events)} of ${failed.records === 1 ? 'it' : 'them'} ${wasOrWere(failed.events)} republished)`,
    skipped:
      trimmed === undefined
        ? ''
        : trimmed.records === 1
          ? ` (1 ${kept} after the ${events(trimmed.events)} of its records still in the stream ${wasOrWere(trimmed.events)} republished: the stream had trimmed the first records of its batch)`
          : ` (${trimmed.records} ${kept} after the ${events(trimmed.events)} of their records still in the stream ${wasOrWere(trimmed.events)} republished: the stream had trimmed the first records of their batches)`,
    events: (trimmed?.events ?? 0) + (failed?.events ?? 0),
  };
}

/**
 * The summary a person reads after a redrive: counts before and after, what moved, and every
 * message left behind with its reason, then any note the counts need.
 *
 * @example
 * ```ts
 * process.stdout.write(`${formatSummary(await redriveRelayDlq(options))}\n`);
 * ```
 */
export function formatSummary(summary: RedriveSummary): string {
  const dryRun = summary.status === 'dry-run' || summary.dryRun === true;
  const verb = dryRun ? 'would move' : 'moved';
  const kept = keptAfterRepublish(summary, dryRun);
  const lines = [
    headline(summary),
    `  status:      ${summary.status}`,
    `  source:      ${summary.source}`,
    `  target:      ${summary.target}`,
    `  before:      ${summary.before}`,
    ...(summary.filter === undefined ? [] : [`  filter:      ${summary.filter}`]),
    `  processed:   ${summary.processed}`,
    ...(summary.unmatched === undefined ? [] : [`  unmatched:   ${summary.unmatched} (left in the source, untouched)`]),
    `  ${verb.padEnd(11)}  ${summary.moved} (${events(summary.republished - kept.events)}${deadLettered(summary)})`,
    `  failed:      ${summary.failed.length}${kept.failed}`,
    `  skipped:     ${summary.skipped.length}${kept.skipped}`,
    `  after:       ${summary.after ?? 'unknown'}`,
  ];
  for (const problem of summary.failed) lines.push(`  failed  ${problem.id}: ${problem.reason}`);
  for (const problem of summary.skipped) lines.push(`  skipped ${problem.id}: ${problem.reason}`);
  for (const note of summary.notes ?? []) lines.push(`  note: ${note}`);
  return lines.join('\n');
}
