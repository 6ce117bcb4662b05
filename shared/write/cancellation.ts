/**
 * Reading a cancelled transaction's reasons: whether the write was already committed under its
 * idempotency key, lost a race on a slot, hit a transient conflict, or failed for good.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TRANSIENT_CANCELLATION_REASONS as TRANSIENT_REASONS } from '../aws/transient-transaction-errors.js';
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
 * A slot whose condition failed has its current sequence put in `expected` and `sequences`.
 */
export function cancellationOutcome(
  reasons: readonly CancellationReason[],
  plan: Plan,
  expected: Map<string, number | undefined>,
  idempotencyKey: string | undefined,
  error: unknown,
  sequences: SequenceMemory,
): CancellationOutcome {
  const recordIndex = plan.operations.length + plan.slots.length;
  const record = reasons[recordIndex];
  if (idempotencyKey !== undefined && record?.Code === 'ConditionalCheckFailed' && record.Item !== undefined) {
    return { status: 'replayed', result: storedResult(idempotencyKey, unmarshall(record.Item), plan.fingerprint) };
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
  const raced: string[] = [];
  plan.slots.forEach((slot, i) => {
    const reason = reasons[plan.operations.length + i];
    if (reason?.Code === 'ConditionalCheckFailed') {
      raced.push(slot.pk);
      const current = reason.Item === undefined ? undefined : unmarshall(reason.Item);
      const seq = typeof current?.seq === 'number' ? current.seq : undefined;
      expected.set(slot.pk, seq);
      if (seq === undefined) sequences.forget(slot.pk);
      else sequences.remember(slot.pk, seq, typeof current?.createdAt === 'string' ? current.createdAt : undefined);
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
  return raced.length > 0
    ? { status: 'raced', reason: 'a concurrent write to the same aggregate', slots: raced }
    : { status: 'conflict', reason: codes.join(', ') || 'TransactionCanceled' };
}
