import type { RedriveSummary } from './types.js';

/**
 * The summary a person reads after a redrive: counts before and after, what moved, and every
 * message left behind with its reason.
 */
export function formatSummary(summary: RedriveSummary): string {
  const verb = summary.status === 'dry-run' ? 'would move' : 'moved';
  const lines = [
    `${summary.status === 'dry-run' ? 'DRY RUN — nothing was republished or deleted' : 'Redrive completed'}`,
    `  source:      ${summary.source}`,
    `  target:      ${summary.target}`,
    `  before:      ${summary.before}`,
    `  processed:   ${summary.processed}`,
    `  ${verb.padEnd(11)}  ${summary.moved} (${summary.republished} events)`,
    `  failed:      ${summary.failed.length}`,
    `  skipped:     ${summary.skipped.length}`,
    `  after:       ${summary.after}`,
  ];
  for (const problem of summary.failed) lines.push(`  failed  ${problem.id}: ${problem.reason}`);
  for (const problem of summary.skipped) lines.push(`  skipped ${problem.id}: ${problem.reason}`);
  return lines.join('\n');
}
