import { errorName } from './error-name.js';

/**
 * Which failures of a `TransactWriteItems` a later attempt of the same transaction can get past,
 * as DynamoDB's API reference documents them; nothing of the transaction was written in either
 * case. The write helper and the consumer's inbox read them from here, so both retry the same ones.
 */

/** The cancellation reasons that say DynamoDB throttled an action (capacity, or a table or index still scaling). */
export const THROTTLING_CANCELLATION_REASONS: ReadonlySet<string> = new Set(['ProvisionedThroughputExceeded', 'ThrottlingError']);

/**
 * The codes of `TransactionCanceledException.CancellationReasons` that a retry can get past: a
 * conflict with another transaction on the item, and throttling (provisioned capacity exceeded, or
 * an on-demand table or index still scaling). The other documented codes (`ConditionalCheckFailed`,
 * `ItemCollectionSizeLimitExceeded`, `ValidationError`) fail the same way again, and `None` marks
 * an action that did not fail. The account's request limit is not a cancellation reason: DynamoDB
 * reports it for the whole request, as {@link TRANSIENT_REQUEST_ERRORS}' `RequestLimitExceeded`.
 */
export const TRANSIENT_CANCELLATION_REASONS: ReadonlySet<string> = new Set(['TransactionConflict', ...THROTTLING_CANCELLATION_REASONS]);

/**
 * The errors of a whole `TransactWriteItems` request (their `name`) that a later attempt can get
 * past once the SDK's own few retries are spent: throttling of the table or index, and the
 * account's request limit.
 */
export const TRANSIENT_REQUEST_ERRORS: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

/** What a cancelled transaction's reasons come to, as a whole. */
export interface CancellationVerdict {
  /**
   * `permanent` when any action failed for a reason a retry of the same request meets again, even
   * if others failed for transient ones: retrying would only fail again once the transient ones
   * pass, and the error would name the wrong cause; `transient` when every action that failed can
   * get past on a retry; `none` when no action is reported failed.
   */
  readonly kind: 'permanent' | 'transient' | 'none';
  /** The indices (in the order of the actions sent) of the actions that failed for good. */
  readonly permanent: readonly number[];
  /** The indices of the actions that failed for a transient reason. */
  readonly transient: readonly number[];
}

/**
 * Reads the codes of `TransactionCanceledException.CancellationReasons` (one per action sent; `None`
 * or none for an action that did not fail) by one rule: a permanent reason decides, else a transient
 * one. A caller reads first the reasons it answers itself (the inbox record's failed condition is a
 * duplicate, the idempotency record's a replay, an outbox slot's a race) and passes those as `None`.
 *
 * @example
 * ```ts
 * const verdict = classifyCancellation(error.CancellationReasons?.map((reason) => reason.Code) ?? []);
 * if (verdict.kind === 'transient') return retry();
 * ```
 */
export function classifyCancellation(codes: readonly (string | undefined)[]): CancellationVerdict {
  const permanent: number[] = [];
  const transient: number[] = [];
  codes.forEach((code, index) => {
    if (code === undefined || code === 'None') return;
    (TRANSIENT_CANCELLATION_REASONS.has(code) ? transient : permanent).push(index);
  });
  const kind = permanent.length > 0 ? 'permanent' : transient.length > 0 ? 'transient' : 'none';
  return { kind, permanent, transient };
}

/**
 * What says DynamoDB throttled a `TransactWriteItems` (nothing of it was written): the whole
 * request throttled once the SDK's own retries were spent (`the whole request: ThrottlingException`),
 * or a cancellation with a throttled action (`actions[2]: ThrottlingError`), whatever else failed
 * beside it; `undefined` for any other error.
 *
 * @example
 * ```ts
 * const throttled = throttledTransaction(error);
 * if (throttled !== undefined) return failAll(`throttled: ${throttled}`); // no more requests now
 * ```
 */
export function throttledTransaction(error: unknown): string | undefined {
  const name = errorName(error);
  if (TRANSIENT_REQUEST_ERRORS.has(name)) return `the whole request: ${name}`;
  if (name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { readonly CancellationReasons?: readonly ({ readonly Code?: string } | undefined)[] }).CancellationReasons;
  const codes = Array.isArray(reasons) ? reasons.map((reason) => reason?.Code) : [];
  const throttled = codes.flatMap((code, index) =>
    code !== undefined && THROTTLING_CANCELLATION_REASONS.has(code) ? [`actions[${index}]: ${code}`] : [],
  );
  return throttled.length === 0 ? undefined : throttled.join('; ');
}
