import { createHash, randomUUID } from 'node:crypto';
import { type AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, type marshallOptions, unmarshall } from '@aws-sdk/util-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import { type BackoffOptions, backoffDelay, sleep } from './backoff.js';
import type { OutboxConfig } from './config.js';
import {
  IdempotencyConflictError,
  type OperationFailure,
  TransactionConflictError,
  TransactionFailedError,
  WriteValidationError,
} from './errors.js';
import { itemSize } from './item-size.js';
import { type AggregateRef, SLOT_KIND, SLOT_SORT_KEY } from './slot.js';
import { TABLE } from './table.js';
import {
  MAX_ITEM_BYTES,
  MAX_REQUEST_BYTES,
  MAX_TRANSACTION_ACTIONS,
  planSlots,
  resolveOperation,
  type SlotPlan,
  type TransactOperation,
  validateIdempotencyKey,
  type WriteInput,
} from './write-input.js';

export type { EventInput, WriteInput, WriteOperation } from './write-input.js';

/** One event as committed. */
export interface WrittenEvent {
  readonly id: string;
  readonly type: string;
  readonly aggregate: AggregateRef;
  /** Per-aggregate sequence, gapless and increasing within the aggregate's slot. */
  readonly sequence: number;
  readonly time: string;
}

export interface WriteResult {
  /** The events in the order they were given. */
  readonly events: readonly WrittenEvent[];
  /** `true` when an earlier call with the same idempotency key committed and this one wrote nothing. */
  readonly replayed: boolean;
}

export interface OutboxOptions {
  readonly config: OutboxConfig;
  /** The outbox table; business operations without a `TableName` go to it too. */
  readonly tableName: string;
  /** Created once and reused; a plain `DynamoDBClient` is wrapped in a DocumentClient. */
  readonly client: DynamoDBClient | DynamoDBDocumentClient;
  /**
   * Bounded retries: `maxAttempts` with jittered exponential backoff for transaction conflicts
   * and throttling; `maxSequenceRaces` with a short jitter for races with other writers of
   * the same aggregate (in other processes: one instance never races itself).
   * @default { maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 1000, maxSequenceRaces: 100 }
   */
  readonly retry?: Partial<WriteRetryOptions>;
  /** How long an idempotency key's result is kept. @default 86400 (24 h) */
  readonly idempotencyTtlSeconds?: number;
  /** @default () => new Date() */
  readonly clock?: () => Date;
}

export interface WriteRetryOptions extends BackoffOptions {
  /** Retries after losing a race with another writer of the same aggregate (each one is their progress). */
  readonly maxSequenceRaces: number;
}

const DEFAULT_RETRY: WriteRetryOptions = { maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 1000, maxSequenceRaces: 100 };
const RACE_BACKOFF: BackoffOptions = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 5, maxDelayMs: 50 };
const TRANSIENT_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);
const SEQUENCE_CACHE_SIZE = 10_000;
export const IDEMPOTENCY_PREFIX = 'IDEMPOTENCY#';

interface Plan {
  readonly operations: TransactOperation[];
  readonly kinds: string[];
  readonly slots: SlotPlan[];
  readonly now: Date;
  readonly fingerprint: string;
}

interface CancellationReason {
  Code?: string;
  Message?: string;
  Item?: Record<string, AttributeValue>;
}

/**
 * The write helper: commits business operations and the events they imply in one
 * `TransactWriteItems`, one outbox-slot update per aggregate.
 *
 * Each slot update is conditional on the slot's sequence as last seen, so the sequences it
 * returns are exact; a concurrent writer on the same aggregate makes DynamoDB return the
 * slot's current state, and the write is retried against it (bounded, jittered).
 *
 * @example
 * ```ts
 * const outbox = new Outbox({ config, tableName: 'shop', client: new DynamoDBClient({}) });
 * const { events } = await outbox.write({
 *   operations: [{ Put: { Item: { pk: 'ORDER#o-1', sk: 'ORDER', total: 42 }, ConditionExpression: 'attribute_not_exists(pk)' } }],
 *   events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: { total: 42 } }],
 *   idempotencyKey: requestId,
 * });
 * // events[0].sequence === 1
 * ```
 */
