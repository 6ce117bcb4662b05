import { randomUUID } from 'node:crypto';
import { DynamoDBClient, TransactWriteItemsCommand, type TransactWriteItemsInput } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type BackoffOptions, backoffDelay, sleep } from '../backoff.js';
import type { OutboxConfig } from '../config.js';
import { OutboxError, TransactionConflictError, WriteOutcomeUnknownError, WriteValidationError } from '../errors.js';
import { ambientTraceContext } from '../tracing/trace-context.js';
import { type AttemptWatch, describeError, errorName, lostAttempt, notApplied, watchAttempts } from './attempts.js';
import { type CancellationReason, cancellationOutcome } from './cancellation.js';
import { checkEventCatalog } from './catalog-check.js';
import { refusalError, unknownOutcome } from './failure.js';
import { derivedToken, idempotencyPut, replay } from './idempotency.js';
import { marshalAction } from './operation-size.js';
import { type Plan, planWrite } from './plan.js';
import { writtenEvents } from './result.js';
import { SequenceMemory, type SlotState } from './sequences.js';
import { slotWrite } from './slot-item.js';
import type { WriteInput, WriteResult } from './types.js';

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
/**
 * Errors of the whole request that a later attempt can get past: conflicts with other
 * transactions, and throttling once the SDK's own few retries are spent. Nothing was written.
 */
