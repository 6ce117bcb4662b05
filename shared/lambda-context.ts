/**
 * The time a Lambda handler's context says its invocation has left, read by one rule for the
 * relay's, the archiver's and a consumer's handlers: each words a fault with its own error class.
 */

import { showValue } from './show-value.js';

/** The longest a timer waits: past it (2^31 − 1 ms) Node fires the timer at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What is wrong with `left`, the value a context's `getRemainingTimeInMillis()` gave, with what
 * was given and what is allowed, or `undefined` for a finite number of ms up to `limit.maxMs`
 * when given (at or below 0 too, as at the timeout); `limit.bound` says what it is. A handler that
 * times its work out with it needs the limit: `NaN` makes `AbortSignal.timeout`
 * throw a `RangeError`, and past {@link MAX_TIMER_MS} a timer fires at once. Lambda's context
 * always gives a good one; a context made by hand (a test's) may not.
 *
 * @example
 * ```ts
 * remainingTimeFault(Number.NaN, { maxMs: MAX_TIMER_MS, bound: 'the longest a timer waits' });
 * // 'gave NaN; allowed: the milliseconds the invocation has left, a finite number up to 2147483647 (the longest a timer waits), …'
 * remainingTimeFault(30_000); // undefined
 * ```
 */
export function remainingTimeFault(left: unknown, limit?: { readonly maxMs: number; readonly bound: string }): string | undefined {
  if (typeof left === 'number' && Number.isFinite(left) && (limit === undefined || left <= limit.maxMs)) return undefined;
  const upTo = limit === undefined ? '' : ` up to ${limit.maxMs} (${limit.bound})`;
  return `gave ${showValue(left)}; allowed: the milliseconds the invocation has left, a finite number${upTo}, as Lambda's context gives it`;
}
