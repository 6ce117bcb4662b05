import { counted } from '../plural.js';
import type { DeadLetterGroup, DlqSummary } from './dlq-summary.js';

const HEADERS = ['REASON', 'TYPE', 'AGGREGATE TYPE', 'EVENTS', 'MESSAGES', 'FIRST', 'LAST'] as const;
/** The columns of counts, aligned right. */
const NUMERIC = new Set([3, 4]);

/** A time as the table shows it; `(sent)` marks the messages' SentTimestamp instead of the events' time. */
const timeCell = (time: string | undefined, group: DeadLetterGroup): string =>
  time === undefined ? '-' : `${time}${group.timeSource === 'envelope' ? '' : group.timeSource === 'sent' ? ' (sent)' : ' (mixed)'}`;

/**
 * The summary a person reads: a table of the groups (largest first) with counts of events and
 * of messages, and first/last
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
    String(g.messages),
    timeCell(g.firstTime, g),
    timeCell(g.lastTime, g),
  ]);
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (NUMERIC.has(i) ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const { relay, subscriber, malformed } = summary.kinds;
  const lines = [
    `Dead letters in ${summary.queueUrl} (${summary.status}): ${counted(summary.read, 'message')} (${counted(summary.events, 'event')}) read of about ${counted(summary.before, 'message')}; none deleted, all visible again`,
    `  relay dead letters ${relay}, subscriber messages ${subscriber}, malformed ${malformed}`,
    ...(summary.filter === undefined
      ? []
      : [
          `  filter: ${summary.filter} — ${counted(summary.matchedEvents, 'event')} in ${counted(summary.matched, 'message')} ${summary.matchedEvents === 1 ? 'matches' : 'match'}`,
        ]),
    '',
  ];
  if (rows.length === 0) lines.push('  (no dead letters)');
  else lines.push(line(HEADERS), ...rows.map(line));
  lines.push(
    '',
    "events: a batch message's events each count, in the group of their type; messages: those that hold the group's events",
    "time: the event's time (envelope `time`); (sent): the message's SentTimestamp, for messages without a readable envelope or event time",
  );
  for (const m of summary.malformed) lines.push(`malformed ${m.id}: ${m.problem}`);
  for (const note of summary.notes) lines.push(`note: ${note}`);
  return lines.join('\n');
}
