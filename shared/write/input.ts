import { AGGREGATE_TYPE_PATTERN, type OutboxConfig, topicFor } from '../config.js';
import { envelopeJson, MAX_MESSAGE_BYTES, messageSize } from '../envelope.js';
import { WriteValidationError } from '../errors.js';
import { dataschemaOf, EVENT_TYPE_ALLOWED, eventTypeProblem } from '../event-types.js';
import { jsonProblem } from '../json-data.js';
import { showValue } from '../show-value.js';
import { SLOT_PREFIX, type SlotEvent } from '../slot.js';
import { TABLE } from '../table.js';
import {
  forwardedTraceContext,
  MAX_TRACESTATE_LENGTH,
  TRACEPARENT_RULES,
  type TraceContext,
  traceparentProblem,
  tracestateProblem,
} from '../tracing/trace-context.js';
import { objectHasUnknownKeys, unknownKeys } from '../unknown-keys.js';
import { checkEventVersion, writtenVersion } from './catalog-check.js';
import { checkOutboxKey, otherTableItemId, shownKey } from './keys.js';
import { checkDataNesting } from './nesting.js';
import { checkOperationFields } from './operation-fields.js';
import {
  type EventInput,
  IDEMPOTENCY_PREFIX,
  type SlotPlan,
  type TransactOperation,
  type WriteInput,
  type WriteOperation,
} from './types.js';

export type { EventInput, SlotPlan, TransactOperation, WriteInput, WriteOperation } from './types.js';
export { MAX_ITEM_BYTES, MAX_REQUEST_BYTES, MAX_TRANSACTION_ACTIONS } from './types.js';

const MAX_AGGREGATE_ID_BYTES = 1024;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,36}$/;
/** The fields of a write and of an event, as {@link WriteInput} and {@link EventInput} name them. */
export const WRITE_FIELDS = ['operations', 'events', 'idempotencyKey'] as const;
const EVENT_FIELDS = ['aggregate', 'type', 'data', 'traceparent', 'tracestate', 'version'] as const;
/** Envelopes are sized with the widest sequence a slot can reach, so publishing never exceeds the limit. */
const WIDEST_SEQUENCE = Number.MAX_SAFE_INTEGER;

/** The kinds of action a `TransactWriteItems` item holds, exactly one each. */
export const KINDS = ['Put', 'Update', 'Delete', 'ConditionCheck'] as const;
export type OperationKind = (typeof KINDS)[number];

export function operationKind(operation: WriteOperation, index: number): OperationKind {
  const keys = typeof operation === 'object' && operation !== null ? Object.keys(operation) : [];
  const kind = keys[0];
  if (keys.length !== 1 || !KINDS.includes(kind as OperationKind)) {
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `operations[${index}] has ${keys.length === 0 ? 'no action' : `keys ${keys.join(', ')}`}; allowed: exactly one of ${KINDS.join(', ')}`,
    );
  }
  return kind as OperationKind;
}

