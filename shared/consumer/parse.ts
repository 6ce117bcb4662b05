import type { OutboxEnvelope } from '../envelope.js';
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

const STRING_FIELDS = ['id', 'source', 'type', 'subject', 'time', 'aggregatetype', 'sequenceepoch'] as const;

/** Why a parsed value is not an outbox envelope, or `undefined` when it is one. */
export function envelopeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}; allowed: a JSON object`;
  if (value.specversion !== '1.0') return `specversion is ${JSON.stringify(value.specversion)}; allowed: "1.0"`;
  for (const field of STRING_FIELDS) {
    if (typeof value[field] !== 'string' || value[field] === '')
      return `${field} is ${JSON.stringify(value[field])}; allowed: a non-empty string`;
  }
  if (typeof value.sequence !== 'number' || !Number.isInteger(value.sequence) || value.sequence < 1) {
    return `sequence is ${JSON.stringify(value.sequence)}; allowed: a positive integer`;
  }
  if (!('data' in value)) return 'data is missing; allowed: any JSON value';
  return undefined;
}

/**
 * Parses an SQS message body into an outbox envelope. Accepts raw delivery (the body is the
 * envelope) and SNS-enveloped delivery (`{"Type":"Notification","Message":"<envelope>",…}`).
 * Never throws: a message that can never be handled comes back `rejected` with the reason.
 *
 * @example
 * ```ts
 * const parsed = parseMessage(record.body);
 * if (parsed.status === 'parsed') console.log(parsed.envelope.type, parsed.envelope.sequence);
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
  return { status: 'parsed', envelope: value as unknown as OutboxEnvelope, delivery };
}
