/**
 * What the consumer helper takes of an envelope, so that a hostile or broken message is rejected
 * at once instead of failing (and being retried) deep inside a DynamoDB call or a handler.
 * Each bound admits every envelope this package's relay publishes.
 */
export const CONSUMER_LIMITS = Object.freeze({
  /**
   * Bytes (UTF-8) of an event `id`: it is part of the inbox record's partition key, which
   * DynamoDB caps at 2,048 bytes (`INBOX#`, a consumer name of up to 64 characters and `#` take
   * 71 of them). The relay's ids are UUIDs (36 bytes).
   */
  idBytes: 1024,
  /**
   * Bytes of a `subject` (the aggregate id): the write helper's own bound on aggregate ids, and it
   * is part of the sequence record's partition key (2,048 bytes at most).
   */
  subjectBytes: 1024,
  /** Bytes of an `aggregatetype`: part of the sequence record's key too; the write helper allows 64 characters. */
  aggregateTypeBytes: 256,
  /**
   * Bytes of a configured `source`: it is part of the inbox record's sort key (`INBOX#<source>`),
   * which DynamoDB caps at 1,024 bytes. Received sources are held to the configured ones.
   */
  sourceBytes: 1018,
  /**
   * How deep `data` may nest arrays and objects: twice the 32 levels DynamoDB allows a document
   * (the write helper refuses data nested deeper than 31), so any data a handler can store
   * passes, with room for other producers; far below the
   * thousands of levels at which recursive code (`JSON.stringify`, schema validators, the SDK's
   * marshalling) runs out of stack and fails the message on every delivery.
   */
  dataDepth: 64,
});

/** The envelope object itself is one level; its `data` nests below it. */
const MAX_MESSAGE_DEPTH = CONSUMER_LIMITS.dataDepth + 1;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * How deep JSON text nests arrays and objects, read in one pass without parsing (so without
 * recursion): brackets inside strings do not count. Text that is not JSON gets some number; the
 * parser rejects it afterwards.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return deepest;
}

/** Why JSON text nests too deep for a message, or `undefined`; `what` names the text, `around` the levels above its envelopes (a batch's array). */
export function depthProblem(text: string, what: string, around = 0): string | undefined {
  const depth = nestingDepth(text);
  if (depth <= MAX_MESSAGE_DEPTH + around) return undefined;
  const batch = around > 0 ? ' in a batch array' : '';
  return `${what} nests arrays and objects ${depth} levels deep; allowed: at most ${MAX_MESSAGE_DEPTH + around} (the envelope${batch}, and its data at most ${CONSUMER_LIMITS.dataDepth} levels below it)`;
}

const FIELD_LIMITS = [
  ['id', CONSUMER_LIMITS.idBytes, 'the inbox key'],
  ['subject', CONSUMER_LIMITS.subjectBytes, 'the sequence key'],
  ['aggregatetype', CONSUMER_LIMITS.aggregateTypeBytes, 'the sequence key'],
] as const;

/** Why an envelope's fields are too long for the consumer's keys, or `undefined`. */
export function fieldLimitProblem(envelope: {
  readonly id: string;
  readonly subject: string;
  readonly aggregatetype: string;
}): string | undefined {
  for (const [field, limit, key] of FIELD_LIMITS) {
    const value = envelope[field];
    // A string's UTF-8 length is at most 3 bytes per UTF-16 unit: short ones need no count.
    if (value.length * 3 <= limit) continue;
    const bytes = Buffer.byteLength(value);
    if (bytes > limit) {
      return `${field} is ${bytes} bytes long (${excerpt(value)}); allowed: at most ${limit} bytes, since it is part of ${key} and DynamoDB limits key sizes`;
    }
  }
  return undefined;
}

const MAX_SHOWN = 120;

/** A string as JSON, cut to its first 120 characters: reasons quote what was given without repeating a huge value. */
export const excerpt = (text: string): string => JSON.stringify(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);

/**
 * A value as JSON for a reason, cut to `max` characters; never throws (a value `JSON.stringify`
 * refuses, such as a BigInt or a cycle, is described instead), so building a rejection's reason
 * cannot turn it into a failure that is retried.
 */
export function jsonExcerpt(value: unknown, max = 200): string {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(typeof value);
    return text.length > max ? `${text.slice(0, max)}…` : text;
  } catch (error) {
    return `(not shown: JSON.stringify failed: ${error instanceof Error ? error.message : 'unknown error'})`;
  }
}