const RETRIED_ERRORS = new Set([
  'TransactionConflictException',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);
/**
 * How long an attempt that DynamoDB reports still running (`TransactionInProgressException`)
 * is asked about again under its token; DynamoDB settles such an attempt once 5 s have passed
 * since it began.
 */
export const IN_PROGRESS_WINDOW_MS = 15_000;
/** A function that does nothing, shared: a write's release is set once its promise exists. */
const NOTHING = (): void => {};
const OPTION_KEYS = ['config', 'tableName', 'client', 'retry', 'idempotencyTtlSeconds', 'clock'];
const RETRY_KEYS = Object.keys(DEFAULT_RETRY);

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
  readonly #sequences = new SequenceMemory();
  /** Per slot, the completion of the last write of this instance that touches it. */
  readonly #tails = new Map<string, Promise<void>>();

  constructor(options: OutboxOptions) {
    // The SDK would then reuse the first request's resolved middleware for every later one,
    // the per-request attempt watch included (and the DocumentClient refuses it with a plain Error).
    if ((options.client as { config?: { cacheMiddleware?: unknown } } | undefined)?.config?.cacheMiddleware === true) {
      throw new WriteValidationError(
        'INVALID_OPERATION',
        "options.client has cacheMiddleware: true, which reuses one request's middleware for the next; allowed: a client whose cacheMiddleware is false or unset",
      );
    }
    // A misspelt option would otherwise be ignored, and the default it meant to change used silently.
    for (const [where, value, allowed] of [
      ['options', options, OPTION_KEYS],
      ['options.retry', options.retry ?? {}, RETRY_KEYS],
    ] as const) {
      const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
      if (unknown.length > 0) {
        throw new WriteValidationError(
          'INVALID_OPERATION',
          `${where} has unknown ${unknown.length === 1 ? 'key' : 'keys'} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; allowed: ${allowed.join(', ')}`,
        );
      }
    }
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

  /**
   * Commits the operations and events atomically; see {@link WriteInput}. An event without its
   * own `traceparent` carries the caller's trace context: the active OpenTelemetry span's, else
   * the Lambda X-Ray header's (docs/write-helper.md, "Tracing").
   */
  async write(input: WriteInput): Promise<WriteResult> {
    // Read before anything is awaited; at once unless this is the first write that loads the OpenTelemetry API.
    const ambient = ambientTraceContext();
    const trace = ambient instanceof Promise ? await ambient : ambient;
    const plan = planWrite(input, {
      config: this.#config,
      tableName: this.#tableName,
      client: this.#client,
      idempotencyTtlSeconds: this.#idempotencyTtlSeconds,
      clock: this.#clock,
      ...(trace === undefined ? {} : { trace }),
    });
    if (this.#config.eventTypes !== undefined) await checkEventCatalog(input.events ?? [], this.#config);
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
    let release = NOTHING;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const pk of pks) this.#tails.set(pk, done);
    // Writes to other aggregates (the common case) wait on nothing: no promise to settle, no turn lost.
    if (previous.some((tail) => tail !== undefined)) await Promise.all(previous);
    try {
      return await task();
    } finally {
      release();
      for (const pk of pks) if (this.#tails.get(pk) === done) this.#tails.delete(pk);
    }
  }

  async #commit(input: WriteInput, plan: Plan): Promise<WriteResult> {
    const expected = new Map(plan.slots.map((slot) => [slot.pk, this.#sequences.get(slot.pk)]));
    // Every attempt carries a token, the key or a random one, kept while the request is the same:
    // an attempt DynamoDB may still be running is then asked about again instead of sent anew.
    let token = input.idempotencyKey ?? randomUUID();
    let inProgressSince: number | undefined;
    let conflicts = 0;
    let races = 0;
    // Slots whose sequence this write guessed (none known: assumed new) and found otherwise once.
    const learned = new Set<string>();
    let lastReason = '';
    // What an attempt under the current token got that leaves open whether it committed (a lost
    // answer); DynamoDB's next answer under the token that says how the request ended clears it.
    let lost: string | undefined;
    for (let attempt = 1; ; attempt++) {
      const result = writtenEvents(plan.slots, expected);
      let watch: AttemptWatch = { observed: false, unanswered: [] };
      try {
        const own = plan.slots.map((slot) => slotWrite(slot, this.#known(slot.pk, expected), plan.now, this.#tableName, this.#config));
        if (input.idempotencyKey !== undefined)
          own.push(idempotencyPut(input.idempotencyKey, plan, result, this.#tableName, this.#idempotencyTtlSeconds));
        // Sent as a low-level command through the same client: the caller's operations were
        // marshalled while planned, with the client's options, so only the helper's own actions are.
        const wire = { TransactItems: [...plan.wire, ...own.map((op) => marshalAction(op, plan.sending))], ClientRequestToken: token };
        const request = { TransactItems: [...plan.operations, ...own], ClientRequestToken: token };
        const command = new TransactWriteItemsCommand(request as TransactWriteItemsInput);
        watch = watchAttempts(command, wire as TransactWriteItemsInput, plan.sending);
        await this.#client.send(command);
        for (const slot of plan.slots) {
          const known = this.#known(slot.pk, expected);
          const createdAt = known === undefined ? plan.now.toISOString() : known.createdAt;
          this.#sequences.remember(slot.pk, (known?.seq ?? 0) + slot.events.length, createdAt);
        }
        return { events: result, replayed: false };
      } catch (error) {
        // The slots this attempt guessed, before the answer updates what is expected; only a failure needs them.
        const guessed = new Set(plan.slots.filter((slot) => expected.get(slot.pk) === undefined).map((slot) => slot.pk));
        const name = errorName(error);
        lost ??= lostAttempt(watch, error);
        let raced = false;
        if (name === 'TransactionCanceledException') {
          const reasons = ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? []) as CancellationReason[];
          const outcome = cancellationOutcome(reasons, plan, expected, input.idempotencyKey, error, this.#sequences);
          if (outcome.status === 'replayed') return outcome.result;
          lastReason = outcome.reason;
          // A changed request must not reuse the token of the one DynamoDB just saw.
          token = derivedToken(token, attempt);
          // DynamoDB answers a token that committed with success, so none of its attempts did.
          lost = undefined;
          inProgressSince = undefined;
          if (outcome.status === 'raced') {
            // A slot assumed new that exists (the first write to it from this process) is no race:
            // its sequence is now known, and the write goes on at once, once per slot.
            const firstSight = outcome.slots.every((pk) => guessed.has(pk) && !learned.has(pk));
            for (const pk of outcome.slots) learned.add(pk);
            if (firstSight) continue;
            raced = true;
          }
        } else if (name === 'IdempotentParameterMismatchException' && input.idempotencyKey !== undefined) {
          const replayed = await this.#replay(input.idempotencyKey, plan, attempt);
          if (replayed !== undefined) return replayed;
          // The earlier request under this token never committed (it would have left its record).
          token = derivedToken(input.idempotencyKey, attempt);
          lost = undefined;
          lastReason = name;
        } else if (name === 'TransactionInProgressException') {
          // An earlier attempt under this token (sent again by the SDK after a timeout) is still
          // running and may yet commit: only this token, sent again, learns how it ends. A new one
          // could commit the write a second time.
          const now = this.#clock().getTime();
          inProgressSince ??= now;
          if (now - inProgressSince >= IN_PROGRESS_WINDOW_MS)
            throw new WriteOutcomeUnknownError(attempt, now - inProgressSince, input.idempotencyKey, { cause: error });
          await sleep(backoffDelay(this.#retry, Math.min(attempt, 10)));
          continue;
        } else if (RETRIED_ERRORS.has(name)) {
          lastReason = name;
        } else {
          // Refused, or no answer once the SDK's retries were spent.
          const failure = this.#failure(error, attempt, input.idempotencyKey, inProgressSince, lost);
          throw unknownOutcome(failure, notApplied(error) ? name : undefined) ?? refusalError(error, this.#tables(plan));
        }
        if (raced) {
          // Losing a race means another writer committed: progress, so a short retry is fair.
          if (++races > this.#retry.maxSequenceRaces)
            throw new TransactionConflictError(attempt, lastReason, 'retry.maxSequenceRaces', { cause: error });
          await sleep(backoffDelay(RACE_BACKOFF, races));
        } else {
          if (++conflicts >= this.#retry.maxAttempts) {
            // An attempt DynamoDB called in progress, or one whose answer was lost, never settled
            // since under this token: it may have committed.
            const failure = this.#failure(error, attempt, input.idempotencyKey, inProgressSince, lost);
            const unknown = unknownOutcome(failure, lastReason);
            if (unknown !== undefined) throw unknown;
            throw new TransactionConflictError(attempt, lastReason, 'retry.maxAttempts', { cause: error });
          }
          await sleep(backoffDelay(this.#retry, conflicts));
        }
      }
    }
  }

  /**
   * The stored result of a keyed write whose token DynamoDB has seen with other parameters, or
   * `undefined` when no write under the key committed. A failed read leaves the outcome unknown.
   */
  async #replay(key: string, plan: Plan, attempt: number): Promise<WriteResult | undefined> {
    try {
      return await replay(this.#client, this.#tableName, key, plan);
    } catch (error) {
      if (error instanceof OutboxError) throw error;
      const outcome = { reason: 'RECORD_UNREADABLE', attempts: attempt, lost: describeError(error) } as const;
      throw new WriteOutcomeUnknownError(outcome, key, { cause: error });
    }
  }

  /**
   * The slot as this write expects it: `undefined` when assumed new; its creation time only
   * where the memory holds it for that same sequence.
   */
  #known(pk: string, expected: ReadonlyMap<string, number | undefined>): SlotState | undefined {
    const seq = expected.get(pk);
    if (seq === undefined) return undefined;
    const remembered = this.#sequences.state(pk);
    return { seq, createdAt: remembered?.seq === seq ? remembered.createdAt : undefined };
  }

  /** What is known of the write when it gives up on it; see {@link unknownOutcome}. */
  #failure(error: unknown, attempts: number, key: string | undefined, inProgressSince: number | undefined, lost: string | undefined) {
    const inProgressForMs = inProgressSince === undefined ? undefined : this.#clock().getTime() - inProgressSince;
    return { error, attempts, idempotencyKey: key, inProgressForMs, lost };
  }

  /** The tables a write names, the outbox table first, for a message. */
  #tables(plan: Plan): string[] {
    const named = plan.operations.map((op) => (op.Put ?? op.Update ?? op.Delete ?? op.ConditionCheck)?.TableName ?? this.#tableName);
    return [...new Set([this.#tableName, ...named])];
  }
}
