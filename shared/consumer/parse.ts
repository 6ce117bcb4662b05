import { type LegacyOutboxEnvelope, normalizeEnvelope, type OutboxEnvelope } from '../envelope.js';
import { MessageRejectedError } from './errors.js';
import { depthProblem, excerpt, fieldLimitProblem, jsonExcerpt } from './limits.js';
import type { MessageAttribute } from './types.js';

/**
 * A message read: the envelope, and how it came. An SNS notification (a subscription without raw
 * delivery) also brings its `TopicArn` and `MessageAttributes`, which the consumer checks.
 */
export type ParseResult =
  | { readonly status: 'parsed'; readonly envelope: OutboxEnvelope; readonly delivery: 'raw' }
  | {
      readonly status: 'parsed';
      readonly envelope: OutboxEnvelope;
      readonly delivery: 'sns-notification';
      /** The notification's `TopicArn`; `undefined` when it has none (SNS always sends one). */
      readonly topicArn: string | undefined;
      /** The notification's `MessageAttributes`, in the shape of SQS's. */
      readonly messageAttributes: Readonly<Record<string, MessageAttribute>>;
    }
  | { readonly status: 'rejected'; readonly error: MessageRejectedError };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An SNS notification's `MessageAttributes` (`{ name: { Type, Value } }`) in the shape of SQS's; malformed entries keep no value. */
function notificationAttributes(value: unknown): Record<string, MessageAttribute> {
  if (!isRecord(value)) return {};
  const result: Record<string, MessageAttribute> = {};
  for (const [name, attribute] of Object.entries(value)) {
    const type = isRecord(attribute) && typeof attribute.Type === 'string' ? attribute.Type : 'unknown';
    const text = isRecord(attribute) && typeof attribute.Value === 'string' && !type.startsWith('Binary') ? attribute.Value : undefined;
    result[name] = { dataType: type, ...(text === undefined ? {} : { stringValue: text }) };
  }
  return result;
}

const tooDeep = (problem: string): { ok: false; error: MessageRejectedError } => ({
  ok: false,
  error: new MessageRejectedError('LIMIT_EXCEEDED', problem),
});

function parseJson(text: string, what: string): { ok: true; value: unknown } | { ok: false; error: MessageRejectedError } {
  // Counted before parsing: deep data parses, but recursive code after it (JSON.stringify, a
  // schema, the SDK) would run out of stack on every delivery, failing instead of rejecting.
  const deep = depthProblem(text, what);
  if (deep !== undefined) return tooDeep(deep);
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
  if (!isRecord(value)) return `got ${Array.isArray(value) ? 'an array' : jsonExcerpt(value)}; allowed: a JSON object`;
  if (value.specversion !== '1.0') return `specversion is ${jsonExcerpt(value.specversion)}; allowed: "1.0"`;
  for (const field of STRING_FIELDS) {
    if (typeof value[field] !== 'string' || value[field] === '')
      return `${field} is ${jsonExcerpt(value[field])}; allowed: a non-empty string`;
  }
  // Envelopes of relays before `aggregatesequence` carry the position in `sequence`, a number; they
  // may still wait in queues and DLQs. A `sequence` beside `aggregatesequence` is not ours and is left alone.
  if ('aggregatesequence' in value || typeof value.sequence !== 'number') {
    if (!isPosition(value.aggregatesequence)) {
      return `aggregatesequence is ${jsonExcerpt(value.aggregatesequence)}; allowed: a positive integer (or, in an envelope of an earlier relay, sequence as one)`;
    }
  } else if (!isPosition(value.sequence)) {
    return `sequence is ${jsonExcerpt(value.sequence)}; allowed: a positive integer (in an envelope without aggregatesequence)`;
  }
  if (!('data' in value)) return 'data is missing; allowed: any JSON value';
  return undefined;
}

/**
 * Parses an SQS message body into an outbox envelope. Accepts raw delivery (the body is the
 * envelope) and SNS-enveloped delivery (`{"Type":"Notification","Message":"<envelope>",…}`).
 * Never throws: a message that can never be handled comes back `rejected` with the reason,
 * also one beyond the consumer's limits (`LIMIT_EXCEEDED`: an id or subject too long for its
 * key, data nested too deep). Whom to trust (sources, topics) is the consumer's to check.
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
  let notification: { topicArn: string | undefined; messageAttributes: Record<string, MessageAttribute> } | undefined;
  if (isRecord(value) && value.Type === 'Notification' && 'Message' in value) {
    if (typeof value.Message !== 'string') {
      return {
        status: 'rejected',
        error: new MessageRejectedError('INVALID_ENVELOPE', `The SNS notification's Message is ${typeof value.Message}; allowed: a string`),
      };
    }
    const inner = parseJson(value.Message, "The SNS notification's Message");
    if (!inner.ok) return { status: 'rejected', error: inner.error };
    notification = {
      topicArn: typeof value.TopicArn === 'string' ? value.TopicArn : undefined,
      messageAttributes: notificationAttributes(value.MessageAttributes),
    };
    value = inner.value;
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
  const envelope = normalizeEnvelope(value as unknown as OutboxEnvelope | LegacyOutboxEnvelope);
  const tooLong = fieldLimitProblem(envelope);
  if (tooLong !== undefined) {
    return { status: 'rejected', error: new MessageRejectedError('LIMIT_EXCEEDED', `The envelope's ${tooLong}`) };
  }
  return notification === undefined
    ? { status: 'parsed', envelope, delivery: 'raw' }
    : { status: 'parsed', envelope, delivery: 'sns-notification', ...notification };
}
