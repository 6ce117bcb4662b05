import type { RedriveSummary } from './types.js';

function headline(summary: RedriveSummary): string {
  const dryRun = summary.status === 'dry-run' || summary.dryRun === true;
  if (summary.status === 'interrupted') {
    return `Redrive interrupted — the counts are partial${dryRun ? '; dry run: nothing was republished or deleted' : ''}`;
  }
  return dryRun ? 'DRY RUN — nothing was republished or deleted' : 'Redrive completed';
}

/** What went to the relay DLQ instead of its topic, when the run had one. */
const deadLettered = ({ deadLettered: n }: RedriveSummary): string =>
  n === undefined ? '' : ` published; ${n} dead-lettered to the relay DLQ`;

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
  const verb = summary.status === 'dry-run' || summary.dryRun === true ? 'would move' : 'moved';
  const lines = [
    headline(summary),
    `  status:      ${summary.status}`,
    `  source:      ${summary.source}`,
    `  target:      ${summary.target}`,
    `  before:      ${summary.before}`,
    ...(summary.filter === undefined ? [] : [`  filter:      ${summary.filter}`]),
    `  processed:   ${summary.processed}`,
    ...(summary.unmatched === undefined ? [] : [`  unmatched:   ${summary.unmatched} (left in the source, untouched)`]),
    `  ${verb.padEnd(11)}  ${summary.moved} (${summary.republished} events${deadLettered(summary)})`,
    `  failed:      ${summary.failed.length}`,
    `  skipped:     ${summary.skipped.length}`,
    `  after:       ${summary.after ?? 'unknown'}`,
  ];
  for (const problem of summary.failed) lines.push(`  failed  ${problem.id}: ${problem.reason}`);
  for (const problem of summary.skipped) lines.push(`  skipped ${problem.id}: ${problem.reason}`);
  for (const note of summary.notes ?? []) lines.push(`  note: ${note}`);
  return lines.join('\n');
}
