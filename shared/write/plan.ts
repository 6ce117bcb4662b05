/**
 * Turning a write's input into a plan: everything is validated, resolved and sized here, so a
 * write that cannot commit is refused before any request is sent.
 */

import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall, type marshallOptions, type unmarshallOptions } from '@aws-sdk/util-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import type { OutboxConfig } from '../config.js';
import { WriteValidationError } from '../errors.js';
import { itemSize } from '../item-size.js';
import { counted } from '../plural.js';
import { showValue } from '../show-value.js';
import type { TraceContext } from '../tracing/trace-context.js';
import { idempotencyPut, writeFingerprint } from './idempotency.js';
import {
  MAX_ITEM_BYTES,
  MAX_REQUEST_BYTES,
  MAX_TRANSACTION_ACTIONS,
  planSlots,
  rejectUnknownFields,
  resolveOperation,
  type SlotPlan,
  type TransactOperation,
  validateIdempotencyKey,
  WRITE_FIELDS,
  type WriteInput,
} from './input.js';
import { actionExtraBytes, marshalOperation, sendingOptions } from './operation-size.js';
import { writtenEvents } from './result.js';
import { SLOT_WRITE_EXTRA_BYTES, slotItemSize } from './slot-item.js';

/** A write ready to send: the caller's operations resolved, its events grouped per slot. */
export interface Plan {
  readonly operations: TransactOperation[];
  readonly kinds: string[];
  readonly slots: SlotPlan[];
  readonly now: Date;
  /** What a keyed write asked for ({@link writeFingerprint}); empty for a write without a key, which nothing compares. */
  readonly fingerprint: string;
  /** A random id of this call of a keyed write, kept in its idempotency record ({@link idempotencyPut}); empty without a key. */
  readonly writeId: string;
  /** {@link operations} as they are sent, attribute values marshalled once here with the client's options. */
  readonly wire: Record<string, unknown>[];
  /** The client's marshalling options, as the DocumentClient applies them to each top-level value. */
  readonly sending: marshallOptions;
  /** The client's unmarshalling options, for the items of the caller's operations that a failed condition returns. */
  readonly reading: unmarshallOptions;
}

/** What planning needs of the outbox it plans for. */
export interface PlanContext {
  readonly config: OutboxConfig;
  readonly tableName: string;
  // The client, not its options: they are read only once the input has passed the checks before.
  readonly client: DynamoDBDocumentClient;
  readonly idempotencyTtlSeconds: number;
  readonly clock: () => Date;
  /** The caller's trace context, for events without their own. @default none */
  readonly trace?: TraceContext;
}

