import { escapeNoncharacters } from './json-data.js';
import type { OutboxSlot, SlotEvent } from './slot.js';
import { sequenceOf } from './slot.js';
import { tracestateToPass } from './tracing/trace-context.js';

/** SNS and SQS message size limit (bytes), message body plus attributes. */
export const MAX_MESSAGE_BYTES = 262_144;

/**
 * The CloudEvents 1.0 structured-mode envelope every outbox event is published as.
 * `aggregatesequence` is the event's position in its aggregate (1, 2, 3, … with no gap), an
 * extension of this package's own: the spec's `sequence` extension is a String that orders the
 * events of a whole `source`, an order this system does not have (DynamoDB Streams orders each
 * item apart), so envelopes carry no `sequence`. `sequenceepoch` is when the aggregate's outbox
 * slot was created, so (`sequenceepoch`, `aggregatesequence`) increases strictly per aggregate
 * even after a quiet slot was removed by TTL and its counter started again.
 *
 * @example
 * ```ts
 * const handle = (event: OutboxEnvelope<{ total: number }>) =>
 *   console.log(event.subject, event.aggregatesequence, event.data.total);
 * ```
 */
export interface OutboxEnvelope<TData = unknown> {
  readonly specversion: '1.0';
  readonly id: string;
  readonly source: string;
  readonly type: string;
  /** The aggregate id. */
  readonly subject: string;
  readonly time: string;
  readonly datacontenttype: 'application/json';
  readonly aggregatetype: string;
  /**
   * The event's position in its aggregate, per slot epoch: a CloudEvents Integer (a JSON number),
   * within the spec's range up to 2147483647.
   */
  readonly aggregatesequence: number;
  readonly sequenceepoch: string;
  /** W3C trace context of the write: the caller's own, else the one active when it wrote (docs/write-helper.md, "Tracing"). */
  readonly traceparent?: string;
  /** W3C trace state that goes with `traceparent`, when there is one. */
  readonly tracestate?: string;
  /**
   * The declared (type, version) the data was checked against when written, as a URI: the
   * config's `source` with the fragment `#<type>:<version>`. Only events of a type the config's
   * `eventTypes` declares carry it.
   */
  readonly dataschema?: string;
  readonly data: TData;
}

/**
 * An envelope as relays published it before `aggregatesequence`: the position in `sequence`, a
 * JSON number. Such envelopes may still wait in queues, DLQs and dead letters after an upgrade;
 * the consumer helper reads them, and {@link normalizeEnvelope} turns one into the current form.
 */
export type LegacyOutboxEnvelope<TData = unknown> = Omit<OutboxEnvelope<TData>, 'aggregatesequence'> & { readonly sequence: number };

/** The largest CloudEvents `Integer` (a signed 32-bit number); a slot epoch's events stay within it up to this count. */
export const CLOUDEVENTS_INTEGER_MAX = 2_147_483_647;

/** Where an envelope of either form keeps the event's position in its aggregate. */
export type AggregateSequenceFields =
  | { readonly aggregatesequence: number }
  | { readonly sequence: number; readonly aggregatesequence?: undefined };

/**
 * The event's position in its aggregate, from an envelope of either form: `aggregatesequence`,
 * or `sequence` in an envelope published before it.
 *
 * @example
 * ```ts
 * aggregateSequenceOf(JSON.parse(body)); // 4, whether the body says "aggregatesequence":4 or "sequence":4
 * ```
 */
export const aggregateSequenceOf = (envelope: AggregateSequenceFields): number =>
  envelope.aggregatesequence === undefined ? (envelope as { readonly sequence: number }).sequence : envelope.aggregatesequence;

/**
 * An envelope in the current form: one published before `aggregatesequence` has its numeric
 * `sequence` moved there, so handlers see one shape; a current one is returned as it is.
 *
 * @example
 * ```ts
 * normalizeEnvelope(legacy).aggregatesequence; // legacy.sequence
 * ```
 */
export function normalizeEnvelope<TData>(envelope: OutboxEnvelope<TData> | LegacyOutboxEnvelope<TData>): OutboxEnvelope<TData> {
  if ('aggregatesequence' in envelope && envelope.aggregatesequence !== undefined) return envelope;
  const { sequence, ...rest } = envelope as LegacyOutboxEnvelope<TData>;
  return { ...rest, aggregatesequence: sequence };
}

/** Everything of an envelope that comes from the slot rather than the event. */
export interface EnvelopeContext {
  readonly source: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly sequenceEpoch: string;
}

