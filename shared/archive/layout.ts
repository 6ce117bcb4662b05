import { gunzipSync, gzipSync } from 'node:zlib';
import { OutboxError } from '../errors.js';
import { parseEventTime } from '../event-time.js';
import { showValue } from '../show-value.js';
import { archiveSegment, decodeArchiveSegment, MAX_ARCHIVE_OBJECT_NAME } from './layout-segment.js';

const nameOf = (segment: string): string | undefined => {
  const decoded = decodeArchiveSegment(segment);
  return decoded.shortened ? undefined : decoded.name;
};

/**
 * Where the archive keeps published events, and in what form. One object holds events of one
 * partition (aggregate type, event type, UTC hour of the event's `time`), one envelope per line,
 * gzip-compressed:
 *
 * ```
 * events/v1/aggregatetype=<aggregate type>/type=<event type>/date=YYYY-MM-DD/hour=HH/<name>.ndjson.gz
 * ```
 *
 * Type first, then time: a replay of one type or aggregate type over a time range lists exactly
 * the prefixes it needs, and the Hive-style `name=value` segments let Athena or Glue read the
 * same objects as a partitioned table. Names are URI-encoded so any type name is one segment;
 * one whose encoding is over 400 bytes is shortened to its beginning and a hash (see
 * {@link archiveSegment}), so every key fits S3's 1,024 bytes.
 * The event's own `time` places it, not when it reached the archive: an event redriven days
 * later lands in the hour it was written in.
 */
export const ARCHIVE_ROOT = 'events/v1/';

/** The file name ending of every archive object. */
export const ARCHIVE_OBJECT_SUFFIX = '.ndjson.gz';

/** One partition of the archive. */
export interface ArchivePartition {
  readonly aggregateType: string;
  readonly type: string;
  /** The UTC hour of the events' `time`, as `YYYY-MM-DDTHH`. */
  readonly hour: string;
}

/** Why an archive object or key could not be read. */
export type ArchiveObjectErrorCode = 'NOT_AN_ARCHIVE_KEY' | 'CORRUPT_ARCHIVE_OBJECT';

/** An archive object (or its key) is not in the archive's form; `key` names it. */
export class ArchiveObjectError extends OutboxError {
  declare readonly code: ArchiveObjectErrorCode;
  readonly key: string;

  constructor(code: ArchiveObjectErrorCode, key: string, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = 'ArchiveObjectError';
    this.key = key;
  }
}

const HOUR_PATTERN = /^(\d{4}-\d{2}-\d{2})T(\d{2})$/;

/** A partition as its key says it; a name shortened in the key (see {@link archiveSegment}) is `undefined`. */
export interface ArchiveKeyPartition {
  readonly aggregateType: string | undefined;
  readonly type: string | undefined;
  /** The UTC hour of the events' `time`, as `YYYY-MM-DDTHH`. */
  readonly hour: string;
}

/** The partition hour (`YYYY-MM-DDTHH`, UTC) of an instant. */
export const archiveHourOf = (instant: Date): string => instant.toISOString().slice(0, 13);

/**
 * The partition an event belongs to: its aggregate type, its type and the UTC hour of its `time`.
 * Returns `undefined` when `time` is not an RFC 3339 date-time (see {@link parseEventTime}), or one outside the years 0000–9999 (which have
 * no `date=YYYY-MM-DD` segment), which the caller must handle (the archiver places such an event
 * by when it was published).
 *
 * @example
 * ```ts
 * archivePartitionOf({ aggregatetype: 'order', type: 'order.placed', time: '2026-03-01T10:15:00.000Z' });
 * // { aggregateType: 'order', type: 'order.placed', hour: '2026-03-01T10' }
 * ```
 */
export function archivePartitionOf(event: {
  readonly aggregatetype: string;
  readonly type: string;
  readonly time: string;
}): ArchivePartition | undefined {
  const instant = parseEventTime(event.time);
  if (instant === undefined) return undefined;
  const hour = archiveHourOf(new Date(instant));
  // A year before 0000 or after 9999 is a date, yet it has no `date=YYYY-MM-DD` segment.
  return HOUR_PATTERN.test(hour) ? { aggregateType: event.aggregatetype, type: event.type, hour } : undefined;
}

/** The key prefix of a partition, ending in `/`. */
export function archivePartitionPrefix(partition: ArchivePartition): string {
  const match = HOUR_PATTERN.exec(partition.hour);
  if (match === null) throw new RangeError(`partition hour ${JSON.stringify(partition.hour)} is not YYYY-MM-DDTHH`);
  return `${archiveTypePrefix(partition.aggregateType, partition.type)}date=${match[1]}/hour=${match[2]}/`;
}

/** The prefix of every object of one aggregate type, or of one of its event types; ends in `/`. */
export function archiveTypePrefix(aggregateType: string, type?: string): string {
  const aggregate = `${ARCHIVE_ROOT}aggregatetype=${archiveSegment(aggregateType)}/`;
  return type === undefined ? aggregate : `${aggregate}type=${archiveSegment(type)}/`;
}

