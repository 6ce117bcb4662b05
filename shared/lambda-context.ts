/**
 * The time a Lambda handler's context says its invocation has left, as the relay's and the
 * archiver's handlers time their work out with it: each words a fault with its own error class.
 */

import { showValue } from './show-value.js';

/** The longest a timer waits: past it (2^31 − 1 ms) Node fires the timer at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What is wrong with `left`, the value a context's `getRemainingTimeInMillis()` gave, with what
 * was given and what is allowed, or `undefined` for a finite number of ms up to `maxMs` (at or
 * below 0 too, as at the timeout); `bound` says what `maxMs` is. `NaN` makes `AbortSignal.timeout`
 * throw a `RangeError`, and past {@link MAX_TIMER_MS} a timer fires at once. Lambda's context
 * always gives a good one; a context made by hand (a test's) may not.
 *
 * @example
 * ```ts
 * remainingTimeFault(Number.NaN, MAX_TIMER_MS, 'the longest a timer waits');
 * // 'gave NaN; allowed: the milliseconds the invocation has left, a finite number up to 2147483647 (the longest a timer waits), …'
 * remainingTimeFault(30_000, MAX_TIMER_MS, 'the longest a timer waits'); // undefined
 * ```
 */
export function remainingTimeFault(left: unknown, maxMs: number, bound: string): string | undefined {
  if (typeof left === 'number' && Number.isFinite(left) && left <= maxMs) return undefined;
  return `gave ${showValue(left)}; allowed: the milliseconds the invocation has left, a finite number up to ${maxMs} (${bound}), as Lambda's context gives it`;
}