/**
 * The envelope of one event as JSON text. The event's `data` is already JSON text and is
 * spliced in as is, so the published bytes are exactly what the writer serialised.
 */
export function envelopeJson(context: EnvelopeContext, event: SlotEvent, sequence: number): string {
  // Written field by field (the relay writes one for every event it publishes); the same text as
  // JSON.stringify of the envelope object with these fields, in this order, then data.
  const trace =
    (event.traceparent === undefined ? '' : `,"traceparent":${JSON.stringify(event.traceparent)}`) +
    (event.tracestate === undefined ? '' : `,"tracestate":${JSON.stringify(event.tracestate)}`);
  const schema = event.dataschema === undefined ? '' : `,"dataschema":${JSON.stringify(event.dataschema)}`;
  // SQS refuses U+FFFE and U+FFFF (in the data or the aggregate id): escaped, the envelope reaches a queue.
  return escapeNoncharacters(
    `{"specversion":"1.0","id":${JSON.stringify(event.id)},"source":${JSON.stringify(context.source)},` +
      `"type":${JSON.stringify(event.type)},"subject":${JSON.stringify(context.aggregateId)},"time":${JSON.stringify(event.time)},` +
      `"datacontenttype":"application/json"${schema},"aggregatetype":${JSON.stringify(context.aggregateType)},` +
      `"aggregatesequence":${JSON.stringify(sequence)},"sequenceepoch":${JSON.stringify(context.sequenceEpoch)}${trace},"data":${event.data}}`,
  );
}

/** One event of a slot, ready to publish: its envelope text and its routing facts. */
export interface SlotMessage {
  readonly id: string;
  readonly type: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly sequence: number;
  readonly body: string;
  /** The write's trace context, also in the body: published as message attributes too. */
  readonly traceparent?: string;
  readonly tracestate?: string;
}

/** The slot's events, in order, as publishable messages with their per-aggregate sequences. */
export function slotMessages(slot: OutboxSlot): SlotMessage[] {
  const context: EnvelopeContext = {
    source: slot.source,
    aggregateType: slot.aggregateType,
    aggregateId: slot.aggregateId,
    sequenceEpoch: slot.createdAt,
  };
  return slot.events.map((stored, i) => {
    const sequence = sequenceOf(slot, i);
    // A trace state W3C says not to pass on (one without members, as an earlier write helper kept
    // it, or one another writer stored malformed) is left out of the envelope and the attributes.
    const tracestate = stored.tracestate === undefined ? undefined : tracestateToPass(stored.tracestate);
    const event = tracestate === stored.tracestate ? stored : { ...stored, tracestate };
    return {
      id: event.id,
      type: event.type,
      aggregateType: slot.aggregateType,
      aggregateId: slot.aggregateId,
      sequence,
      body: envelopeJson(context, event, sequence),
      ...(event.traceparent === undefined ? {} : { traceparent: event.traceparent }),
      ...(event.tracestate === undefined ? {} : { tracestate: event.tracestate }),
    };
  });
}

/**
 * The message attributes that carry an event's trace context, named as the W3C propagator of
 * OpenTelemetry's AWS SDK instrumentation names them, so its SQS receive side finds them too.
 */
export const TRACEPARENT_ATTRIBUTE = 'traceparent';
export const TRACESTATE_ATTRIBUTE = 'tracestate';

/** The trace context an event's message carries, as its slot event holds it. */
export interface MessageTrace {
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
}

type StringAttribute = { readonly DataType: 'String'; readonly StringValue: string };

/**
 * SNS message attributes of an event; subscriptions filter on `type` and `aggregatetype`. With
 * `trace`, its `traceparent` and `tracestate` too (an empty one is left out: SNS refuses an empty
 * value). Raw delivery keeps at most 10; an event has at most 4.
 */
export function messageAttributes(type: string, aggregateType: string, trace?: MessageTrace) {
  const attributes: { type: StringAttribute; aggregatetype: StringAttribute; [name: string]: StringAttribute } = {
    type: { DataType: 'String', StringValue: type },
    aggregatetype: { DataType: 'String', StringValue: aggregateType },
  };
  if (trace?.traceparent) attributes[TRACEPARENT_ATTRIBUTE] = { DataType: 'String', StringValue: trace.traceparent };
  if (trace?.traceparent && trace.tracestate) attributes[TRACESTATE_ATTRIBUTE] = { DataType: 'String', StringValue: trace.tracestate };
  return attributes;
}