/** The operation with its `TableName` filled in, and the identity of the item it targets. */
export function resolveOperation(
  operation: WriteOperation,
  index: number,
  tableName: string,
): { kind: OperationKind; operation: TransactOperation; itemId: string | undefined } {
  const kind = operationKind(operation, index);
  const body = (operation as unknown as Record<OperationKind, Record<string, unknown>>)[kind];
  if (typeof body !== 'object' || body === null) {
    throw new WriteValidationError('INVALID_OPERATION', `operations[${index}].${kind} is ${showValue(body)}; allowed: an object`);
  }
  if (body.TableName !== undefined && (typeof body.TableName !== 'string' || body.TableName === '')) {
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `operations[${index}].${kind}.TableName is ${showValue(body.TableName)}; allowed: a table name, or leave it out for the outbox table`,
    );
  }
  const table = (body.TableName as string | undefined) ?? tableName;
  if (table !== tableName && bareTableName(table) === bareTableName(tableName)) {
    // Another spelling of the outbox table would escape the slot guard and duplicate detection below.
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `operations[${index}].${kind}.TableName is ${JSON.stringify(table)}, the outbox table spelt another way; allowed: ${JSON.stringify(tableName)} exactly, or leave TableName out`,
    );
  }
  const keyField = kind === 'Put' ? 'Item' : 'Key';
  const keySource = body[keyField];
  if (typeof keySource !== 'object' || keySource === null) {
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `operations[${index}].${kind} has no ${keyField}; allowed: an object of attribute values`,
    );
  }
  checkOperationFields(kind, body, index);
  let itemId: string | undefined;
  if (table === tableName) {
    const key = keySource as Record<string, unknown>;
    for (const name of [TABLE.partitionKey, TABLE.sortKey]) {
      const value = key[name];
      if (typeof value !== 'string' || value === '') {
        throw new WriteValidationError(
          'INVALID_OPERATION',
          `operations[${index}].${kind}.${keyField}.${name} is ${name in key ? shownKey(value) : 'missing'}; allowed: a non-empty string (the outbox table's keys are ${TABLE.partitionKey} and ${TABLE.sortKey}, both strings)`,
        );
      }
    }
    const extra = kind === 'Put' ? [] : Object.keys(key).filter((name) => name !== TABLE.partitionKey && name !== TABLE.sortKey);
    if (extra.length > 0) {
      throw new WriteValidationError(
        'INVALID_OPERATION',
        `operations[${index}].${kind}.Key has ${extra.map((name) => JSON.stringify(name)).join(', ')} besides the key attributes; allowed: exactly ${TABLE.partitionKey} and ${TABLE.sortKey} (the outbox table's key) — put conditions on other attributes in ConditionExpression`,
      );
    }
    const pk = key[TABLE.partitionKey] as string;
    const sk = key[TABLE.sortKey] as string;
    checkOutboxKey(pk, sk, `operations[${index}].${kind}.${keyField}`);
    const reserved = [SLOT_PREFIX, IDEMPOTENCY_PREFIX].find((prefix) => pk.startsWith(prefix));
    if (reserved !== undefined) {
      throw new WriteValidationError(
        'INVALID_OPERATION',
        `operations[${index}].${kind} targets ${JSON.stringify(pk)}; allowed: keys that do not start with "${SLOT_PREFIX}" or "${IDEMPOTENCY_PREFIX}" (outbox slots are written only through events, idempotency records only through idempotencyKey)`,
      );
    }
    itemId = `${table}\u0000${JSON.stringify([pk, sk])}`;
  } else if (kind !== 'Put') {
    itemId = otherTableItemId(table, keySource as Record<string, unknown>, `operations[${index}].${kind}.Key`);
  }
  return { kind, operation: { [kind]: { ...body, TableName: table } } as TransactOperation, itemId };
}

/** The table name in a table ARN (`arn:aws:dynamodb:<region>:<account>:table/<name>`), else the name as given. */
function bareTableName(table: string): string {
  return /^arn:[^:]+:dynamodb:[^:]*:[^:]*:table\/([^/]+)$/.exec(table)?.[1] ?? table;
}

/**
 * Refuses keys the helper does not read: a misspelt one (`event` for `events`, `idempotencykey`)
 * would otherwise be dropped in silence, and with it the events or the idempotency it meant.
 */
export function rejectUnknownFields(value: object, path: string, allowed: readonly string[]): void {
  const unknown = unknownKeys(value, allowed);
  if (unknown.length > 0) {
    throw new WriteValidationError('UNKNOWN_FIELD', objectHasUnknownKeys(path, unknown, allowed));
  }
}