/** Validates the input and plans its write; throws a {@link WriteValidationError} for input that cannot commit. */
export function planWrite(input: WriteInput, context: PlanContext): Plan {
  if (typeof input !== 'object' || input === null) {
    throw new WriteValidationError(
      'EMPTY_WRITE',
      `write() got ${showValue(input)}; allowed: { operations?, events?, idempotencyKey? } with operations or events or both`,
    );
  }
  rejectUnknownFields(input, 'write()', WRITE_FIELDS);
  // Only a field left out means none: events: null beside operations would commit them without the events meant.
  const operationsInput = input.operations === undefined ? [] : input.operations;
  const eventsInput = input.events === undefined ? [] : input.events;
  for (const [name, value] of [
    ['operations', operationsInput],
    ['events', eventsInput],
  ] as const) {
    if (!Array.isArray(value)) {
      const given = value === null ? 'null' : `of type ${typeof value}`;
      throw new WriteValidationError('EMPTY_WRITE', `write() got ${name} ${given}; allowed: an array, or leave it out`);
    }
  }
  if (operationsInput.length === 0 && eventsInput.length === 0) {
    throw new WriteValidationError('EMPTY_WRITE', 'write() got no operations and no events; allowed: at least one of either');
  }
  validateIdempotencyKey(input.idempotencyKey);
  const now = context.clock();
  // By its tag, not instanceof: a Date of another realm (a test runner's context) is one too.
  const isDate = Object.prototype.toString.call(now) === '[object Date]';
  if (!isDate || Number.isNaN(now.getTime())) {
    const returned = isDate ? 'an invalid Date' : showValue(now);
    throw new WriteValidationError(
      'INVALID_OPERATION',
      `options.clock returned ${returned}; allowed: a function returning a valid Date, e.g. () => new Date()`,
    );
  }
  const time = now.toISOString();
  const operations: TransactOperation[] = [];
  const kinds: string[] = [];
  const targets = new Map<string, number>();
  // A plain loop, not forEach: a hole in the array is an undefined operation, refused, never skipped.
  for (let index = 0; index < operationsInput.length; index++) {
    const resolved = resolveOperation(operationsInput[index] as (typeof operationsInput)[number], index, context.tableName);
    if (resolved.itemId !== undefined) {
      const earlier = targets.get(resolved.itemId);
      if (earlier !== undefined) {
        throw new WriteValidationError(
          'DUPLICATE_ITEM',
          `operations[${earlier}] and operations[${index}] target the same item; allowed: one action per item in a transaction`,
        );
      }
      targets.set(resolved.itemId, index);
    }
    operations.push(resolved.operation);
    kinds.push(resolved.kind);
  }
  const slots = planSlots(eventsInput, context.config, () => ({ id: uuidv7(), time }), context.trace);
  const actions = operations.length + slots.length + (input.idempotencyKey === undefined ? 0 : 1);
  if (actions > MAX_TRANSACTION_ACTIONS) {
    throw new WriteValidationError(
      'TOO_MANY_ACTIONS',
      `This write needs ${actions} actions (${counted(operations.length, 'operation')}, ${counted(slots.length, 'aggregate slot')}${input.idempotencyKey === undefined ? '' : ', 1 idempotency record'}); allowed: at most ${MAX_TRANSACTION_ACTIONS} per transaction`,
    );
  }
  // config?.: a test double of a client may have none; it is then sent as it is, with no options.
  const translateConfig = context.client.config?.translateConfig;
  const marshallOptions = translateConfig?.marshallOptions ?? {};
  let requestBytes = 0;
  const marshalled: Record<string, unknown>[] = [];
  const wire: Record<string, unknown>[] = [];
  operations.forEach((op, index) => {
    const sent = marshalOperation(op, index, marshallOptions);
    requestBytes += sent.size;
    marshalled.push(sent.marshalled);
    wire.push(sent.wire);
  });
  for (const slot of slots) {
    const size = slotItemSize(slot, now, context.config);
    if (size > MAX_ITEM_BYTES) {
      throw new WriteValidationError(
        'SLOT_TOO_LARGE',
        `The events of aggregate ${slot.aggregate.type}/${slot.aggregate.id} make a slot item of ${size} bytes; allowed: at most ${MAX_ITEM_BYTES} bytes (the DynamoDB item limit) — split them over several writes`,
      );
    }
    requestBytes += size + SLOT_WRITE_EXTRA_BYTES;
  }
  // Only a keyed write is ever compared with another: hashing every write would cost each a canonical copy of its input.
  const fingerprint = input.idempotencyKey === undefined ? '' : writeFingerprint(marshalled, eventsInput);
  const writeId = input.idempotencyKey === undefined ? '' : randomUUID();
  if (input.idempotencyKey !== undefined) {
    // The record repeats each event's aggregate in its result; sequences are only known at
    // commit, so it is sized with the widest ones a slot can reach.
    const widest = new Map(slots.map((slot) => [slot.pk, Number.MAX_SAFE_INTEGER - slot.events.length]));
    const put = idempotencyPut(
      input.idempotencyKey,
      { now, fingerprint, writeId },
      writtenEvents(slots, widest),
      context.tableName,
      context.idempotencyTtlSeconds,
    );
    const size = itemSize(marshall(put.Put?.Item, { removeUndefinedValues: true }));
    if (size > MAX_ITEM_BYTES) {
      throw new WriteValidationError(
        'IDEMPOTENCY_RECORD_TOO_LARGE',
        `This write's idempotency record (its ${eventsInput.length} events' ids, types, aggregates, times and versions) is about ${size} bytes; allowed: at most ${MAX_ITEM_BYTES} bytes (the DynamoDB item limit) — write fewer events per call with an idempotency key, or leave the key out`,
      );
    }
    requestBytes += size + actionExtraBytes(put);
  }
  if (requestBytes > MAX_REQUEST_BYTES) {
    throw new WriteValidationError(
      'REQUEST_TOO_LARGE',
      `This write is about ${requestBytes} bytes; allowed: at most ${MAX_REQUEST_BYTES} bytes per transaction`,
    );
  }
  const reading = translateConfig?.unmarshallOptions ?? {};
  return { operations, kinds, slots, now, fingerprint, writeId, wire, sending: sendingOptions(marshallOptions), reading };
}
