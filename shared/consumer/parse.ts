import { type LegacyOutboxEnvelope, normalizeEnvelope, type OutboxEnvelope } from '../envelope.js';
import { MessageRejectedError } from './errors.js';

export type ParseResult =
  | { readonly status: 'parsed'; readonly envelope: OutboxEnvelope; readonly delivery: 'raw' | 'sns-notification' }
  | { readonly status: 'rejected'; readonly error: MessageRejectedError };

const MAX_SHOWN = 120;
const excerpt = (text: string): string => JSON.stringify(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(text: string, what: string): { ok: true; value: unknown } | { ok: false; error: MessageRejectedError } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (cause) {
    return {
      ok: false,
      error: new MessageRejectedError(
        'INVALID_JSON',
        `${what} is not JSON (${(cause as Error).message}); got ${excerpt(text)}; allowed: an outbox CloudEvents envelope as JSON, raw or inside an SNS notification`,
        { cause },
      ),
    };
  }
}

const isPosition = (value: unknown): boolean => typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;

const STRING_FIELDS = ['id', 'source', 'type', 'subject', 'time', 'aggregatetype', 'sequenceepoch'] as const;

/** Why a parsed value is not an outbox envelope, or `undefined` when it is one. */
export function envelopeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}; allowed: a JSON object`;
  if (value.specversion !== '1.0') return `specversion is ${JSON.stringify(value.specversion)}; allowed: "1.0"`;
  for (const field of STRING_FIELDS) {
    if (typeof value[field] !== 'string' || value[field] === '')
      return `${field} is ${JSON.stringify(value[field])}; allowed: a non-empty string`;
  }
  // Envelopes of relays before `aggregatesequence` carry the position in `sequence`, a number; they
  // may still wait in queues and DLQs. A `sequence` beside `aggregatesequence` is not ours and is left alone.
  if ('aggregatesequence' in value || typeof value.sequence !== 'number') {
    if (!isPosition(value.aggregatesequence)) {
      return `aggregatesequence is ${JSON.stringify(value.aggregatesequence)}; allowed: a positive integer (or, in an envelope of an earlier relay, sequence as one)`;
    }
  } else if (!isPosition(value.sequence)) {
    return `sequence is ${JSON.stringify(value.sequence)}; allowed: a positive integer (in an envelope without aggregatesequence)`;
  }
  if (!('data' in value)) return 'data is missing; allowed: any JSON value';
  return undefined;
}

/**
 * Parses an SQS message body into an outbox envelope. Accepts raw delivery (the body is the
 * envelope) and SNS-enveloped delivery (`{"Type":"Notification","Message":"<envelope>",…}`).
 * Never throws: a message that can never be handled comes back `rejected` with the reason.
 * An envelope of a relay before `aggregatesequence` (the position in a numeric `sequence`) comes
 * back in the current form, so handlers see one shape.
 *
 * @example
 * ```ts
 * const parsed = parseMessage(record.body);
 * if (parsed.status === 'parsed') console.log(parsed.envelope.type, parsed.envelope.aggregatesequence);
 * ```
 */
export function parseMessage(body: string): ParseResult {
  const outer = parseJson(body, 'The message body');
  if (!outer.ok) return { status: 'rejected', error: outer.error };
  let value = outer.value;
  let delivery: 'raw' | 'sns-notification' = 'raw';
  if (isRecord(value) && value.Type === 'Notification' && 'Message' in value) {
    if (typeof value.Message !== 'string') {
      return {
        status: 'rejected',
        error: new MessageRejectedError('INVALID_ENVELOPE', `The SNS notification's Message is ${typeof value.Message}; allowed: a string`),
      };
    }
    const inner = parseJson(value.Message, "The SNS notification's Message");
    if (!inner.ok) return { status: 'rejected', error: inner.error };
    value = inner.value;
    delivery = 'sns-notification';
  }
  const problem = envelopeProblem(value);
  if (problem !== undefined) {
    return {
      status: 'rejected',
      error: new MessageRejectedError(
        'INVALID_ENVELOPE',
        `The message is not an outbox CloudEvents envelope: ${problem}; body ${excerpt(body)}`,
      ),
    };
  }
  return { status: 'parsed', envelope: normalizeEnvelope(value as unknown as OutboxEnvelope | LegacyOutboxEnvelope), delivery };
}
