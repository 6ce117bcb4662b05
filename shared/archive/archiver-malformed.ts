import type { SQSRecord } from 'aws-lambda';
import { sentAt } from './archiver-records.js';
import { ARCHIVE_OBJECT_SUFFIX, archiveHourOf, checkedArchiveObjectName } from './layout.js';

/**
 * Where the archiver keeps messages of the archive queue that hold no outbox envelope: apart
 * from `events/v1/`, so readers and `replay` never meet them, yet nothing is dropped unseen.
 * Keys `malformed/v1/date=YYYY-MM-DD/hour=HH/<name>.ndjson.gz`, by the hour SQS received them;
 * each line one {@link MalformedArchiveRecord}.
 */
export const ARCHIVE_MALFORMED_ROOT = 'malformed/v1/';

/** One line of a malformed-records object: the message as it came, and why it is not archived as an event. */
export interface MalformedArchiveRecord {
  readonly messageId: string;
  /** When SQS received it (ISO 8601). */
  readonly sentAt: string;
  readonly reason: string;
  readonly body: string;
  /** The message's string attributes. */
  readonly attributes: Readonly<Record<string, string>>;
}

/** The line of a malformed record, and the hour its object is kept under. */
export function malformedLine(record: SQSRecord, reason: string, now: number): { readonly hour: string; readonly text: string } {
  const sent = sentAt(record, now);
  const attributes: Record<string, string> = {};
  for (const [name, attribute] of Object.entries(record.messageAttributes ?? {})) {
    if (attribute.stringValue !== undefined) attributes[name] = attribute.stringValue;
  }
  const line: MalformedArchiveRecord = { messageId: record.messageId, sentAt: sent.toISOString(), reason, body: record.body, attributes };
  return { hour: archiveHourOf(sent), text: JSON.stringify(line) };
}

/** The key of a malformed-records object named `name` (see {@link checkedArchiveObjectName}) for an hour (`YYYY-MM-DDTHH`). */
export const malformedObjectKey = (hour: string, name: string): string =>
  `${ARCHIVE_MALFORMED_ROOT}date=${hour.slice(0, 10)}/hour=${hour.slice(11, 13)}/${checkedArchiveObjectName(name)}${ARCHIVE_OBJECT_SUFFIX}`;
