import { TABLE } from './table.js';

/** Aggregate types become part of keys (`OUTBOX#<type>#<id>`), so `#` and spaces are excluded. */
export const AGGREGATE_TYPE_PATTERN = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;

/**
 * The outbox slot: one item per aggregate, overwritten by every transaction that emits events
 * for that aggregate. Each commit yields exactly one stream record holding exactly that
 * commit's events, so the per-item order of DynamoDB Streams orders the commits.
 *
 * Item shape (DocumentClient values):
 * ```
 * pk            OUTBOX#<aggregateType>#<aggregateId>
 * sk            OUTBOX
 * kind          "outbox-slot"
 * aggregateType, aggregateId, source
 * seq           per-aggregate counter after this commit
 * createdAt     when the slot was created (kept across commits; restarts after a TTL removal)
 * events        [{ id, type, time, data (JSON text), traceparent?, tracestate?, dataschema? }] – this commit's events, in order
 * expiresAt     epoch seconds; TTL removes the slot after a quiet retention period
 * ```
 */
export const SLOT_PREFIX = 'OUTBOX#';
export const SLOT_SORT_KEY = 'OUTBOX';
export const SLOT_KIND = 'outbox-slot';

/** One event as stored in a slot. `data` is the caller's value as JSON text, kept byte-exact. */
export interface SlotEvent {
  readonly id: string;
  readonly type: string;
  readonly time: string;
  readonly data: string;
  readonly traceparent?: string;
  /** W3C trace state that goes with `traceparent`. */
  readonly tracestate?: string;
  /** The declared schema version the data was checked against (the config's `eventTypes`), published as the envelope's `dataschema`. */
  readonly dataschema?: string;
}

/** An outbox slot as read back (from a stream image or the table). */
export interface OutboxSlot {
  readonly pk: string;
  readonly sk: string;
  readonly kind: typeof SLOT_KIND;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly source: string;
  readonly seq: number;
  readonly createdAt: string;
  readonly events: readonly SlotEvent[];
  readonly expiresAt: number;
}

/**
 * The aggregate an event belongs to: its type (which the config routes to a topic, and which is
 * the envelope's `aggregatetype`) and its id (the envelope's `subject`). Its events share one
 * outbox slot and one gapless sequence.
 */
export interface AggregateRef {
  /** The aggregate type, as {@link AGGREGATE_TYPE_PATTERN} allows, e.g. `order`. */
  readonly type: string;
  /** The aggregate's id, e.g. `o-123`. */
  readonly id: string;
}

export const slotKey = (aggregate: AggregateRef) => ({
  [TABLE.partitionKey]: `${SLOT_PREFIX}${aggregate.type}#${aggregate.id}`,
  [TABLE.sortKey]: SLOT_SORT_KEY,
});

/** The per-aggregate sequence of the slot's event at `index`: `seq - n + 1 + index`. */
export const sequenceOf = (slot: Pick<OutboxSlot, 'seq' | 'events'>, index: number): number => slot.seq - slot.events.length + 1 + index;

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Why a value is not a well-formed outbox slot, or `undefined` when it is. */
export function slotProblem(item: Record<string, unknown>): string | undefined {
  const pk = item[TABLE.partitionKey];
  if (typeof pk !== 'string' || !pk.startsWith(SLOT_PREFIX)) return `${TABLE.partitionKey} does not start with ${SLOT_PREFIX}`;
  if (item.kind !== SLOT_KIND) return `kind is ${JSON.stringify(item.kind)}, expected "${SLOT_KIND}"`;
  if (typeof item.aggregateType !== 'string' || !AGGREGATE_TYPE_PATTERN.test(item.aggregateType))
    return 'aggregateType is missing or malformed';
  if (typeof item.aggregateId !== 'string' || item.aggregateId === '') return 'aggregateId is missing';
  if (pk !== `${SLOT_PREFIX}${item.aggregateType}#${item.aggregateId}`)
    return `${TABLE.partitionKey} does not match aggregateType and aggregateId`;
  if (typeof item.source !== 'string' || item.source === '') return 'source is missing';
  if (typeof item.seq !== 'number' || !Number.isInteger(item.seq) || item.seq < 1) return 'seq is not a positive whole number';
  if (typeof item.createdAt !== 'string') return 'createdAt is missing';
  if (!Array.isArray(item.events) || item.events.length === 0) return 'events is not a non-empty list';
  if (item.events.length > item.seq) return 'events outnumber seq';
  for (const [i, event] of item.events.entries()) {
    if (typeof event !== 'object' || event === null) return `events[${i}] is not a map`;
    const e = event as Record<string, unknown>;
    for (const field of ['id', 'type', 'time', 'data'] as const) {
      if (typeof e[field] !== 'string' || e[field] === '') return `events[${i}].${field} is missing`;
    }
    if (e.traceparent !== undefined && typeof e.traceparent !== 'string') return `events[${i}].traceparent is not a string`;
    if (e.tracestate !== undefined && typeof e.tracestate !== 'string') return `events[${i}].tracestate is not a string`;
    if (e.dataschema !== undefined && typeof e.dataschema !== 'string') return `events[${i}].dataschema is not a string`;
    // The envelope splices data in as it is: anything but one JSON value would break the message,
    // or add fields to it that overrule the envelope's own (its id, its subject).
    if (!isJsonText(e.data as string)) return `events[${i}].data is not one JSON value`;
  }
  return undefined;
}

/** Narrows an unmarshalled item to an {@link OutboxSlot}. */
export const isOutboxSlot = (item: Record<string, unknown>): item is Record<string, unknown> & OutboxSlot =>
  slotProblem(item) === undefined;