function validateEvent(event: EventInput, index: number, config: OutboxConfig): void {
  const path = `events[${index}]`;
  if (typeof event !== 'object' || event === null) {
    throw new WriteValidationError('MISSING_AGGREGATE', `${path} is ${showValue(event)}; allowed: { aggregate, type, data }`);
  }
  rejectUnknownFields(event, path, EVENT_FIELDS);
  const { aggregate, type } = event;
  if (typeof aggregate !== 'object' || aggregate === null || typeof aggregate.type !== 'string' || typeof aggregate.id !== 'string') {
    // The field at fault, shown alone: a bigint beside it would make the whole aggregate unshowable as JSON.
    const field = typeof aggregate !== 'object' || aggregate === null ? undefined : typeof aggregate.type !== 'string' ? 'type' : 'id';
    const shown = field === undefined ? showValue(aggregate) : field in aggregate ? showValue(aggregate[field]) : 'missing';
    throw new WriteValidationError(
      'MISSING_AGGREGATE',
      `${path}.aggregate${field === undefined ? '' : `.${field}`} is ${shown}; allowed: { type: string, id: string }`,
    );
  }
  rejectUnknownFields(aggregate, `${path}.aggregate`, ['type', 'id']);
  if (!aggregate.id.isWellFormed()) {
    // A lone surrogate has no UTF-8 form: DynamoDB and the FIFO group id would merge it with other ids.
    throw new WriteValidationError(
      'MISSING_AGGREGATE',
      `${path}.aggregate.id is ${JSON.stringify(aggregate.id.slice(0, 40))}, which is not well-formed Unicode (it holds a lone surrogate); allowed: 1–${MAX_AGGREGATE_ID_BYTES} bytes of well-formed Unicode text`,
    );
  }
  if (aggregate.id === '' || Buffer.byteLength(aggregate.id) > MAX_AGGREGATE_ID_BYTES) {
    throw new WriteValidationError(
      'MISSING_AGGREGATE',
      `${path}.aggregate.id is ${JSON.stringify(aggregate.id.slice(0, 40))} (${Buffer.byteLength(aggregate.id)} bytes); allowed: 1–${MAX_AGGREGATE_ID_BYTES} bytes`,
    );
  }
  if (!AGGREGATE_TYPE_PATTERN.test(aggregate.type) || topicFor(config, aggregate.type) === undefined) {
    throw new WriteValidationError(
      'UNROUTED_AGGREGATE_TYPE',
      `${path}.aggregate.type ${JSON.stringify(aggregate.type)} has no route; allowed: ${Object.keys(config.routes)
        .map((t) => JSON.stringify(t))
        .join(', ')}`,
    );
  }
  if (typeof type !== 'string' || eventTypeProblem(type) !== undefined) {
    // The type becomes an SNS message attribute: text SNS cannot take could never be published.
    throw new WriteValidationError('MISSING_EVENT_TYPE', `${path}.type is ${showValue(type)}; allowed: ${EVENT_TYPE_ALLOWED}`);
  }
  checkEventVersion(event, index, config);
  if ('data' in event) checkDataNesting(event.data, `${path}.data`);
  const problem = 'data' in event ? jsonProblem(event.data, `${path}.data`) : `${path}.data is missing (use null for no data)`;
  if (problem !== undefined) {
    throw new WriteValidationError(
      'DATA_NOT_SERIALIZABLE',
      `${problem}; allowed: JSON data (plain objects, arrays, strings, finite numbers, booleans, null)`,
    );
  }
  const traceparentWrong = event.traceparent === undefined ? undefined : traceparentProblem(event.traceparent);
  if (traceparentWrong !== undefined) {
    throw new WriteValidationError(
      'INVALID_TRACEPARENT',
      `${path}.traceparent is ${shownTraceparent(event.traceparent)} (${traceparentWrong}); allowed: ${TRACEPARENT_RULES}`,
    );
  }
  if (event.tracestate !== undefined) checkTracestate(event, path);
}

/** A refused `traceparent` as its message shows it: a long one cut, with its length. */
function shownTraceparent(traceparent: unknown): string {
  const long = typeof traceparent === 'string' && traceparent.length > 120;
  return long ? `${showValue(traceparent.slice(0, 120))}… (${traceparent.length} characters in all)` : showValue(traceparent);
}

