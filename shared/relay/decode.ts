import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToNative } from '@aws-sdk/util-dynamodb';
import type { OutboxConfig, TopicSettings } from '../config.js';
import { topicFor } from '../config.js';
import { type SlotMessage, slotMessages } from '../envelope.js';
import { type OutboxSlot, SLOT_KIND, SLOT_PREFIX, slotProblem } from '../slot.js';
import { TABLE } from '../table.js';
import type { StreamRecordInput } from './stream-record.js';

/** What one stream record decodes to. */
export type DecodedRecord =
  /** Not the relay's business: a business item, a TTL removal, or an aggregate type another path publishes. */
  | { readonly status: 'ignored'; readonly reason: string }
  /** Looks like an outbox slot (key prefix and kind) but is not a well-formed one. */
  | { readonly status: 'malformed'; readonly problem: string; readonly rawImage: unknown }
  /** The aggregate type has no route in the config. */
  | { readonly status: 'unrouted'; readonly aggregateType: string; readonly messages: readonly SlotMessage[] }
  | { readonly status: 'decoded'; readonly topic: TopicSettings; readonly messages: readonly SlotMessage[] };

export interface DecodeOptions {
  /** Aggregate types this relay leaves alone (the other publishing path takes them). */
  readonly ignoreAggregateTypes?: readonly string[];
  /** When given, the only aggregate types this relay publishes (the stream processor's share). */
  readonly onlyAggregateTypes?: readonly string[];
}

/**
 * The image as Lambda delivers it: binary values (`B`, `BS`) as base64 text. Read through the
 * SDK (the stream processor), they are bytes, which JSON would write as an object of one field
 * per byte: a dead letter five times the size of the item, too large for the relay DLQ.
 */
function asLambdaJson(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (Array.isArray(value)) return value.map(asLambdaJson);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, asLambdaJson(inner)]));
  }
  return value;
}

/** The attributes of a slot the relay reads; the others (the sort key, the TTL) it leaves alone. */
const SLOT_ATTRIBUTES = [TABLE.partitionKey, 'kind', 'aggregateType', 'aggregateId', 'source', 'seq', 'createdAt', 'events'] as const;

/**
 * An attribute value as `unmarshall` reads it. Strings, safe integers, lists and maps, which a
 * slot is made of, are read directly, as the relay reads every record it gets; the other types go to
 * `convertToNative`, which refuses what is not DynamoDB JSON.
 */
function nativeValue(value: AttributeValue): unknown {
  if (typeof value === 'object' && value !== null) {
    if (typeof value.S === 'string') return value.S;
    if (typeof value.N === 'string') {
      const number = Number(value.N);
      // Beyond the safe integers (and for what is not a number at all), convertToNative decides.
      if (Number.isSafeInteger(number)) return number;
    }
    if (Array.isArray(value.L)) return value.L.map(nativeValue);
    if (typeof value.M === 'object' && value.M !== null && !Array.isArray(value.M)) {
      const map: Record<string, unknown> = {};
      for (const key of Object.keys(value.M)) map[key] = nativeValue(value.M[key]!);
      return map;
    }
  }
  return convertToNative(value);
}

/** The slot's attributes of an image, read as `unmarshall` reads them; attributes that are not there stay out. */
function slotItem(image: Record<string, AttributeValue>): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const name of SLOT_ATTRIBUTES) {
    const value = image[name];
    if (value !== undefined) item[name] = nativeValue(value);
  }
  return item;
}

const stringAttribute = (image: Record<string, unknown>, name: string): string | undefined => {
  const value = image[name];
  if (typeof value !== 'object' || value === null) return undefined;
  const s = (value as { S?: unknown }).S;
  return typeof s === 'string' ? s : undefined;
};

/**
 * Decodes a stream record's `NewImage` into the CloudEvents messages of the commit it holds,
 * each with its per-aggregate sequence, and the topic they route to. Records that are not
 * outbox-slot inserts or modifies are ignored, so a looser filter upstream is harmless.
 *
 * @example
 * ```ts
 * const decoded = decodeStreamRecord(record, config);
 * if (decoded.status === 'decoded') for (const m of decoded.messages) console.log(m.sequence, m.body);
 * ```
 */
export function decodeStreamRecord(record: StreamRecordInput, config: OutboxConfig, options: DecodeOptions = {}): DecodedRecord {
  if (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') {
    return { status: 'ignored', reason: `event ${record.eventName ?? '(none)'} carries no new events` };
  }
  const image = record.dynamodb?.NewImage;
  if (image === undefined) return { status: 'ignored', reason: 'the record has no NewImage' };
  const pk = stringAttribute(image, TABLE.partitionKey);
  if (pk === undefined || !pk.startsWith(SLOT_PREFIX) || stringAttribute(image, 'kind') !== SLOT_KIND) {
    return { status: 'ignored', reason: 'not an outbox slot' };
  }
  // Selected before the slot is checked: a malformed slot goes to the DLQ of the path that would
  // publish its aggregate type, not of both. One without a readable type is the processor's when
  // there is one, as the relay's filter (anything-but on aggregateType) passes only slots that have it.
  const aggregateType = stringAttribute(image, 'aggregateType');
  if (aggregateType !== undefined && options.ignoreAggregateTypes?.includes(aggregateType)) {
    return { status: 'ignored', reason: `aggregate type ${aggregateType} is published by another path` };
  }
  if (aggregateType !== undefined && options.onlyAggregateTypes !== undefined && !options.onlyAggregateTypes.includes(aggregateType)) {
    return { status: 'ignored', reason: `aggregate type ${aggregateType} is published by another path` };
  }
  let item: Record<string, unknown>;
  try {
    item = slotItem(image as Record<string, AttributeValue>);
  } catch (error) {
    return { status: 'malformed', problem: `NewImage is not DynamoDB JSON (${(error as Error).message})`, rawImage: asLambdaJson(image) };
  }
  const problem = slotProblem(item);
  if (problem !== undefined) return { status: 'malformed', problem, rawImage: asLambdaJson(image) };
  const slot = item as unknown as OutboxSlot;
  const messages = slotMessages(slot);
  const topic = topicFor(config, slot.aggregateType);
  if (topic === undefined) return { status: 'unrouted', aggregateType: slot.aggregateType, messages };
  return { status: 'decoded', topic, messages };
}