/** Bytes SNS counts for the trace attributes {@link messageAttributes} adds with `trace`. */
export function traceAttributeBytes(trace: MessageTrace | undefined): number {
  if (!trace?.traceparent) return 0;
  const parent = TRACEPARENT_NAME_BYTES + Buffer.byteLength(trace.traceparent);
  return trace.tracestate ? parent + TRACESTATE_NAME_BYTES + Buffer.byteLength(trace.tracestate) : parent;
}

// An attribute's name and data type are the same for every message: counted once.
const STRING_BYTES = Buffer.byteLength('String');
const TRACEPARENT_NAME_BYTES = Buffer.byteLength(TRACEPARENT_ATTRIBUTE) + STRING_BYTES;
const TRACESTATE_NAME_BYTES = Buffer.byteLength(TRACESTATE_ATTRIBUTE) + STRING_BYTES;
const EVENT_ATTRIBUTE_NAME_BYTES = Buffer.byteLength('type') + Buffer.byteLength('aggregatetype') + 2 * STRING_BYTES;

/**
 * The content type of a message that carries several events of one aggregate: a CloudEvents
 * JSON batch (a JSON array of structured-mode envelopes, in sequence order). The relay marks such
 * a message with the message attribute `content-type`; a message without it
 * carries one envelope.
 *
 * @example
 * ```ts
 * const events = message.MessageAttributes?.['content-type']?.StringValue === BATCH_CONTENT_TYPE
 *   ? (JSON.parse(message.Body!) as OutboxEnvelope[])
 *   : [JSON.parse(message.Body!) as OutboxEnvelope];
 * ```
 */
export const BATCH_CONTENT_TYPE = 'application/cloudevents-batch+json';

/** The message attribute that marks a batch message: `content-type` = {@link BATCH_CONTENT_TYPE}. */
export const CONTENT_TYPE_ATTRIBUTE = 'content-type';

/**
 * The message attribute that marks a message sent by `replay` from the archive rather than
 * published by the relay: its value is the replay's id. The body is the envelope as it was
 * published (same id, sequence and time); the consumer helper dedups it in its inbox like any
 * other, and its sequence tracking expects a replay's gaps and late positions.
 *
 * @example
 * ```ts
 * // A poller of your own: ask SQS for the marker, so the consumer helper can tell a replayed message.
 * new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ['type', 'aggregatetype', 'content-type', REPLAY_ATTRIBUTE] });
 * ```
 */
export const REPLAY_ATTRIBUTE = 'outbox-replay';

/**
 * The body of a batch message: the envelopes' JSON texts, as published one by one, in an array.
 *
 * @example
 * ```ts
 * const events = JSON.parse(batchBody(messages.map((m) => m.body))) as OutboxEnvelope[];
 * ```
 */
export const batchBody = (bodies: readonly string[]): string => `[${bodies.join(',')}]`;

/** SNS message attributes of a batch message: its events' (all alike) and the batch's content type. */
export function batchMessageAttributes(type: string, aggregateType: string) {
  return {
    ...messageAttributes(type, aggregateType),
    [CONTENT_TYPE_ATTRIBUTE]: { DataType: 'String', StringValue: BATCH_CONTENT_TYPE },
  } as const;
}

/** Bytes of the `content-type` attribute SNS counts for a batch message. */
export const BATCH_ATTRIBUTE_BYTES = Buffer.byteLength(CONTENT_TYPE_ATTRIBUTE) + STRING_BYTES + Buffer.byteLength(BATCH_CONTENT_TYPE);

/**
 * Bytes SNS counts against {@link MAX_MESSAGE_BYTES}: the body plus each attribute's name, type
 * and value, the trace attributes included when `trace` is given.
 */
export function messageSize(body: string, type: string, aggregateType: string, trace?: MessageTrace): number {
  const attributes = EVENT_ATTRIBUTE_NAME_BYTES + Buffer.byteLength(type) + Buffer.byteLength(aggregateType);
  return Buffer.byteLength(body) + attributes + traceAttributeBytes(trace);
}

/**
 * Parses an envelope this relay published back, as it is (tests read the published shape with it);
 * {@link normalizeEnvelope} reads one of an earlier relay.
 */
export const parseEnvelope = <TData = unknown>(text: string): OutboxEnvelope<TData> => JSON.parse(text) as OutboxEnvelope<TData>;
