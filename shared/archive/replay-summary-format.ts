import type { ReplayProgress, ReplaySummary } from './replay-types.js';

function headline(summary: ReplaySummary): string {
  if (summary.status === 'dry-run') return 'DRY RUN — nothing was sent';
  if (summary.status === 'interrupted' && summary.dryRun) return 'DRY RUN interrupted — nothing was sent, and the counts are partial';
  if (summary.status === 'interrupted') return 'Replay interrupted — the same command goes on from the checkpoint';
  return 'Replay completed';
}

/**
 * The summary a person reads after a replay: the selection, events sent per type, duplicates
 * skipped, then every corrupt object or line by key and every refused event.
 *
 * @example
 * ```ts
 * process.stdout.write(`${formatReplaySummary(await replayArchive(options))}\n`);
 * ```
 */
export function formatReplaySummary(summary: ReplaySummary): string {
  const verb = summary.dryRun ? 'would send' : 'sent';
  const lines = [
    headline(summary),
    `  replay id:   ${summary.replayId}`,
    `  status:      ${summary.status}`,
    `  archive:     s3://${summary.bucket}`,
    `  queue:       ${summary.queueUrl}`,
    `  range:       ${summary.from} to ${summary.to} (exclusive)`,
    `  selection:   ${summary.filter}`,
    ...(summary.resumedFrom === undefined ? [] : [`  resumed at:  ${summary.resumedFrom}:00 UTC`]),
    `  objects:     ${summary.objectsRead}`,
    `  ${verb.padEnd(11)}  ${summary.sent}`,
    ...Object.entries(summary.sentByType)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([type, count]) => `    ${type}: ${count}`),
    `  duplicates:  ${summary.duplicates} (in the archive more than once, sent once)`,
    `  corrupt:     ${summary.corrupt.length}`,
    `  refused:     ${summary.refused.length}`,
    ...(summary.retried === 0 ? [] : [`  retried:     ${summary.retried} (failed for a passing reason, sent again)`]),
    ...(summary.checkpointPath === undefined ? [] : [`  checkpoint:  ${summary.checkpointPath}`]),
  ];
  for (const c of summary.corrupt) lines.push(`  corrupt ${c.key}${c.line === undefined ? '' : ` line ${c.line}`}: ${c.reason}`);
  for (const r of summary.refused) lines.push(`  refused ${r.eventId} (${r.type}, ${r.aggregateType}:${r.aggregateId}): ${r.reason}`);
  for (const note of summary.notes ?? []) lines.push(`  note: ${note}`);
  return lines.join('\n');
}

/** One progress line. */
export const replayProgressLine = (p: ReplayProgress): string =>
  `hour ${p.hour} (${p.hoursDone}/${p.hours} done) sent ${p.sent} duplicates ${p.duplicates} corrupt ${p.corrupt} refused ${p.refused}`;

/**
 * Progress on a stream: redrawn in place on a terminal; elsewhere (a pipe, a log) one line when
 * an hour is done, at most one per `everyMs`, so a long replay leaves a readable trail.
 *
 * @example
 * ```ts
 * const progress = replayProgress(process.stderr);
 * await replayArchive({ ...options, onProgress: progress.update });
 * progress.done();
 * ```
 */
export function replayProgress(
  stream: { readonly isTTY?: boolean; write(text: string): boolean },
  everyMs = 5_000,
  now: () => number = Date.now,
): { update: (progress: ReplayProgress) => void; done: () => void } {
  let drawn = false;
  let lastLineAt = Number.NEGATIVE_INFINITY;
  let lastHoursDone = -1;
  return {
    update: (progress) => {
      if (stream.isTTY) {
        stream.write(`\r\u001b[2K${replayProgressLine(progress)}`);
        drawn = true;
        return;
      }
      if (progress.hoursDone === lastHoursDone || now() - lastLineAt < everyMs) return;
      lastHoursDone = progress.hoursDone;
      lastLineAt = now();
      stream.write(`${replayProgressLine(progress)}\n`);
    },
    done: () => {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