/** A `tracestate` belongs to its `traceparent`: alone, or malformed, it is refused. */
function checkTracestate(event: EventInput, path: string): void {
  const { tracestate } = event;
  const problem =
    typeof tracestate !== 'string'
      ? 'it is not a string'
      : event.traceparent === undefined
        ? 'the event has no traceparent, and a tracestate only means something with the traceparent it came with'
        : tracestateProblem(tracestate);
  if (problem !== undefined) {
    throw new WriteValidationError(
      'INVALID_TRACESTATE',
      `${path}.tracestate is ${showValue(typeof tracestate === 'string' ? tracestate.slice(0, 80) : tracestate)} (${problem}); allowed: W3C tracestate given with the event's traceparent, up to ${MAX_TRACESTATE_LENGTH} characters of at most 32 comma-separated key=value members with distinct keys, e.g. "vendor=opaque-value"`,
    );
  }
}

/** The event's own trace context, else the caller's ambient one; the two are never mixed. */
function traceFields(event: EventInput, ambient: TraceContext | undefined): Partial<TraceContext> {
  if (event.traceparent !== undefined) return forwardedTraceContext(event.traceparent, event.tracestate);
  return ambient ?? {};
}

/**
 * Validates the events and groups them into one slot plan per aggregate (call order kept),
 * assigning ids, times, trace context (the event's own, else `ambient`) and, with a catalog, the
 * version each is written as, and checks each envelope against the SNS size limit.
 */
export function planSlots(
  events: readonly EventInput[],
  config: OutboxConfig,
  stamp: () => { id: string; time: string },
  ambient?: TraceContext,
): SlotPlan[] {
  const slots = new Map<string, SlotPlan>();
  const catalog = config.eventTypes !== undefined;
  // A plain loop, not forEach: a hole in the array is an undefined event, refused, never skipped.
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as EventInput;
    validateEvent(event, index, config);
    const pk = `${SLOT_PREFIX}${event.aggregate.type}#${event.aggregate.id}`;
    const { id, time } = stamp();
    const declared = catalog ? writtenVersion(config, event.type, event.version) : undefined;
    const stored: SlotEvent = {
      id,
      type: event.type,
      time,
      data: JSON.stringify(event.data),
      ...traceFields(event, ambient),
      ...(declared === undefined ? undefined : { dataschema: dataschemaOf(config.source, event.type, declared.version) }),
    };
    const body = envelopeJson(
      { source: config.source, aggregateType: event.aggregate.type, aggregateId: event.aggregate.id, sequenceEpoch: time },
      stored,
      WIDEST_SEQUENCE,
    );
    const size = messageSize(body, event.type, event.aggregate.type, stored);
    if (size > MAX_MESSAGE_BYTES) {
      throw new WriteValidationError(
        'ENVELOPE_TOO_LARGE',
        `events[${index}] makes an envelope of ${size} bytes; allowed: at most ${MAX_MESSAGE_BYTES} bytes (the SNS message limit) — store large payloads elsewhere and send a reference`,
      );
    }
    let slot = slots.get(pk);
    if (slot === undefined) {
      slot = { aggregate: { type: event.aggregate.type, id: event.aggregate.id }, pk, events: [], inputIndexes: [] };
      if (catalog) slot = { ...slot, versions: [] };
      slots.set(pk, slot);
    }
    slot.events.push(stored);
    slot.inputIndexes.push(index);
    slot.versions?.push(declared?.version);
  }
  return [...slots.values()];
}

export function validateIdempotencyKey(key: unknown): void {
  if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key))) {
    throw new WriteValidationError(
      'INVALID_IDEMPOTENCY_KEY',
      `idempotencyKey is ${showValue(key)}; allowed: 1–36 printable ASCII characters without spaces (DynamoDB ClientRequestToken), e.g. a UUID`,
    );
  }
}
