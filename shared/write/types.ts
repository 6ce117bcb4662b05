/**
 * The write helper's data: what a caller gives, what a write returns, and the limits and key
 * prefixes every part of the helper shares. Types and constants only, at the bottom of the
 * helper's imports.
 */

import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AggregateRef, SlotEvent } from '../slot.js';

/** One of the caller's business operations, DocumentClient-style (`@aws-sdk/lib-dynamodb`). */
export type TransactOperation = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * A business operation whose `TableName` may be left out: it then targets the outbox table.
 * Exactly one of `Put`, `Update`, `Delete`, `ConditionCheck`.
 */
export type WriteOperation =
  | { Put: Omit<NonNullable<TransactOperation['Put']>, 'TableName'> & { TableName?: string } }
  | { Update: Omit<NonNullable<TransactOperation['Update']>, 'TableName'> & { TableName?: string } }
  | { Delete: Omit<NonNullable<TransactOperation['Delete']>, 'TableName'> & { TableName?: string } }
  | { ConditionCheck: Omit<NonNullable<TransactOperation['ConditionCheck']>, 'TableName'> & { TableName?: string } };

/** An event to publish once the transaction commits. */
export interface EventInput<TData = unknown> {
  /** The aggregate the event belongs to; its type must have a route in the config. */
  readonly aggregate: AggregateRef;
  /** The CloudEvents `type`, e.g. `order.placed`: 1–256 characters of well-formed Unicode, no control characters. */
  readonly type: string;
  /** Any JSON value; it is published byte for byte as `JSON.stringify` renders it. */
  readonly data: TData;
  /**
   * The declared version of the type to write the event as: `data` is checked against that
   * version's schema and aggregate type, and the envelope's `dataschema` names it. Lets a
   * producer keep writing version 1 after version 2 is declared, until every consumer has it.
   * Must be one the config's `eventTypes` declares for `type`, else `INVALID_EVENT_VERSION`; on a
   * type `eventTypes` does not declare, the type is refused (`EVENT_TYPE_UNDECLARED`) under
   * `undeclaredEventTypes: 'reject'`, and the version (`INVALID_EVENT_VERSION`) under `'allow'`.
   * @default the type's newest declared version (none without a catalog, or for an undeclared type)
   * @example
   * ```ts
   * // version 2 is declared, but not every consumer has it yet: keep writing version 1
   * await outbox.write({ events: [{ aggregate: { type: 'order', id }, type: 'order.placed', data, version: 1 }] });
   * ```
   */
  readonly version?: number;
  /**
   * W3C trace context of the caller, carried as the `traceparent` extension. @default the active
   * OpenTelemetry span's (when `@opentelemetry/api` is installed and a context manager registered),
   * else the Lambda X-Ray header's (`_X_AMZN_TRACE_ID`), else none
   */
  readonly traceparent?: string;
  /**
   * W3C trace state that goes with `traceparent` (only with it), carried as the `tracestate`
   * extension. @default with the OpenTelemetry span's context, that span's trace state; else none
   */
  readonly tracestate?: string;
}

/**
 * What `outbox.write` commits in one DynamoDB transaction: the caller's business operations and
 * the events they imply, optionally made idempotent by a key.
 */
export interface WriteInput {
  /** Business operations committed together with the events. @default [] */
  readonly operations?: readonly WriteOperation[];
  /** The events the operations imply. @default [] (a write of operations only; at least one of the two is needed) */
  readonly events?: readonly EventInput[];
  /**
   * Makes the write idempotent: sent as `ClientRequestToken`, and recorded with the result so
   * that a retried call (even after the 10-minute token window) returns the first result and
   * writes nothing. 1–36 printable ASCII characters.
   */
  readonly idempotencyKey?: string;
}

/** The events of one aggregate in this write, in call order. */
export interface SlotPlan {
  readonly aggregate: AggregateRef;
  readonly pk: string;
  readonly events: SlotEvent[];
  /** Indexes of these events in the caller's `events` array. */
  readonly inputIndexes: number[];
  /**
   * The declared version each event is written as, by position in {@link events} (`undefined`
   * for an undeclared type allowed through); absent without a catalog.
   */
  readonly versions?: (number | undefined)[];
}

/**
 * Most actions one write may send (the DynamoDB transaction limit): its operations, plus one per
 * aggregate its events belong to, plus one for the idempotency record when a key is given. A
 * write that needs more is refused with `TOO_MANY_ACTIONS` before anything is sent.
 */
export const MAX_TRANSACTION_ACTIONS = 100;
/**
 * Largest item DynamoDB stores, in bytes (400 KiB, attribute names included). A `Put` item, an
 * aggregate's slot item of events, or an idempotency record over it is refused before anything is sent.
 */
export const MAX_ITEM_BYTES = 400 * 1024;
/**
 * Largest transaction request DynamoDB accepts, in bytes (4 MiB). A write whose estimated size is
 * over it is refused with `REQUEST_TOO_LARGE` before anything is sent.
 */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * Partition-key prefix of idempotency records: a write with key `k` records its result at
 * `pk = IDEMPOTENCY#k`.
 *
 * @example
 * ```ts
 * const record = await documentClient.send(
 *   new GetCommand({ TableName: 'shop', Key: { pk: `${IDEMPOTENCY_PREFIX}${requestId}`, sk: 'IDEMPOTENCY' } }),
 * );
 * ```
 */
export const IDEMPOTENCY_PREFIX = 'IDEMPOTENCY#';

/** One event as committed. */
export interface WrittenEvent {
  readonly id: string;
  readonly type: string;
  /**
   * The declared version of `type` the event was written as (the envelope's `dataschema` names
   * it): the one its `version` named, else the type's newest. Absent without a catalog
   * (`eventTypes`) and for an undeclared type written under `undeclaredEventTypes: 'allow'`.
   * Nor has an event replayed from an idempotency record that an earlier release of this package
   * wrote: such a record does not hold versions.
   *
   * @example
   * ```ts
   * const { events } = await outbox.write({ events: [{ aggregate: { type: 'order', id }, type: 'order.placed', data }] });
   * logger.info('written', { version: events[0]?.version }); // the newest declared version of order.placed
   * ```
   */
  readonly version?: number;
  readonly aggregate: AggregateRef;
  /** Per-aggregate sequence, gapless and increasing within the aggregate's slot: the envelope's `aggregatesequence`. */
  readonly sequence: number;
  readonly time: string;
}

/**
 * What `Outbox.write()` returns.
 *
 * @example
 * ```ts
 * const { events, replayed } = await outbox.write({ operations, events: [placed], idempotencyKey: requestId });
 * if (!replayed) logger.info('order placed', { eventId: events[0]?.id, sequence: events[0]?.sequence });
 * ```
 */
export interface WriteResult {
  /** The events in the order they were given. */
  readonly events: readonly WrittenEvent[];
  /** `true` when an earlier call with the same idempotency key committed and this one wrote nothing. */
  readonly replayed: boolean;
}
