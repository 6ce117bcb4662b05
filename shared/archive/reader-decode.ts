import type { MessageTrace } from '../envelope.js';
import { parseEventTime } from '../event-time.js';
import { envelopeTrace } from '../tracing/envelope-trace.js';
import { decodeArchiveObject } from './layout.js';
import type { CorruptArchiveEntry } from './replay-types.js';

/** One archived envelope, with what a replay orders, filters and sends it by. */
export interface ArchivedEvent {
  readonly id: string;
  readonly type: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly epoch: string;
  readonly sequence: number;
  readonly timeMs: number;
  /** The line as archived: the envelope's JSON exactly as published. */
  readonly body: string;
  /** The envelope's trace context, sent as the relay sends it. */
  readonly trace?: MessageTrace;
}

/** What one archive object holds: its envelopes, and each line that is not one. */
export interface ArchiveObjectEvents {
  readonly events: readonly ArchivedEvent[];
  readonly problems: readonly CorruptArchiveEntry[];
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

const withTrace = (trace: MessageTrace | undefined): { trace?: MessageTrace } => (trace === undefined ? {} : { trace });

/** The envelope of a parsed line, or why it is not an outbox envelope. */
export function archivedEventOf(record: unknown, body: string): ArchivedEvent | string {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return 'not a JSON object';
  const r = record as Record<string, unknown>;
  for (const field of ['id', 'type', 'subject', 'aggregatetype', 'time', 'sequenceepoch'] as const) {
    if (!isText(r[field])) return `not an outbox envelope: ${field} is ${JSON.stringify(r[field]) ?? 'missing'}, not a non-empty string`;
  }
  // An envelope of a relay before `aggregatesequence` keeps its position in `sequence`.
  const sequence = r.aggregatesequence ?? r.sequence;
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 1) {
    return `not an outbox envelope: aggregatesequence is ${JSON.stringify(sequence) ?? 'missing'}, not a whole number from 1`;
  }
  // The archiver's own test: a time it could not place is one this reader cannot order.
  const timeMs = parseEventTime(r.time as string);
  if (timeMs === undefined) {
    return `not an outbox envelope: time ${JSON.stringify(r.time)} is not a date (RFC 3339 with Z or an offset, on a real calendar day)`;
  }
  return {
    id: r.id as string,
    type: r.type as string,
    aggregateType: r.aggregatetype as string,
    aggregateId: r.subject as string,
    epoch: r.sequenceepoch as string,
    sequence,
    timeMs,
    body,
    ...withTrace(envelopeTrace(r)),
  };
}

/**
 * The envelopes of an archive object, each with its line's text as archived (sent unchanged: a
 * parse and re-serialisation would undo the escapes SQS needs). A line that is not JSON or not an
 * envelope is a problem naming the key and line; the others are kept.
 *
 * @throws {ArchiveObjectError} `CORRUPT_ARCHIVE_OBJECT` when the body is not gzip.
 */
export function archiveObjectEvents(key: string, body: Uint8Array): ArchiveObjectEvents {
  const { lines, malformed } = decodeArchiveObject(key, body);
  const events: ArchivedEvent[] = [];
  const problems: CorruptArchiveEntry[] = malformed.map(({ line, reason }) => ({ key, line, reason: `not JSON: ${reason}` }));
  for (const { line, text, record } of lines) {
    const event = archivedEventOf(record, text);
    if (typeof event === 'string') problems.push({ key, line, reason: event });
    else events.push(event);
  }
  // In the object's order, as they would be read.
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { events, problems };
}
