import { gunzipSync, gzipSync } from 'node:zlib';
import { escapeNoncharacters } from './json-data.js';

/** The `kind` of every message the relay sends to its dead-letter queue ({@link RelayDeadLetter}). */
export const RELAY_DEAD_LETTER_KIND = 'outbox-relay-dead-letter';

/** Why the relay sent a record to its dead-letter queue (the dead letter's `reason`). */
export type RelayDeadLetterReason =
  /** SNS rejected the message for good (e.g. too large, invalid parameter). */
  | 'PUBLISH_REJECTED'
  /** The stream record's image is not a well-formed outbox slot. */
  | 'MALFORMED_SLOT'
  /** The aggregate type has no route in the config. */
  | 'UNKNOWN_ROUTE';

/** Where the failed record sat in the stream. */
export interface StreamCoordinates {
  readonly eventSourceArn?: string;
  readonly eventId?: string;
  readonly sequenceNumber?: string;
  readonly approximateCreationDateTime?: number;
}

/**
 * What the relay sends to its dead-letter queue when a record can never be published:
 * everything needed to understand the failure and to republish the original envelope with
 * the same id (so consumer dedup still holds).
 */
export interface RelayDeadLetter {
  readonly kind: typeof RELAY_DEAD_LETTER_KIND;
  readonly version: 1;
  readonly reason: RelayDeadLetterReason;
  /** Human-readable detail, e.g. the SNS error code and message. */
  readonly detail: string;
  readonly failedAt: string;
  readonly record: StreamCoordinates;
  /** The topic the event was routed to, by config name, when a route existed. */
  readonly topic?: string;
  /** The full CloudEvents envelope (JSON text) when the slot could be decoded. */
  readonly envelope?: string;
  readonly eventId?: string;
  readonly eventType?: string;
  readonly aggregateType?: string;
  readonly aggregateId?: string;
  readonly sequence?: number;
  /** The raw stream image (DynamoDB JSON) when it could not be decoded into envelopes. */
  readonly rawImage?: unknown;
  /** `envelope`, gzip'd and base64-encoded, in a dead letter too large for SQS with it in plain text. */
  readonly envelopeGzip?: string;
  /** `rawImage` as JSON text, gzip'd and base64-encoded, in a dead letter too large for SQS with it in plain. */
  readonly rawImageGzip?: string;
}

/** Text gzip'd and base64-encoded, as a dead letter carries a large envelope or image, and back. */
const gzip = (text: string): string => gzipSync(text).toString('base64');
const gunzip = (base64: string): string => gunzipSync(Buffer.from(base64, 'base64')).toString('utf8');

/** The largest message SQS takes (1 MiB), which the relay DLQ is created to accept. */
export const MAX_DEAD_LETTER_MESSAGE_BYTES = 1_048_576;
/** The largest plain dead letter: what a queue with SQS's former default limit (256 KiB) takes, with room for the `reason` attribute. */
const MAX_PLAIN_BODY_BYTES = 262_144 - 1_024;

/**
 * A dead letter as the relay DLQ's message body: plain JSON while a queue with SQS's former
 * default limit (256 KiB) would take it. An envelope can outgrow that once escaped inside the
 * letter (up to twice its size, six times for control characters a slot written by hand may
 * hold), and so can a raw image: then the envelope and the image are carried gzip'd
 * (`envelopeGzip`, `rawImageGzip`). That always fits the relay DLQ's 1 MiB for a slot item (at
 * most 400 KB), and usually 256 KiB too. Read them back with {@link deadLetterEnvelope} and
 * {@link deadLetterRawImage}.
 */
export function deadLetterBody(letter: RelayDeadLetter): string {
  // SQS refuses U+FFFE and U+FFFF in a message: escaped, a letter holding one (a raw image, a detail) still goes.
  const plain = escapeNoncharacters(JSON.stringify(letter));
  if (Buffer.byteLength(plain) <= MAX_PLAIN_BODY_BYTES) return plain;
  const { envelope, rawImage, ...rest } = letter;
  return escapeNoncharacters(
    JSON.stringify({
      ...rest,
      ...(envelope === undefined ? {} : { envelopeGzip: gzip(envelope) }),
      ...(rawImage === undefined ? {} : { rawImageGzip: gzip(JSON.stringify(rawImage)) }),
    } satisfies RelayDeadLetter),
  );
}

/** The envelope a dead letter holds, exactly as it would have been published, plain or gzip'd; `undefined` when it holds none. */
export function deadLetterEnvelope(letter: RelayDeadLetter): string | undefined {
  if (letter.envelope !== undefined) return letter.envelope;
  return letter.envelopeGzip === undefined ? undefined : gunzip(letter.envelopeGzip);
}

/** The raw image a dead letter holds, plain or gzip'd; `undefined` when it holds none. */
export function deadLetterRawImage(letter: RelayDeadLetter): unknown {
  if (letter.rawImage !== undefined) return letter.rawImage;
  return letter.rawImageGzip === undefined ? undefined : JSON.parse(gunzip(letter.rawImageGzip));
}

export const isRelayDeadLetter = (value: unknown): value is RelayDeadLetter =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === RELAY_DEAD_LETTER_KIND;
