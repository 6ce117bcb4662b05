import { randomUUID } from 'node:crypto';
import { TransactWriteItemsCommand, type TransactWriteItemsInput } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { errorName } from '../aws/error-name.js';
import { TRANSIENT_REQUEST_ERRORS } from '../aws/transient-transaction-errors.js';
import { type BackoffOptions, backoffDelay, sleep } from '../backoff.js';
import type { OutboxConfig } from '../config.js';
import { OutboxError, TransactionConflictError, WriteOutcomeUnknownError } from '../errors.js';
import { ambientTraceContext } from '../tracing/trace-context.js';
import { type AttemptWatch, describeError, lostAttempt, notApplied, watchAttempts } from './attempts.js';
import { type CancellationReason, cancellationOutcome } from './cancellation.js';
import { checkEventCatalog } from './catalog-check.js';
import { refusalError, unknownOutcome } from './failure.js';
import { derivedToken, idempotencyPut, replay } from './idempotency.js';
import { marshalAction } from './operation-size.js';
import { type OutboxOptions, resolveOptions, type WriteRetryOptions } from './options.js';
import { type Plan, planWrite } from './plan.js';
import { writtenEvents } from './result.js';
import { SequenceMemory, type SlotState } from './sequences.js';
import { slotWrite } from './slot-item.js';
import type { WriteInput, WriteResult } from './types.js';

export type { OutboxOptions, WriteRetryOptions } from './options.js';

const RACE_BACKOFF: BackoffOptions = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 5, maxDelayMs: 50 };
/**
 * Errors of the whole request that a later attempt can get past: throttling once the SDK's own
 * few retries are spent, and conflicts with other transactions. Nothing was written.
 */
const RETRIED_ERRORS: ReadonlySet<string> = new Set([...TRANSIENT_REQUEST_ERRORS, 'TransactionConflictException']);
/**
 * How long an attempt that DynamoDB reports still running (`TransactionInProgressException`)
 * is asked about again under its token; DynamoDB settles such an attempt once 5 s have passed
 * since it began. Measured on the monotonic clock, not the `clock` option (which gives event
 * times, and may stand still in a test or step with the wall clock).
 */
export const IN_PROGRESS_WINDOW_MS = 15_000;
/** A function that does nothing, shared: a write's release is set once its promise exists. */
const NOTHING = (): void => {};

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
    const resolved = resolveOptions(options);
    this.#config = resolved.config;
    this.#tableName = resolved.tableName;
    this.#client = resolved.client;
    this.#retry = resolved.retry;
    this.#idempotencyTtlSeconds = resolved.idempotencyTtlSeconds;
    this.#clock = resolved.clock;
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
    // Read from the memory only when what is expected changes: a request asked about again under
    // its token must be the same, though other writes meanwhile make the memory forget a slot.
    let known = this.#knownSlots(plan, expected);
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
        const own = plan.slots.map((slot) => slotWrite(slot, known.get(slot.pk), plan.now, this.#tableName, this.#config));
        if (input.idempotencyKey !== undefined)
          own.push(idempotencyPut(input.idempotencyKey, plan, result, this.#tableName, this.#idempotencyTtlSeconds));
        // Sent as a low-level command through the same client: the caller's operations were
        // marshalled while planned, with the client's options, so only the helper's own actions are.
        const wire = { TransactItems: [...plan.wire, ...own.map((op) => marshalAction(op, plan.sending))], ClientRequestToken: token };
        const request = { TransactItems: [...plan.operations, ...own], ClientRequestToken: token };
        const command = new TransactWriteItemsCommand(request as TransactWriteItemsInput);
        watch = watchAttempts(command, wire as TransactWriteItemsInput, plan.sending);
        let answer: Promise<unknown>;
        try {
          answer = this.#client.send(command);
        } catch (error) {
          // Thrown by send() itself, before it returns the request's promise: while the SDK
          // assembled the request (its middleware), so no attempt of it left.
          watch = { observed: true, unanswered: [] };
          throw error;
        }
        await answer;
        for (const slot of plan.slots) {
          const state = known.get(slot.pk);
          const createdAt = state === undefined ? plan.now.toISOString() : state.createdAt;
          this.#sequences.remember(slot.pk, (state?.seq ?? 0) + slot.events.length, createdAt);
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
          known = this.#knownSlots(plan, expected);
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
          // No write under the key is in force (the request DynamoDB holds the key for, as token,
          // left no record, or one past its expiry): nothing conflicted, so the write goes on at
          // once under a token no other request has used, spending no retry.
          const keyAsToken = token === input.idempotencyKey;
          token = derivedToken(input.idempotencyKey, attempt);
          lost = undefined;
          lastReason = name;
          if (keyAsToken) continue;
        } else if (name === 'TransactionInProgressException') {
          // An earlier attempt under this token (sent again by the SDK after a timeout) is still
          // running and may yet commit: only this token, sent again, learns how it ends. A new one
          // could commit the write a second time.
          const now = performance.now();
          inProgressSince ??= now;
          if (now - inProgressSince >= IN_PROGRESS_WINDOW_MS)
            throw new WriteOutcomeUnknownError(attempt, Math.round(now - inProgressSince), input.idempotencyKey, { cause: error });
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
   * Each slot as this write expects it: `undefined` when assumed new; its creation time only
   * where the memory holds it for that same sequence.
   */
  #knownSlots(plan: Plan, expected: ReadonlyMap<string, number | undefined>): Map<string, SlotState | undefined> {
    const known = new Map<string, SlotState | undefined>();
    for (const { pk } of plan.slots) {
      const seq = expected.get(pk);
      const remembered = seq === undefined ? undefined : this.#sequences.state(pk);
      known.set(pk, seq === undefined ? undefined : { seq, createdAt: remembered?.seq === seq ? remembered.createdAt : undefined });
    }
    return known;
  }

  /** What is known of the write when it gives up on it; see {@link unknownOutcome}. */
  #failure(error: unknown, attempts: number, key: string | undefined, inProgressSince: number | undefined, lost: string | undefined) {
    const inProgressForMs = inProgressSince === undefined ? undefined : Math.round(performance.now() - inProgressSince);
    return { error, attempts, idempotencyKey: key, inProgressForMs, lost };
  }

  /** The tables a write names, the outbox table first, for a message. */
  #tables(plan: Plan): string[] {
    const named = plan.operations.map((op) => (op.Put ?? op.Update ?? op.Delete ?? op.ConditionCheck)?.TableName ?? this.#tableName);
    return [...new Set([this.#tableName, ...named])];
  }
}
