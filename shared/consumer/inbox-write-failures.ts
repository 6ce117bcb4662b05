import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { marshall, type marshallOptions, unmarshall } from '@aws-sdk/util-dynamodb';
import { errorName } from '../aws/error-name.js';
import { classifyCancellation, TRANSIENT_REQUEST_ERRORS, throttledTransaction } from '../aws/transient-transaction-errors.js';
import { TransactionFailedError, WriteValidationError } from '../errors.js';
import { showValue } from '../show-value.js';
import { checkAttributeValues } from '../write/attribute-values.js';
import type { TransactOperation } from '../write/types.js';
import { InboxConflictError, InboxTransactionInProgressError, InboxWriteError } from './errors.js';
import type { CommitResult, InboxEvent, InboxRecord } from './inbox-records.js';
import { jsonExcerpt } from './limits.js';
import type { TransactItem } from './types.js';

/** The inbox record as a failed condition found it (`ALL_OLD`); none when there was no record. */
export const recordAsFound = (item: Record<string, AttributeValue> | undefined): InboxRecord | undefined =>
  item === undefined ? undefined : (unmarshall(item) as InboxRecord);

/**
 * What DynamoDB allows, for a transaction it refused as a whole (`ValidationException`: nothing
 * was written, and the same writes would be refused again), or `undefined` for any other error.
 */
function validationRefusal(error: unknown): string | undefined {
  if (errorName(error) !== 'ValidationException') return undefined;
  const message = String((error as { message?: unknown }).message);
  if (/multiple operations on one item/i.test(message)) return 'one action per item, the inbox record included';
  if (/payload size/i.test(message)) return 'at most 4 MB for the whole transaction';
  if (/item size/i.test(message)) return 'items of at most 400 KB';
  return 'writes DynamoDB accepts: each with a TableName, keys and expressions that match the table';
}

const ACTIONS = ['Put', 'Update', 'Delete', 'ConditionCheck'] as const;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What is wrong with an item given to `ctx.write`, or `undefined`: one transact item, exactly one
 * action, the action an object with its `Item` (a `Put`) or `Key` an object. Anything else would
 * fail only when the transaction is sent, as a `TypeError` of the SDK's marshalling.
 */
export function transactItemProblem(item: unknown): string | undefined {
  if (!isObject(item)) return `got ${showValue(item)}`;
  const actions = ACTIONS.filter((action) => item[action] !== undefined);
  if (actions.length !== 1)
    return `got ${actions.length === 0 ? 'no action' : `${actions.join(' and ')} in one item`} (${jsonExcerpt(item)})`;
  const action = actions[0] as (typeof ACTIONS)[number];
  const body = item[action];
  if (!isObject(body)) return `got ${action} ${showValue(body)}`;
  const part = action === 'Put' ? 'Item' : 'Key';
  if (!isObject(body[part])) return `got ${action === 'Update' ? 'an' : 'a'} ${action} whose ${part} is ${showValue(body[part])}`;
  return undefined;
}

/**
 * Refuses, before anything is sent, writes holding a value DynamoDB would refuse or store other
 * than given, by the write helper's own check (`checkAttributeValues`, with the DocumentClient's
 * `options`): a string with a lone surrogate (DynamoDB takes two such strings in a key for one item), a Set of mixed types
 * (`new Set(['a', 1])` sent as the string set `["a","1"]`), an empty one or one holding a member
 * twice, a number out of DynamoDB's range or precision, a value nested too deep or cyclic, an
 * attribute name DynamoDB refuses or would change, and binary the DocumentClient would not send as
 * its bytes (an `ArrayBuffer`, a `DataView` or a `Blob` it sends as empty binary, a typed array
 * other than `Uint8Array`, an `ArrayBuffer` or a `Blob` in a binary Set, on which it fails). Throws
 * an {@link InboxWriteError} naming the value by its path (`writes[0].Put.Item.v`, the first
 * `ctx.write` first). A write that is no transact item is left to the request.
 */
export function checkWriteValues(event: InboxEvent, writes: readonly TransactItem[], options: marshallOptions = {}): void {
  for (const [index, write] of writes.entries()) {
    if (transactItemProblem(write) !== undefined) continue;
    const kind = kindOf(write);
    try {
      // Named as the handler's writes, in the order of `ctx.write`.
      checkAttributeValues({ [kind]: write[kind as keyof TransactItem] } as TransactOperation, index, options, 'writes');
    } catch (error) {
      if (!(error instanceof WriteValidationError)) throw error;
      throw new InboxWriteError(
        `The writes of event ${event.id} (${event.type}) are refused before sending: ${error.message}. Nothing was written.`,
        { cause: error },
      );
    }
  }
}

/**
 * The first write of `writes` holding a value the DocumentClient cannot marshal with `options` (a
 * `Date`, say), and the marshaller's reason; `undefined` when every one marshals. Each top-level
 * value is marshalled on its own, as the DocumentClient does, `undefined` and functions left out.
 */
