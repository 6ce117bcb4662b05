import { type LegacyOutboxEnvelope, normalizeEnvelope, type OutboxEnvelope } from '../envelope.js';
import { ConsumerOptionsError, MessageRejectedError } from './errors.js';
import { depthProblem, excerpt, fieldLimitProblem, jsonExcerpt } from './limits.js';
import { BODY_ALLOWED } from './message-checks.js';
import { shapeOf } from './option-checks.js';
import type { MessageAttribute } from './types.js';

/** The events a parsed message carries. */
export interface ParsedEvents {
  /** The message's first (with one event per message, its only) event. */
  readonly envelope: OutboxEnvelope;
  /**
   * Every event the message carries, in order: the one envelope, or the events of a CloudEvents
   * batch (`application/cloudevents-batch+json`, a topic with `batching`), consecutive events of
   * one aggregate in sequence order.
   */
  readonly envelopes: readonly OutboxEnvelope[];
  /** Whether the body is a CloudEvents batch (a JSON array), which its `content-type` attribute, when present, must say. */
  readonly batch: boolean;
}

/**
 * A message read: its events, and how it came. An SNS notification (a subscription without raw
 * delivery) also brings its `TopicArn` and `MessageAttributes`, which the consumer checks.
 */
export type ParseResult =
  | ({ readonly status: 'parsed'; readonly delivery: 'raw' } & ParsedEvents)
  | ({
      readonly status: 'parsed';
      readonly delivery: 'sns-notification';
      /** The notification's `TopicArn`; `undefined` when it has none (SNS always sends one). */
      readonly topicArn: string | undefined;
      /** The notification's `MessageAttributes`, in the shape of SQS's. */
      readonly messageAttributes: Readonly<Record<string, MessageAttribute>>;
    } & ParsedEvents)
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

/** A body that may be a CloudEvents batch: JSON text that opens an array. */
const opensArray = (text: string): boolean => /^\s*\[/.test(text);

function parseJson(text: string, what: string): { ok: true; value: unknown } | { ok: false; error: MessageRejectedError } {
  // Counted before parsing: deep data parses, but recursive code after it (JSON.stringify, a
  // schema, the SDK) would run out of stack on every delivery, failing instead of rejecting.
  // A batch's array is one level more than the envelopes in it.
  const deep = depthProblem(text, what, opensArray(text) ? 1 : 0);
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
      return `aggregatesequence is ${jsonExcerpt(value.aggregatesequence)}; allowed: a positive whole number (or, in an envelope of an earlier relay, sequence as one)`;
    }
  } else if (!isPosition(value.sequence)) {
    return `sequence is ${jsonExcerpt(value.sequence)}; allowed: a positive whole number (in an envelope without aggregatesequence)`;
  }
  if (!('data' in value)) return 'data is missing; allowed: any JSON value';
  return undefined;
}

/** The text of a rejected message that is not an outbox envelope. */
const notAnEnvelope = (problem: string, body: string): MessageRejectedError =>
  new MessageRejectedError('INVALID_ENVELOPE', `The message is not an outbox CloudEvents envelope: ${problem}; body ${excerpt(body)}`);

/** One checked envelope of the message, in the current form; `at` names its place in a batch. */
function readEnvelope(
  value: unknown,
  body: string,
  at: string,
): { ok: true; envelope: OutboxEnvelope } | { ok: false; error: MessageRejectedError } {
  const problem = envelopeProblem(value);
  if (problem !== undefined) return { ok: false, error: notAnEnvelope(`${at}${problem}`, body) };
  const envelope = normalizeEnvelope(value as unknown as OutboxEnvelope | LegacyOutboxEnvelope);
  const tooLong = fieldLimitProblem(envelope);
  if (tooLong !== undefined) return { ok: false, error: new MessageRejectedError('LIMIT_EXCEEDED', `The envelope's ${at}${tooLong}`) };
  return { ok: true, envelope };
}