const OBJECT_NAME = new RegExp(`^[A-Za-z0-9._-]{1,${MAX_ARCHIVE_OBJECT_NAME}}$`);

/**
 * `name` when it may name an archive object (1 to 64 letters, digits, `-`, `_`, `.`; not `.` or
 * `..`): one key segment, never a path.
 *
 * @throws {RangeError} naming what was given and what is allowed.
 */
export function checkedArchiveObjectName(name: unknown): string {
  if (typeof name !== 'string' || !OBJECT_NAME.test(name) || name === '.' || name === '..')
    throw new RangeError(
      `archive object name ${showValue(name)} is not allowed; allowed: 1 to ${MAX_ARCHIVE_OBJECT_NAME} letters, digits, '-', '_' or '.' (not '.' or '..')`,
    );
  return name;
}

/** The key of an object named `name` (see {@link checkedArchiveObjectName}) in a partition. */
export function archiveObjectKey(partition: ArchivePartition, name: string): string {
  return `${archivePartitionPrefix(partition)}${checkedArchiveObjectName(name)}${ARCHIVE_OBJECT_SUFFIX}`;
}

const KEY_PATTERN = /^events\/v1\/aggregatetype=([^/]+)\/type=([^/]+)\/date=(\d{4}-\d{2}-\d{2})\/hour=(\d{2})\/([^/]+)\.ndjson\.gz$/;

/**
 * The partition and name of an archive object's key. A type or aggregate type shortened in the
 * key is `undefined`: the whole name is in the object's envelopes.
 *
 * @throws {ArchiveObjectError} `NOT_AN_ARCHIVE_KEY` when the key is not in the archive's layout.
 */
export function parseArchiveObjectKey(key: string): { readonly partition: ArchiveKeyPartition; readonly name: string } {
  const match = KEY_PATTERN.exec(key);
  if (match === null) {
    throw new ArchiveObjectError(
      'NOT_AN_ARCHIVE_KEY',
      key,
      `archive object key ${JSON.stringify(key)} is not in the archive's layout; allowed: ${ARCHIVE_ROOT}aggregatetype=<a>/type=<t>/date=YYYY-MM-DD/hour=HH/<name>${ARCHIVE_OBJECT_SUFFIX}`,
    );
  }
  const [, aggregateType, type, date, hour, name] = match as unknown as [string, string, string, string, string, string];
  try {
    return {
      partition: { aggregateType: nameOf(aggregateType), type: nameOf(type), hour: `${date}T${hour}` },
      name,
    };
  } catch (error) {
    throw new ArchiveObjectError(
      'NOT_AN_ARCHIVE_KEY',
      key,
      `archive object key ${JSON.stringify(key)} has a segment that is not URI-encoded`,
      {
        cause: error,
      },
    );
  }
}

/**
 * An archive object's body: the envelopes' JSON texts, one per line, gzip-compressed. Each text
 * must be one line (JSON.stringify output and the relay's envelopes are).
 *
 * @example
 * ```ts
 * const body = encodeArchiveObject([envelopeText1, envelopeText2]);
 * ```
 */
export function encodeArchiveObject(envelopeTexts: readonly string[]): Uint8Array {
  for (const text of envelopeTexts) {
    if (text.includes('\n')) throw new RangeError('an archived envelope must be one line of JSON');
  }
  return gzipSync(`${envelopeTexts.join('\n')}\n`);
}

/** One line of an archive object that is not an envelope's JSON. */
export interface MalformedArchiveLine {
  /** 1-based. */
  readonly line: number;
  readonly reason: string;
}

/** One line of an archive object that parsed as JSON. */
export interface ArchiveLine {
  /** 1-based. */
  readonly line: number;
  /** The line as archived: the envelope's JSON exactly as published. */
  readonly text: string;
  readonly record: unknown;
}

/** What an archive object holds. */
export interface DecodedArchiveObject {
  /** Each line that parsed, in the object's order. */
  readonly lines: readonly ArchiveLine[];
  readonly malformed: readonly MalformedArchiveLine[];
}

/**
 * The lines of an archive object, parsed. A body that does not gunzip is refused whole; a line
 * that is not JSON is reported in `malformed` and the others are kept. Checking that each
 * record is an envelope is the reader's business.
 *
 * @throws {ArchiveObjectError} `CORRUPT_ARCHIVE_OBJECT` when the body is not gzip.
 */
export function decodeArchiveObject(key: string, body: Uint8Array): DecodedArchiveObject {
  let text: string;
  try {
    text = gunzipSync(body).toString('utf8');
  } catch (error) {
    throw new ArchiveObjectError(
      'CORRUPT_ARCHIVE_OBJECT',
      key,
      `archive object ${JSON.stringify(key)} is not gzip (${(error as Error).message}); allowed: gzip of one envelope JSON per line`,
      { cause: error },
    );
  }
  const parsed: ArchiveLine[] = [];
  const malformed: MalformedArchiveLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === '') continue;
    try {
      parsed.push({ line: i + 1, text: line, record: JSON.parse(line) });
    } catch (error) {
      malformed.push({ line: i + 1, reason: (error as Error).message });
    }
  }
  return { lines: parsed, malformed };
}