function unmarshallableWrite(writes: readonly TransactItem[], options: marshallOptions): string | undefined {
  for (const [index, write] of writes.entries()) {
    const kind = kindOf(write);
    const body = (write as Record<string, Record<string, unknown> | undefined>)[kind] ?? {};
    for (const field of ['Item', 'Key', 'ExpressionAttributeValues']) {
      for (const [name, value] of Object.entries((body[field] ?? {}) as Record<string, unknown>)) {
        if (value === undefined || typeof value === 'function') continue;
        try {
          marshall({ value }, options);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          return `write ${index} (${kind}).${field}.${name}: ${reason.length > 200 ? `${reason.slice(0, 200)}…` : reason}`;
        }
      }
    }
  }
  return undefined;
}

const kindOf = (item: TransactItem): string => Object.keys(item).find((k) => item[k as keyof TransactItem] !== undefined) ?? 'unknown';

/** How often a throttled transaction was sent, for its error's message (nothing when it was sent once). */
const attemptsNote = (attempts: number): string => (attempts > 1 ? `; throttled on each of ${attempts} attempts` : '');

/**
 * What the failure of an event's transaction (its handler's `writes`, then its inbox record's
 * Put) means: the inbox record's condition failed on a done event (`duplicate`) or on an
 * unexpired claim (`held`), whatever else failed beside it: the record says whether the event is
 * done (a duplicate's handler conditions commonly fail on the writes its first delivery made). Any
 * other failure throws, as an `InboxWriteError` when DynamoDB refused the transaction as a whole,
 * an `InboxConflictError` when a retry can get past it (every action that failed did so for a
 * transient reason, or the whole request was throttled), an `InboxTransactionInProgressError` when
 * an earlier attempt of it was still running and may commit, a `TransactionFailedError` naming every
 * action that failed otherwise (a permanent reason decides over transient ones beside it, as in
 * the write helper: {@link classifyCancellation}), or as it came. `attempts`: how often the
 * transaction was sent, which a throttled one's error names; `marshalling`: the DocumentClient's
 * `marshallOptions`, to tell a value of the writes it could not marshal.
 */
export function commitFailure(
  event: InboxEvent,
  writes: readonly TransactItem[],
  error: unknown,
  attempts = 1,
  marshalling: marshallOptions = {},
): CommitResult {
  const refusal = validationRefusal(error);
  if (refusal !== undefined) {
    throw new InboxWriteError(
      `DynamoDB refused the transaction of event ${event.id} (${event.type}): ${(error as Error).message}; allowed: ${refusal}. Nothing was written.`,
      { cause: error },
    );
  }
  const name = errorName(error);
  // Throttled as a whole once the SDK's own retries were spent: nothing was written, and a later delivery can get through.
  if (TRANSIENT_REQUEST_ERRORS.has(name)) {
    const reason = `the whole request: ${name}, ${String((error as { message?: unknown }).message)}`;
    throw new InboxConflictError(event, `${reason}${attemptsNote(attempts)}`, { cause: error });
  }
  // An earlier attempt (its answer lost, sent again under the same token) may yet commit: not a cancellation.
  if (name === 'TransactionInProgressException') throw new InboxTransactionInProgressError(event, { cause: error });
  // Not DynamoDB's answer: the DocumentClient may have refused to marshal a value of the handler's writes, before sending.
  const unmarshallable =
    (error as { $metadata?: unknown } | null)?.$metadata === undefined ? unmarshallableWrite(writes, marshalling) : undefined;
  if (unmarshallable !== undefined) {
    throw new InboxWriteError(
      `The writes of event ${event.id} (${event.type}) hold a value the DynamoDB DocumentClient cannot marshal (${unmarshallable}); allowed: strings, numbers (NumberValue beyond 2^53), booleans, null, binary, non-empty Sets, arrays and plain objects — convert a Date to an ISO string or epoch number first. Nothing was written.`,
      { cause: error },
    );
  }
  if (!(error instanceof TransactionCanceledException)) throw error;
  const reasons = error.CancellationReasons ?? [];
  const inboxReason = reasons[writes.length];
  if (inboxReason?.Code === 'ConditionalCheckFailed') {
    const old = recordAsFound(inboxReason.Item);
    if (old?.status === 'IN_PROGRESS') return { status: 'held', expiresAt: old.claimExpiresAt ?? 0 };
    return { status: 'duplicate' };
  }
  // Every action that failed, the inbox record's Put (the last action) included.
  const failures = reasons
    .map((reason, index) => ({
      index,
      reason: reason.Code ?? 'Unknown',
      message: reason.Message,
      kind: index < writes.length ? kindOf(writes[index] as TransactItem) : 'inbox record Put',
    }))
    .filter((f) => f.reason !== 'None');
  // A handler's condition that failed fails the redelivery alike: it decides over a conflict or throttling beside it.
  const verdict = classifyCancellation(reasons.map((reason) => reason.Code));
  if (verdict.kind === 'transient') {
    const transient = failures.filter((f) => verdict.transient.includes(f.index));
    // Named as the value check names them: the handler's writes in the order of `ctx.write`, then the inbox record.
    const named = transient
      .map((f) => `${f.index < writes.length ? `writes[${f.index}] (${f.kind})` : 'the inbox record Put'}: ${f.reason}`)
      .join('; ');
    throw new InboxConflictError(event, `${named}${throttledTransaction(error) === undefined ? '' : attemptsNote(attempts)}`, {
      cause: error,
    });
  }
  throw new TransactionFailedError(
    failures.length > 0 ? failures : [{ index: writes.length, kind: 'inbox record Put', reason: 'Unknown', message: error.message }],
    { cause: error },
  );
}
