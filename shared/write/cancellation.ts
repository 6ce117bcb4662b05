/**
 * Reading a cancelled transaction's reasons: whether the write was already committed under its
 * idempotency key, lost a race on a slot, hit a transient conflict, or failed for good.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall, type unmarshallOptions } from '@aws-sdk/util-dynamodb';
import { classifyCancellation } from '../aws/transient-transaction-errors.js';
import { type OperationFailure, TransactionFailedError } from '../errors.js';
import { storedResult } from './idempotency.js';
import type { Plan } from './plan.js';
import type { SequenceMemory } from './sequences.js';
import type { WriteResult } from './types.js';

/** One entry of `TransactionCanceledException.CancellationReasons`, in the order of the actions sent. */
export interface CancellationReason {
  Code?: string;
  Message?: string;
  Item?: Record<string, AttributeValue>;
}

/** A cancellation the write can go on from: replayed under its key, or retried after a race or a transient conflict. */
export type CancellationOutcome =
  | { status: 'replayed'; result: WriteResult }
  | { status: 'conflict'; reason: string }
  /** `slots`: the keys of the slots whose condition failed, each with its sequence as found put in `expected`. */
  | { status: 'raced'; reason: string; slots: readonly string[] };

/**
 * What to do after a cancellation; throws a {@link TransactionFailedError} when retrying cannot help.
 * The idempotency record's failed condition is a replay, and an outbox slot's a race (its current
 * sequence is put in `expected` and `sequences`, and the request changes); the other reasons are
 * read by {@link classifyCancellation}, so a permanent one decides over transient ones beside it.
 */
export function cancellationOutcome(
  reasons: readonly CancellationReason[],
  plan: Plan,
  expected: Map<string, number | undefined>,
  idempotencyKey: string | undefined,
  error: unknown,
  sequences: SequenceMemory,
): CancellationOutcome {
  const slotsFrom = plan.operations.length;
  const recordIndex = slotsFrom + plan.slots.length;
  const record = reasons[recordIndex];
  if (idempotencyKey !== undefined && record?.Code === 'ConditionalCheckFailed' && record.Item !== undefined) {
    return { status: 'replayed', result: storedResult(idempotencyKey, unmarshall(record.Item), plan.fingerprint) };
  }
  const raced: string[] = [];
  plan.slots.forEach((slot, i) => {
    const reason = reasons[slotsFrom + i];
    if (reason?.Code !== 'ConditionalCheckFailed') return;
    raced.push(slot.pk);
    // What the failed condition found is the slot as it is, whatever becomes of this write.
    const current = reason.Item === undefined ? undefined : unmarshall(reason.Item);
    const seq = typeof current?.seq === 'number' ? current.seq : undefined;
    expected.set(slot.pk, seq);
    if (seq === undefined) sequences.forget(slot.pk);
    else sequences.remember(slot.pk, seq, typeof current?.createdAt === 'string' ? current.createdAt : undefined);
  });
  const isRace = (index: number) => index >= slotsFrom && index < recordIndex && reasons[index]?.Code === 'ConditionalCheckFailed';
  const verdict = classifyCancellation(reasons.map((reason, index) => (isRace(index) ? 'None' : reason?.Code)));
  if (verdict.kind === 'permanent') {
    const failures = verdict.permanent.map((index) => failureAt(index, reasons[index] as CancellationReason, plan, idempotencyKey));
    throw new TransactionFailedError(failures, { cause: error });
  }
  const codes = reasons.map((r) => r.Code).filter((c) => c !== undefined && c !== 'None');
  return raced.length > 0
    ? { status: 'raced', reason: 'a concurrent write to the same aggregate', slots: raced }
    : { status: 'conflict', reason: codes.join(', ') || 'TransactionCanceled' };
}

/** The failure of the action at `index`: one of the caller's operations, an outbox slot (index -1), or the idempotency record (index -1). */
function failureAt(index: number, reason: CancellationReason, plan: Plan, idempotencyKey: string | undefined): OperationFailure {
  const code = reason.Code as string;
  // DynamoDB's message as given, also when empty, for every kind of action alike.
  const message = reason.Message === undefined ? {} : { message: reason.Message };
  if (index < plan.operations.length) {
    const item = reason.Item === undefined ? {} : { item: itemAsItWas(reason.Item, plan.reading) };
    return {
      index,
      kind: plan.kinds[index] as string,
      reason: code,
      ...message,
      ...item,
    };
  }
  const slot = plan.slots[index - plan.operations.length];
  const kind =
    slot === undefined ? `idempotency record of key "${idempotencyKey}"` : `outbox slot of ${slot.aggregate.type}/${slot.aggregate.id}`;
  return { index: -1, kind, reason: code, ...message };
}

/**
 * The item a failed condition returned, as the caller's DocumentClient reads one (its
 * `unmarshallOptions`); with every number a `NumberValue` when one is a number neither a JS number
 * nor a BigInt holds (a fraction beyond 2^53), which reading without `wrapNumbers` refuses: the
 * failure is reported with its item all the same. The helper's own records (a slot, the
 * idempotency record) are read with the defaults instead, whatever the client's options: the
 * helper reads their fields as numbers and strings.
 */
function itemAsItWas(item: Record<string, AttributeValue>, options: unmarshallOptions): Record<string, unknown> {
  try {
    return unmarshall(item, options);
  } catch {
    return unmarshall(item, { ...options, wrapNumbers: true });
  }
}