/**
 * Why the events of a batch are not what a batch carries, or `undefined`: events of one aggregate
 * (source, type of aggregate, subject), each after the one before it in (`sequenceepoch`,
 * `aggregatesequence`), so handling them in the array's order is handling them in order.
 */
function batchProblem(envelopes: readonly OutboxEnvelope[]): string | undefined {
  const first = envelopes[0]!;
  for (let i = 1; i < envelopes.length; i++) {
    const event = envelopes[i]!;
    const before = envelopes[i - 1]!;
    for (const field of ['source', 'aggregatetype', 'subject'] as const) {
      if (event[field] !== first[field]) {
        return `event [${i}] has ${field} ${excerpt(event[field])}, event [0] ${excerpt(first[field])}; allowed: events of one aggregate in a batch`;
      }
    }
    const after =
      event.sequenceepoch > before.sequenceepoch ||
      (event.sequenceepoch === before.sequenceepoch && event.aggregatesequence > before.aggregatesequence);
    if (!after) {
      return `event [${i}] (aggregatesequence ${event.aggregatesequence}) does not come after event [${i - 1}] (aggregatesequence ${before.aggregatesequence}); allowed: a batch's events in their aggregate's order`;
    }
  }
  return undefined;
}

/** The envelope or the batch of envelopes a message's (inner) value holds. */
function readEvents(value: unknown, body: string): { ok: true; events: ParsedEvents } | { ok: false; error: MessageRejectedError } {
  if (!Array.isArray(value)) {
    const read = readEnvelope(value, body, '');
    return read.ok ? { ok: true, events: { envelope: read.envelope, envelopes: [read.envelope], batch: false } } : read;
  }
  if (value.length === 0) return { ok: false, error: notAnEnvelope('got an empty batch; allowed: a batch of at least one envelope', body) };
  const envelopes: OutboxEnvelope[] = [];
  for (const [i, item] of value.entries()) {
    const read = readEnvelope(item, body, `event [${i}] of the batch: `);
    if (!read.ok) return read;
    envelopes.push(read.envelope);
  }
  const problem = batchProblem(envelopes);
  if (problem !== undefined) return { ok: false, error: notAnEnvelope(`a CloudEvents batch whose ${problem}`, body) };
  return { ok: true, events: { envelope: envelopes[0]!, envelopes, batch: true } };
}

/**
 * Parses an SQS message body into an outbox envelope. Accepts raw delivery (the body is the
 * envelope) and SNS-enveloped delivery (`{"Type":"Notification","Message":"<envelope>",…}`), and
 * in either a CloudEvents batch (a JSON array of envelopes of one aggregate, in order): `envelopes`
 * holds every event of the message, `envelope` its first.
 * Never throws for a body: a message that can never be handled comes back `rejected` with the reason,
 * also one beyond the consumer's limits (`LIMIT_EXCEEDED`: an id or subject too long for its
 * key, data nested too deep). Whom to trust (sources, topics) is the consumer's to check.
 * An envelope of a relay before `aggregatesequence` (the position in a numeric `sequence`) comes
 * back in the current form, so handlers see one shape. A body that is no string (an envelope
 * object, `undefined`) throws `ConsumerOptionsError`, as `consumer.process` refuses it.
 *
 * @example
 * ```ts
 * const parsed = parseMessage(record.body);
 * if (parsed.status === 'parsed') for (const event of parsed.envelopes) console.log(event.type, event.aggregatesequence);
 * ```
 */
export function parseMessage(body: string): ParseResult {
  // A caller's slip, not a message: consumer.process and the handler refuse such a body alike.
  if (typeof body !== 'string') {
    throw new ConsumerOptionsError('parseMessage.body', `got ${shapeOf(body)}; allowed: ${BODY_ALLOWED}`);
  }
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
  const read = readEvents(value, body);
  if (!read.ok) return { status: 'rejected', error: read.error };
  return notification === undefined
    ? { status: 'parsed', ...read.events, delivery: 'raw' }
    : { status: 'parsed', ...read.events, delivery: 'sns-notification', ...notification };
}
