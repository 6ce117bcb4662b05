import type { Message } from '@aws-sdk/client-sqs';
import { parseMessage } from '../consumer/parse.js';
import { deadLetterEnvelope, isRelayDeadLetter, type RelayDeadLetterReason } from '../dead-letter.js';
import { parseEventTime } from '../event-time.js';

/** The relay's reasons, as its dead letters carry them. */
export const RELAY_REASONS: readonly RelayDeadLetterReason[] = ['PUBLISH_REJECTED', 'MALFORMED_SLOT', 'UNKNOWN_ROUTE'];

/**
 * Why a subscriber DLQ holds a message that is a readable outbox envelope: SQS moved it there after
 * `maxReceiveCount` receives without a delete. SQS keeps no other cause with it, and the consumer
 * helper's rejection only logs its reason.
 */
export const MAX_RECEIVE_COUNT_EXCEEDED = 'MAX_RECEIVE_COUNT_EXCEEDED';

/** A message that is neither a relay dead letter nor an outbox envelope (raw or in an SNS notification). */
export const MALFORMED = 'MALFORMED';

/** Every reason a dead letter can be grouped and filtered by. */
export const DEAD_LETTER_REASONS: readonly string[] = [...RELAY_REASONS, MAX_RECEIVE_COUNT_EXCEEDED, MALFORMED];

/** What can be known of one dead letter from the message alone. */
export interface DeadLetterInfo {
  /** `relay`: a relay dead letter; `subscriber`: an envelope a consumer's queue gave up on; `malformed`: neither. */
  readonly kind: 'relay' | 'subscriber' | 'malformed';
  /** One of {@link DEAD_LETTER_REASONS}. */
  readonly reason: string;
  /** The relay's detail, or why the message is malformed. */
  readonly detail?: string;
  readonly eventType?: string;
  readonly aggregateType?: string;
  readonly aggregateId?: string;
  /**
   * Epoch ms: the event's `time` when the message carries a readable envelope whose `time` is an
   * RFC 3339 date-time, else the message's `SentTimestamp` (`timeSource` says which); undefined
   * when neither is readable.
   */
  readonly time?: number;
  readonly timeSource: 'envelope' | 'sent';
  /** `ApproximateReceiveCount` as the receive that read it reported it (that receive included). */
  readonly receiveCount?: number;
  /**
   * Each event of a CloudEvents batch message (a topic with `batching`: several events of one
   * aggregate, `eventType` and `time` above being its first's), in order; absent for a message
   * of one event.
   */
  readonly batch?: readonly DeadLetterEvent[];
}

/** One event of a batch dead letter: its type, and its time as {@link DeadLetterInfo.time} has it. */
export interface DeadLetterEvent {
  readonly eventType: string;
  readonly time?: number;
  readonly timeSource: 'envelope' | 'sent';
}

const numberOf = (text: string | undefined): number | undefined => {
  const n = Number(text);
  return text === undefined || text === '' || !Number.isFinite(n) ? undefined : n;
};

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The fields of an envelope's text; its time only when `time` is an RFC 3339 date-time. */
function envelopeFields(text: string | undefined): { type?: string; aggregateType?: string; aggregateId?: string; time?: number } {
  if (text === undefined) return {};
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (typeof value !== 'object' || value === null) return {};
    const time = typeof value.time === 'string' ? parseEventTime(value.time) : undefined;
    return {
      ...(stringOf(value.type) === undefined ? {} : { type: value.type as string }),
      ...(stringOf(value.aggregatetype) === undefined ? {} : { aggregateType: value.aggregatetype as string }),
      ...(stringOf(value.subject) === undefined ? {} : { aggregateId: value.subject as string }),
      ...(time === undefined ? {} : { time }),
    };
  } catch {
    return {};
  }
}

function relayInfo(letter: Record<string, unknown>, base: Base): DeadLetterInfo {
  const reason = stringOf(letter.reason);
  if (reason === undefined || !(RELAY_REASONS as readonly string[]).includes(reason)) {
    return { ...base, kind: 'malformed', reason: MALFORMED, detail: `a relay dead letter with reason ${JSON.stringify(letter.reason)}` };
  }
  let fromEnvelope: ReturnType<typeof envelopeFields> = {};
  try {
    fromEnvelope = envelopeFields(deadLetterEnvelope(letter as never));
  } catch {
    // A gzip'd envelope that does not decompress: the letter's own fields still say what it was.
  }
  const type = stringOf(letter.eventType) ?? fromEnvelope.type;
  const aggregateType = stringOf(letter.aggregateType) ?? fromEnvelope.aggregateType;
  const aggregateId = stringOf(letter.aggregateId) ?? fromEnvelope.aggregateId;
  return {
    ...base,
    kind: 'relay',
    reason,
    ...(stringOf(letter.detail) === undefined ? {} : { detail: letter.detail as string }),
    ...(type === undefined ? {} : { eventType: type }),
    ...(aggregateType === undefined ? {} : { aggregateType }),
    ...(aggregateId === undefined ? {} : { aggregateId }),
    ...(fromEnvelope.time === undefined ? {} : { time: fromEnvelope.time, timeSource: 'envelope' as const }),
  };
}

type Base = Pick<DeadLetterInfo, 'time' | 'timeSource' | 'receiveCount'>;

/**
 * Classifies a dead-letter queue's message by its shape: a relay dead letter (`kind`
 * `outbox-relay-dead-letter`) by the relay's reason; an outbox envelope, raw or in an SNS
 * notification, as a subscriber's ({@link MAX_RECEIVE_COUNT_EXCEEDED}); anything else as
 * {@link MALFORMED}, with the consumer helper's own rejection of it as the detail. Never throws.
 *
 * @example
 * ```ts
 * const { reason, eventType, aggregateType } = describeDeadLetter(message);
 * ```
 */
export function describeDeadLetter(message: Message): DeadLetterInfo {
  const sent = numberOf(message.Attributes?.SentTimestamp);
  const receiveCount = numberOf(message.Attributes?.ApproximateReceiveCount);
  const base: Base = {
    timeSource: 'sent',
    ...(sent === undefined ? {} : { time: sent }),
    ...(receiveCount === undefined ? {} : { receiveCount }),
  };
  const body = message.Body ?? '';
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    value = undefined;
  }
  if (isRelayDeadLetter(value)) return relayInfo(value as unknown as Record<string, unknown>, base);
  const parsed = parseMessage(body);
  if (parsed.status === 'rejected') {
    return { ...base, kind: 'malformed', reason: MALFORMED, detail: `${parsed.error.code}: ${parsed.error.message}` };
  }
  const { envelope } = parsed;
  // A `time` that is no RFC 3339 date-time says nothing of when the event was committed: the
  // letter is timed by when it was sent, and says so, rather than by a year-5 or rolled-over date.
  const timeOf = (text: string): Pick<DeadLetterEvent, 'time' | 'timeSource'> => {
    const time = parseEventTime(text);
    if (time !== undefined) return { time, timeSource: 'envelope' };
    return base.time === undefined ? { timeSource: 'sent' } : { time: base.time, timeSource: 'sent' };
  };
  return {
    ...base,
    kind: 'subscriber',
    reason: MAX_RECEIVE_COUNT_EXCEEDED,
    eventType: envelope.type,
    aggregateType: envelope.aggregatetype,
    aggregateId: envelope.subject,
    ...timeOf(envelope.time),
    ...(parsed.batch ? { batch: parsed.envelopes.map((e) => ({ eventType: e.type, ...timeOf(e.time) })) } : {}),
  };
}