export class Outbox {
  readonly #config: OutboxConfig;
  readonly #tableName: string;
  readonly #client: DynamoDBDocumentClient;
  readonly #retry: WriteRetryOptions;
  readonly #idempotencyTtlSeconds: number;
  readonly #clock: () => Date;
  /** Last sequence seen per slot; an unknown slot is first assumed absent. */
  readonly #sequences = new Map<string, number>();
  /** Per slot, the completion of the last write of this instance that touches it. */
  readonly #tails = new Map<string, Promise<void>>();

  constructor(options: OutboxOptions) {
    this.#config = options.config;
    this.#tableName = options.tableName;
    this.#client =
      options.client instanceof DynamoDBClient ? DynamoDBDocumentClient.from(options.client) : (options.client as DynamoDBDocumentClient);
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#idempotencyTtlSeconds = options.idempotencyTtlSeconds ?? 86_400;
    this.#clock = options.clock ?? (() => new Date());
    for (const [name, value, kind, min] of [
      ['retry.maxAttempts', this.#retry.maxAttempts, 'an integer', 1],
      ['retry.maxSequenceRaces', this.#retry.maxSequenceRaces, 'an integer', 0],
      ['retry.baseDelayMs', this.#retry.baseDelayMs, 'a finite number', 0],
      ['retry.maxDelayMs', this.#retry.maxDelayMs, 'a finite number', 0],
      ['idempotencyTtlSeconds', this.#idempotencyTtlSeconds, 'an integer', 1],
    ] as const) {
      // Plain JS can pass anything: a string TTL would be stored as a string, which TTL ignores.
      const valid = typeof value === 'number' && (kind === 'an integer' ? Number.isInteger(value) : Number.isFinite(value)) && value >= min;
      if (!valid) {
        throw new WriteValidationError(
          'INVALID_OPERATION',
          `${name} is ${typeof value === 'string' ? JSON.stringify(value) : String(value)}; allowed: ${kind} ≥ ${min}`,
        );
      }
    }
  }

  /** Commits the operations and events atomically; see {@link WriteInput}. */
  async write(input: WriteInput): Promise<WriteResult> {
    const plan = this.#plan(input);
    return this.#exclusive(
      plan.slots.map((slot) => slot.pk),
      () => this.#commit(input, plan),
    );
  }

  /**
   * Runs `task` after every earlier write of this instance to any of the same slots has
   * finished, so one process never races itself on an aggregate and its remembered sequence
   * is exact. Each write registers as the tail of all its slots at once and waits only on
   * writes registered before it, so the waits cannot form a cycle.
   */
  async #exclusive<T>(pks: readonly string[], task: () => Promise<T>): Promise<T> {
    const previous = pks.map((pk) => this.#tails.get(pk));
    let release = (): void => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const pk of pks) this.#tails.set(pk, done);
    await Promise.all(previous);
    try {
      return await task();
    } finally {
      release();
      for (const pk of pks) if (this.#tails.get(pk) === done) this.#tails.delete(pk);
    }
  }

  async #commit(input: WriteInput, plan: Plan): Promise<WriteResult> {
    const expected = new Map(plan.slots.map((slot) => [slot.pk, this.#sequences.get(slot.pk)]));
    let token = input.idempotencyKey;
    let conflicts = 0;
    let races = 0;
    let lastReason = '';
    for (let attempt = 1; ; attempt++) {
      const result = this.#result(plan.slots, expected);
      try {
        await this.#client.send(
          new TransactWriteCommand({
            TransactItems: [
              ...plan.operations,
              ...plan.slots.map((slot) => this.#slotUpdate(slot, expected.get(slot.pk), plan.now)),
              ...(input.idempotencyKey === undefined ? [] : [this.#idempotencyPut(input.idempotencyKey, plan, result)]),
            ],
            ...(token === undefined ? {} : { ClientRequestToken: token }),
          }),
        );
        for (const slot of plan.slots) this.#remember(slot.pk, (expected.get(slot.pk) ?? 0) + slot.events.length);
        return { events: result, replayed: false };
      } catch (error) {
        const name = (error as Error).name;
        let raced = false;
        if (name === 'TransactionCanceledException') {
          const reasons = ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? []) as CancellationReason[];
          const outcome = this.#cancelled(reasons, plan, expected, input.idempotencyKey, error);
          if (outcome.status === 'replayed') return outcome.result;
          raced = outcome.status === 'raced';
          lastReason = outcome.reason;
          // A changed request must not reuse the token of the one DynamoDB just saw.
          if (token !== undefined) token = derivedToken(token, attempt);
        } else if (name === 'IdempotentParameterMismatchException' && input.idempotencyKey !== undefined) {
          const replay = await this.#replay(input.idempotencyKey, plan.fingerprint);
          if (replay !== undefined) return replay;
          // The earlier request under this token never committed (it would have left its record).
          token = derivedToken(input.idempotencyKey, attempt);
          lastReason = name;
        } else if (name === 'TransactionInProgressException' || name === 'TransactionConflictException') {
          lastReason = name;
        } else if (name === 'ValidationException' && /multiple operations on one item/i.test((error as Error).message)) {
          throw new WriteValidationError(
            'DUPLICATE_ITEM',
            `Two actions of this write target the same item (${(error as Error).message}); allowed: one action per item`,
            { cause: error },
          );
        } else {
          throw error;
        }
        if (raced) {
          // Losing a race means another writer committed: progress, so a short retry is fair.
          if (++races > this.#retry.maxSequenceRaces) throw new TransactionConflictError(attempt, lastReason);
          await sleep(backoffDelay(RACE_BACKOFF, races));
        } else {
          if (++conflicts >= this.#retry.maxAttempts) throw new TransactionConflictError(attempt, lastReason);
          await sleep(backoffDelay(this.#retry, conflicts));
        }
      }
    }
  }

  #plan(input: WriteInput): Plan {
    if (typeof input !== 'object' || input === null) {
      throw new WriteValidationError('EMPTY_WRITE', `write() got ${String(input)}; allowed: { operations?, events, idempotencyKey? }`);
    }
    const operationsInput = input.operations ?? [];
    const eventsInput = input.events ?? [];
    for (const [name, value] of [
      ['operations', operationsInput],
      ['events', eventsInput],
    ] as const) {
      if (!Array.isArray(value)) {
        throw new WriteValidationError('EMPTY_WRITE', `write() got ${name} of type ${typeof value}; allowed: an array, or leave it out`);
      }
    }
    if (operationsInput.length === 0 && eventsInput.length === 0) {
      throw new WriteValidationError('EMPTY_WRITE', 'write() got no operations and no events; allowed: at least one of either');
    }
    validateIdempotencyKey(input.idempotencyKey);
    const now = this.#clock();
    const time = now.toISOString();
    const operations: TransactOperation[] = [];
    const kinds: string[] = [];
    const targets = new Map<string, number>();
    operationsInput.forEach((op, index) => {
      const resolved = resolveOperation(op, index, this.#tableName);
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
    });
    const slots = planSlots(eventsInput, this.#config, () => ({ id: uuidv7(), time }));
    const actions = operations.length + slots.length + (input.idempotencyKey === undefined ? 0 : 1);
    if (actions > MAX_TRANSACTION_ACTIONS) {
      throw new WriteValidationError(
        'TOO_MANY_ACTIONS',
        `This write needs ${actions} actions (${operations.length} operations, ${slots.length} aggregate slots${input.idempotencyKey === undefined ? '' : ', 1 idempotency record'}); allowed: at most ${MAX_TRANSACTION_ACTIONS} per transaction`,
      );
    }
    const marshallOptions = this.#client.config.translateConfig?.marshallOptions ?? {};
    let requestBytes = 0;
    operations.forEach((op, index) => {
      requestBytes += operationSize(op, index, marshallOptions);
    });
    for (const slot of slots) {
      const size = itemSize(marshall(this.#slotItem(slot, Number.MAX_SAFE_INTEGER, now), { removeUndefinedValues: true }));
      if (size > MAX_ITEM_BYTES) {
        throw new WriteValidationError(
          'SLOT_TOO_LARGE',
          `The events of aggregate ${slot.aggregate.type}/${slot.aggregate.id} make a slot item of ${size} bytes; allowed: at most ${MAX_ITEM_BYTES} bytes (the DynamoDB item limit) — split them over several writes`,
        );
      }
      requestBytes += size;
    }
    const fingerprint = createHash('sha256')
      .update(
        JSON.stringify(
          {
            operations: operationsInput,
            events: eventsInput.map((e) => [e.aggregate, e.type, e.data, e.traceparent ?? null]),
          },
          fingerprintReplacer,
        ),
      )
      .digest('base64url');
    if (input.idempotencyKey !== undefined) {
      // The record repeats each event's aggregate in its result; sequences are only known at
      // commit, so it is sized with the widest ones a slot can reach.
      const widest = new Map(slots.map((slot) => [slot.pk, Number.MAX_SAFE_INTEGER - slot.events.length]));
      const record = this.#idempotencyPut(input.idempotencyKey, { now, fingerprint }, this.#result(slots, widest)).Put?.Item;
      const size = itemSize(marshall(record, { removeUndefinedValues: true }));
      if (size > MAX_ITEM_BYTES) {
        throw new WriteValidationError(
          'IDEMPOTENCY_RECORD_TOO_LARGE',
          `This write's idempotency record (its ${eventsInput.length} events' ids, types and aggregates) is about ${size} bytes; allowed: at most ${MAX_ITEM_BYTES} bytes (the DynamoDB item limit) — write fewer events per call with an idempotency key, or leave the key out`,
        );
      }
      requestBytes += size;
    }
    if (requestBytes > MAX_REQUEST_BYTES) {
      throw new WriteValidationError(
        'REQUEST_TOO_LARGE',
        `This write is about ${requestBytes} bytes; allowed: at most ${MAX_REQUEST_BYTES} bytes per transaction`,
      );
    }
    return { operations, kinds, slots, now, fingerprint };
  }

  #result(slots: readonly SlotPlan[], expected: ReadonlyMap<string, number | undefined>): WrittenEvent[] {
    const events: WrittenEvent[] = [];
    for (const slot of slots) {
      const base = expected.get(slot.pk) ?? 0;
      slot.events.forEach((event, i) => {
        events[slot.inputIndexes[i] as number] = {
          id: event.id,
          type: event.type,
          aggregate: slot.aggregate,
          sequence: base + 1 + i,
          time: event.time,
        };
      });
    }
    return events;
  }

  #slotItem(slot: SlotPlan, seq: number, now: Date) {
    return {
      [TABLE.partitionKey]: slot.pk,
      [TABLE.sortKey]: SLOT_SORT_KEY,
      kind: SLOT_KIND,
      aggregateType: slot.aggregate.type,
      aggregateId: slot.aggregate.id,
      source: this.#config.source,
      seq,
      createdAt: now.toISOString(),
      events: slot.events,
      [TABLE.timeToLiveAttribute]: this.#expiry(now, this.#config.outboxRetentionSeconds),
    };
  }

  #expiry(now: Date, seconds: number): number {
    return Math.floor(now.getTime() / 1000) + seconds;
  }

  /** The slot update of decision 1, made conditional on the sequence last seen. */
  #slotUpdate(slot: SlotPlan, expected: number | undefined, now: Date): TransactOperation {
    return {
      Update: {
        TableName: this.#tableName,
        Key: { [TABLE.partitionKey]: slot.pk, [TABLE.sortKey]: SLOT_SORT_KEY },
        UpdateExpression:
          'SET #events = :events, #seq = if_not_exists(#seq, :zero) + :n, #createdAt = if_not_exists(#createdAt, :now), ' +
          '#expiresAt = :ttl, #kind = :kind, #aggregateType = :aggregateType, #aggregateId = :aggregateId, #source = :source',
        ConditionExpression: expected === undefined ? 'attribute_not_exists(#seq)' : '#seq = :expected',
        ExpressionAttributeNames: {
          '#events': 'events',
          '#seq': 'seq',
          '#createdAt': 'createdAt',
          '#expiresAt': TABLE.timeToLiveAttribute,
          '#kind': 'kind',
          '#aggregateType': 'aggregateType',
          '#aggregateId': 'aggregateId',
          '#source': 'source',
        },
        ExpressionAttributeValues: {
          ':events': slot.events,
          ':zero': 0,
          ':n': slot.events.length,
          ':now': now.toISOString(),
          ':ttl': this.#expiry(now, this.#config.outboxRetentionSeconds),
          ':kind': SLOT_KIND,
          ':aggregateType': slot.aggregate.type,
          ':aggregateId': slot.aggregate.id,
          ':source': this.#config.source,
          ...(expected === undefined ? {} : { ':expected': expected }),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
  }

  #idempotencyPut(key: string, plan: { now: Date; fingerprint: string }, result: WrittenEvent[]): TransactOperation {
    return {
      Put: {
        TableName: this.#tableName,
        Item: {
          [TABLE.partitionKey]: `${IDEMPOTENCY_PREFIX}${key}`,
          [TABLE.sortKey]: 'IDEMPOTENCY',
          kind: 'outbox-idempotency',
          fingerprint: plan.fingerprint,
          result: JSON.stringify(result),
          createdAt: plan.now.toISOString(),
          [TABLE.timeToLiveAttribute]: this.#expiry(plan.now, this.#idempotencyTtlSeconds),
        },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': TABLE.partitionKey },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
  }

  #cancelled(
    reasons: readonly CancellationReason[],
    plan: Plan,
    expected: Map<string, number | undefined>,
    idempotencyKey: string | undefined,
    error: unknown,
  ): { status: 'replayed'; result: WriteResult } | { status: 'raced' | 'conflict'; reason: string } {
    const recordIndex = plan.operations.length + plan.slots.length;
    const record = reasons[recordIndex];
    if (idempotencyKey !== undefined && record?.Code === 'ConditionalCheckFailed' && record.Item !== undefined) {
      return { status: 'replayed', result: this.#stored(idempotencyKey, unmarshall(record.Item), plan.fingerprint) };
    }
    const failures: OperationFailure[] = [];
    plan.operations.forEach((_, index) => {
      const reason = reasons[index];
      if (reason?.Code !== undefined && reason.Code !== 'None' && !TRANSIENT_REASONS.has(reason.Code)) {
        failures.push({
          index,
          kind: plan.kinds[index] as string,
          reason: reason.Code,
          ...(reason.Message === undefined ? {} : { message: reason.Message }),
          ...(reason.Item === undefined ? {} : { item: unmarshall(reason.Item) }),
        });
      }
    });
    if (failures.length > 0) throw new TransactionFailedError(failures, { cause: error });
    let raced = false;
    plan.slots.forEach((slot, i) => {
      const reason = reasons[plan.operations.length + i];
      if (reason?.Code === 'ConditionalCheckFailed') {
        raced = true;
        const current = reason.Item === undefined ? undefined : unmarshall(reason.Item).seq;
        const seq = typeof current === 'number' ? current : undefined;
        expected.set(slot.pk, seq);
        if (seq === undefined) this.#sequences.delete(slot.pk);
        else this.#remember(slot.pk, seq);
      } else if (reason?.Code !== undefined && reason.Code !== 'None' && !TRANSIENT_REASONS.has(reason.Code)) {
        throw new TransactionFailedError(
          [
            {
              index: -1,
              kind: `outbox slot of ${slot.aggregate.type}/${slot.aggregate.id}`,
              reason: reason.Code,
              ...(reason.Message ? { message: reason.Message } : {}),
            },
          ],
          {
            cause: error,
          },
        );
      }
    });
    if (idempotencyKey !== undefined && record?.Code !== undefined && record.Code !== 'None' && !TRANSIENT_REASONS.has(record.Code)) {
      // Retrying would fail alike, and call it a conflict.
      const failure = { index: -1, kind: `idempotency record of key "${idempotencyKey}"`, reason: record.Code };
      throw new TransactionFailedError([{ ...failure, ...(record.Message ? { message: record.Message } : {}) }], { cause: error });
    }
    const codes = reasons.map((r) => r.Code).filter((c) => c !== undefined && c !== 'None');
    return raced
      ? { status: 'raced', reason: 'a concurrent write to the same aggregate' }
      : { status: 'conflict', reason: codes.join(', ') || 'TransactionCanceled' };
  }

  async #replay(key: string, fingerprint: string): Promise<WriteResult | undefined> {
    const { Item } = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: { [TABLE.partitionKey]: `${IDEMPOTENCY_PREFIX}${key}`, [TABLE.sortKey]: 'IDEMPOTENCY' },
        ConsistentRead: true,
      }),
    );
    return Item === undefined ? undefined : this.#stored(key, Item, fingerprint);
  }

  #stored(key: string, record: Record<string, unknown>, fingerprint: string): WriteResult {
    if (record.fingerprint !== fingerprint) throw new IdempotencyConflictError(key);
    return { events: JSON.parse(record.result as string) as WrittenEvent[], replayed: true };
  }

  #remember(pk: string, seq: number): void {
    this.#sequences.delete(pk);
    this.#sequences.set(pk, seq);
    if (this.#sequences.size > SEQUENCE_CACHE_SIZE) {
      const oldest = this.#sequences.keys().next().value;
      if (oldest !== undefined) this.#sequences.delete(oldest);
    }
  }
}

function derivedToken(key: string, attempt: number): string {
  return createHash('sha256').update(`${key}#${attempt}#${randomUUID()}`).digest('base64url').slice(0, 36);
}

function fingerprintReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Set) return { set: [...value] };
  if (value instanceof Uint8Array) return { binary: Buffer.from(value).toString('base64') };
  if (typeof value === 'bigint') return { bigint: value.toString() };
  return value;
}

/**
 * The operation's size, with its attribute values marshalled as the DocumentClient will send
 * them (each top-level value on its own, functions and `undefined` left out, with the client's
 * own options), so a value it cannot marshal is refused here, before anything is sent.
 */
function operationSize(operation: TransactOperation, index: number, options: marshallOptions): number {
  const [kind, body] = Object.entries(operation)[0] as [string, Record<string, unknown>];
  const sending = { ...options, convertTopLevelContainer: options.convertTopLevelContainer ?? true };
  let size = ['UpdateExpression', 'ConditionExpression']
    .map((k) => (typeof body[k] === 'string' ? Buffer.byteLength(body[k] as string) : 0))
    .reduce((a, b) => a + b, 0);
  for (const field of ['Item', 'Key', 'ExpressionAttributeValues']) {
    const values = body[field];
    if (typeof values !== 'object' || values === null) continue;
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined || typeof value === 'function') continue;
      const path = `operations[${index}].${kind}.${field}.${name}`;
      try {
        size += itemSize({ [name]: marshall(value, sending) as AttributeValue });
      } catch (error) {
        const culprit = unmarshallable(value, path, sending);
        throw new WriteValidationError(
          'INVALID_OPERATION',
          `${culprit.path} is ${describe(culprit.value)}, which the DynamoDB DocumentClient cannot marshal; allowed: strings, numbers (NumberValue beyond 2^53), booleans, null, binary, Sets, arrays and plain objects — convert a Date to an ISO string or epoch number first`,
          { cause: error },
        );
      }
    }
  }
  return size;
}

/** The innermost part of `value` (known not to marshal) that does not marshal, with its path. */
function unmarshallable(value: unknown, path: string, options: marshallOptions): { path: string; value: unknown } {
  if (typeof value !== 'object' || value === null) return { path, value };
  const prototype = Object.getPrototypeOf(value);
  const children = Array.isArray(value)
    ? value.map((child, i) => [`${path}[${i}]`, child] as const)
    : prototype === Object.prototype || prototype === null
      ? Object.entries(value).map(([key, child]) => [`${path}.${key}`, child] as const)
      : [];
  for (const [childPath, child] of children) {
    if (typeof child === 'function') continue;
    try {
      marshall({ child }, options);
    } catch {
      return unmarshallable(child, childPath, options);
    }
  }
  return { path, value };
}

function describe(value: unknown): string {
  if (value instanceof Date) return 'a Date';
  if (typeof value === 'object' && value !== null) return `a ${value.constructor?.name ?? 'prototype-less'} instance`;
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return typeof value === 'number' || typeof value === 'bigint' ? `the number ${value}` : String(value);
}
