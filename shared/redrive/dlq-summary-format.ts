import type { DeadLetterGroup, DlqSummary } from './dlq-summary.js';

const HEADERS = ['REASON', 'TYPE', 'AGGREGATE TYPE', 'COUNT', 'FIRST', 'LAST'] as const;

/** A time as the table shows it; `(sent)` marks the messages' SentTimestamp instead of the events' time. */
const timeCell = (time: string | undefined, group: DeadLetterGroup): string =>
  time === undefined ? '-' : `${time}${group.timeSource === 'envelope' ? '' : group.timeSource === 'sent' ? ' (sent)' : ' (mixed)'}`;

/**
 * The summary a person reads: a table of the groups (largest first) with counts and first/last
 * time, the malformed messages, and the notes the counts need.
 *
 * @example
 * ```ts
 * process.stdout.write(`${formatDlqSummary(await summarizeDlq({ sqs, queueUrl }))}\n`);
 * ```
 */
export function formatDlqSummary(summary: DlqSummary): string {
  const rows = summary.groups.map((g) => [
    g.reason,
    g.eventType ?? '-',
    g.aggregateType ?? '-',
    String(g.count),
    timeCell(g.firstTime, g),
    timeCell(g.lastTime, g),
  ]);
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 3 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const { relay, subscriber, malformed } = summary.kinds;
  const lines = [
    `Dead letters in ${summary.queueUrl} (${summary.status}): ${summary.read} read of about ${summary.before}; none deleted, all visible again`,
    `  relay dead letters ${relay}, subscriber messages ${subscriber}, malformed ${malformed}`,
    ...(summary.filter === undefined ? [] : [`  filter: ${summary.filter} — ${summary.matched} match`]),
    '',
  ];
  if (rows.length === 0) lines.push('  (no dead letters)');
  else lines.push(line(HEADERS), ...rows.map(line));
  lines.push('', "time: the event's time (envelope `time`); (sent): the message's SentTimestamp, for messages without a readable envelope");
  for (const m of summary.malformed) lines.push(`malformed ${m.id}: ${m.problem}`);
  for (const note of summary.notes) lines.push(`note: ${note}`);
  return lines.join('\n');
}
