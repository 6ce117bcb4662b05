import { escapeNoncharacters } from './json-data.js';
import type { OutboxSlot, SlotEvent } from './slot.js';
import { sequenceOf } from './slot.js';

/** SNS and SQS message size limit (bytes), message body plus attributes. */
export const MAX_MESSAGE_BYTES = 262_144;

/**
 * The CloudEvents 1.0 structured-mode envelope every outbox event is published as.
 * `sequence` is the per-aggregate sequence; `sequenceepoch` is when the aggregate's outbox
 * slot was created, so (`sequenceepoch`, `sequence`) increases strictly per aggregate even
 * after a quiet slot was removed by TTL and its counter started again.
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
  readonly sequence: number;
  readonly sequenceepoch: string;
  /** W3C trace context of the write, when the caller passed one. */
  readonly traceparent?: string;
  readonly data: TData;
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
  const trace = event.traceparent === undefined ? '' : `,"traceparent":${JSON.stringify(event.traceparent)}`;
  // SQS refuses U+FFFE and U+FFFF (in the data or the aggregate id): escaped, the envelope reaches a queue.
  return escapeNoncharacters(
    `{"specversion":"1.0","id":${JSON.stringify(event.id)},"source":${JSON.stringify(context.source)},` +
      `"type":${JSON.stringify(event.type)},"subject":${JSON.stringify(context.aggregateId)},"time":${JSON.stringify(event.time)},` +
      `"datacontenttype":"application/json","aggregatetype":${JSON.stringify(context.aggregateType)},` +
      `"sequence":${JSON.stringify(sequence)},"sequenceepoch":${JSON.stringify(context.sequenceEpoch)}${trace},"data":${event.data}}`,
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
}

/** The slot's events, in order, as publishable messages with their per-aggregate sequences. */
export function slotMessages(slot: OutboxSlot): SlotMessage[] {
  const context: EnvelopeContext = {
    source: slot.source,
    aggregateType: slot.aggregateType,
    aggregateId: slot.aggregateId,
    sequenceEpoch: slot.createdAt,
  };
  return slot.events.map((event, i) => {
    const sequence = sequenceOf(slot, i);
    return {
      id: event.id,
      type: event.type,
      aggregateType: slot.aggregateType,
      aggregateId: slot.aggregateId,
      sequence,
      body: envelopeJson(context, event, sequence),
    };
  });
}

/** SNS message attributes of an event; subscriptions filter on them. Raw delivery keeps at most 10. */
export function messageAttributes(type: string, aggregateType: string) {
  return {
    type: { DataType: 'String', StringValue: type },
    aggregatetype: { DataType: 'String', StringValue: aggregateType },
  } as const;
}

/** Bytes SNS counts against {@link MAX_MESSAGE_BYTES}: the body plus each attribute's name, type and value. */
export function messageSize(body: string, type: string, aggregateType: string): number {
  const attributes =
    Buffer.byteLength('type') +
    Buffer.byteLength('String') +
    Buffer.byteLength(type) +
    Buffer.byteLength('aggregatetype') +
    Buffer.byteLength('String') +
    Buffer.byteLength(aggregateType);
  return Buffer.byteLength(body) + attributes;
}

/** Parses a published envelope back (consumers, tests, redrive). */
export const parseEnvelope = <TData = unknown>(text: string): OutboxEnvelope<TData> => JSON.parse(text) as OutboxEnvelope<TData>;
