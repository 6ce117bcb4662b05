import { createHash } from 'node:crypto';

/**
 * The most bytes an aggregate type's or event type's segment value takes in an archive key.
 * S3 allows 1,024 bytes of UTF-8 per key; the rest of a key is ASCII and fixed:
 * `events/v1/` (10) + `aggregatetype=` (14) + `/type=` (6) + `/date=YYYY-MM-DD` (16) +
 * `/hour=HH/` (9) + a name of at most {@link MAX_ARCHIVE_OBJECT_NAME} (64) + `.ndjson.gz` (10)
 * = 129 bytes, so two segments of 400 come to 929, 95 bytes under the limit. 400 encoded bytes
 * are 400 ASCII letters, 44 CJK characters (9 bytes each as `%XX` escapes) or 33 emoji (12); the
 * write helper's event types go up to 256 characters, and other publishers' have no bound.
 */
export const MAX_ARCHIVE_SEGMENT_BYTES = 400;

/** The longest object name a key holds (the archiver's are 36-character UUIDs). */
export const MAX_ARCHIVE_OBJECT_NAME = 64;

/** `~` and 16 hex digits of the name's SHA-256 end a shortened segment. */
const HASH_SUFFIX_LENGTH = 17;
const HASHED_ENDING = /~[0-9a-f]{16}$/;
/** A code point is at most 12 encoded bytes (4 UTF-8 bytes as `%XX`), so a shortened segment is at least this long. */
const SHORTEST_HASHED = MAX_ARCHIVE_SEGMENT_BYTES - 11;

/**
 * Whether a segment value is a shortened one. A name whose plain encoding would look like one (as
 * long, ending in `~` and 16 hex digits) is shortened too, so the two forms never meet.
 */
const looksHashed = (segment: string): boolean => segment.length >= SHORTEST_HASHED && HASHED_ENDING.test(segment);

/**
 * The key segment value of an aggregate type or event type: the name URI-encoded (existing keys
 * are unchanged), or, when that is over {@link MAX_ARCHIVE_SEGMENT_BYTES}, the encoding of the
 * name's first whole characters that fit, `~`, and 16 hex digits of the SHA-256 of the whole
 * name: readable in a listing or an Athena partition, and still one value per name.
 *
 * @throws {URIError} when the name is not well-formed Unicode (a lone surrogate).
 */
export function archiveSegment(name: string): string {
  const plain = encodeURIComponent(name);
  if (plain.length <= MAX_ARCHIVE_SEGMENT_BYTES && !looksHashed(plain)) return plain;
  const budget = MAX_ARCHIVE_SEGMENT_BYTES - HASH_SUFFIX_LENGTH;
  let prefix = '';
  for (const character of name) {
    const encoded = encodeURIComponent(character);
    if (prefix.length + encoded.length > budget) break;
    prefix += encoded;
  }
  return `${prefix}~${createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 16)}`;
}

/** What a key's segment value says of its name: the name, or (shortened) only its beginning. */
export type DecodedSegment = { readonly shortened: false; readonly name: string } | { readonly shortened: true; readonly prefix: string };

/**
 * The name a segment value stands for; for a shortened one only its readable beginning, the
 * whole name being in the envelopes of its objects.
 *
 * @throws {URIError} when the value is not URI-encoded.
 */
export function decodeArchiveSegment(segment: string): DecodedSegment {
  if (!looksHashed(segment)) return { shortened: false, name: decodeURIComponent(segment) };
  return { shortened: true, prefix: decodeURIComponent(segment.slice(0, -HASH_SUFFIX_LENGTH)) };
}
