import type { SQSRecord } from 'aws-lambda';
import { envelopeProblem } from '../consumer/parse.js';
import { type ArchivePartition, archiveHourOf, archivePartitionOf } from './layout.js';

/** One envelope of an SQS record, ready for its archive object. */
export interface ArchivedLine {
  readonly partition: ArchivePartition;
  /** The envelope's JSON, one line. */
  readonly text: string;
  readonly id: string;
  /** Whether `time` was not a date, so the envelope was placed by the message's `SentTimestamp`. */
  readonly placedBySentTime: boolean;
}

/** What an SQS record of the archive queue holds: its envelopes (a batch message's, unpacked), or why it holds none. */
export type ReadArchiveRecord =
  | { readonly status: 'envelopes'; readonly lines: readonly ArchivedLine[] }
  | { readonly status: 'malformed'; readonly reason: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The last millisecond of the year 9999: a later instant has no `date=YYYY-MM-DD` segment. */
const LAST_ARCHIVE_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * When SQS received the message; the archiver's clock when the attribute is missing, not a
 * number, or past the year 9999 (no partition hour, or not a date at all).
 */
export function sentAt(record: SQSRecord, now: number): Date {
  const sent = Number(record.attributes?.SentTimestamp);
  return new Date(Number.isFinite(sent) && sent > 0 && sent <= LAST_ARCHIVE_INSTANT ? sent : now);
}

/**
 * Why an envelope's type or aggregate type cannot name its partition: the key segments are
 * URI-encoded, which a string with a lone UTF-16 surrogate is not (the write helper refuses
 * one; another publisher may not).
 */
function unencodableName(envelope: { readonly type: string; readonly aggregatetype: string }): string | undefined {
  for (const field of ['aggregatetype', 'type'] as const) {
    try {
      encodeURIComponent(envelope[field]);
    } catch {
      return `${field} ${JSON.stringify(envelope[field])} is not well-formed Unicode (a lone surrogate); allowed: well-formed Unicode, which names an archive partition`;
    }
  }
  return undefined;
}

/** The message's value: the body's JSON, or the `Message` of an SNS notification (a subscription without raw delivery). */
function messageValue(body: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { ok: false, reason: `the body is not JSON (${(error as Error).message})` };
  }
  if (!isRecord(value) || value.Type !== 'Notification' || !('Message' in value)) return { ok: true, value };
  if (typeof value.Message !== 'string')
    return { ok: false, reason: `the SNS notification's Message is ${typeof value.Message}; allowed: a string` };
  try {
    return { ok: true, value: JSON.parse(value.Message) };
  } catch (error) {
    return { ok: false, reason: `the SNS notification's Message is not JSON (${(error as Error).message})` };
  }
}

/**
 * The envelopes an archive queue's message carries, each with its partition and its JSON line:
 * one envelope, or each event of a CloudEvents batch (a JSON array), raw or inside an SNS
 * notification. An envelope is what the consumer helper takes for one (`envelopeProblem`);
 * envelopes of earlier relays are kept as they were published. An envelope whose `time` is not a
 * date (or one outside the years 0000–9999) is placed in the hour SQS received the message. A message that holds no envelope, or a
 * batch with one item that is not, comes back `malformed` with the reason: a batch is archived
 * whole or not at all.
 */
export function readArchiveRecord(record: SQSRecord, now: number): ReadArchiveRecord {
  const message = messageValue(record.body);
  if (!message.ok) return { status: 'malformed', reason: message.reason };
  const batch = Array.isArray(message.value);
  const values: readonly unknown[] = batch ? (message.value as unknown[]) : [message.value];
  if (values.length === 0) return { status: 'malformed', reason: 'the body is an empty batch; allowed: at least one envelope' };
  const lines: ArchivedLine[] = [];
  for (const [i, value] of values.entries()) {
    const at = batch ? `event [${i}] of the batch: ` : '';
    const problem = envelopeProblem(value);
    if (problem !== undefined) return { status: 'malformed', reason: `not an outbox envelope: ${at}${problem}` };
    const envelope = value as { id: string; type: string; aggregatetype: string; time: string };
    const unnamed = unencodableName(envelope);
    if (unnamed !== undefined) return { status: 'malformed', reason: `${at}${unnamed}` };
    let text: string;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      // Data nested deeper than the stack allows parses but does not serialise again.
      return { status: 'malformed', reason: `${at}the envelope cannot be written as JSON (${(error as Error).message})` };
    }
    const partition = archivePartitionOf(envelope);
    lines.push(
      partition === undefined
        ? {
            partition: { aggregateType: envelope.aggregatetype, type: envelope.type, hour: archiveHourOf(sentAt(record, now)) },
            text,
            id: envelope.id,
            placedBySentTime: true,
          }
        : { partition, text, id: envelope.id, placedBySentTime: false },
    );
  }
  return { status: 'envelopes', lines };
}
