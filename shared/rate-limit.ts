import { sleep } from './backoff.js';
import { decimalNumber } from './decimal-number.js';
import { showValue } from './show-value.js';

/**
 * The slowest rate allowed, in events per second. A batch goes out at once and the next one waits
 * for the first one's share of the rate, while its messages stay received (the drain renews their
 * visibility through the wait); much slower, and one batch (an on-failure record's many events)
 * would hold its messages, and the run, for hours.
 */
export const MIN_RATE_PER_SECOND = 1;

/** What a rate may be, with the caller's `reason` for the floor when it gives one. */
export const rateAllowed = (reason?: string): string =>
  `at least ${MIN_RATE_PER_SECOND} event per second${reason === undefined ? '' : ` (${reason})`}`;

/**
 * Why `perSecond` cannot be a rate, as what was given and what is allowed, with the caller's
 * `reason` for the floor when it gives one; `undefined` when it can. Anything but a finite number
 * of at least {@link MIN_RATE_PER_SECOND} is refused, shown by {@link showValue} (`NaN`, `"5"`:
 * a string is not a rate).
 */
export function rateProblem(perSecond: unknown, reason?: string): string | undefined {
  if (typeof perSecond === 'number' && Number.isFinite(perSecond) && perSecond >= MIN_RATE_PER_SECOND) return undefined;
  return `got ${showValue(perSecond)}; allowed: ${rateAllowed(reason)}`;
}

/**
 * A rate typed on a command line (`--rate 2.5`): its number when {@link rateProblem} takes it,
 * else the error `refuse` makes of what was typed and the same rule, in decimal digits.
 *
 * @example
 * ```ts
 * const rate = rateOfText(values.rate, (problem) => new UsageError('--rate', problem));
 * ```
 */
export function rateOfText(text: string, refuse: (problem: string) => Error, reason?: string): number {
  const rate = decimalNumber(text);
  if (rateProblem(rate) === undefined) return rate;
  throw refuse(`got ${JSON.stringify(text)}; allowed: ${rateAllowed(reason)}, in decimal digits, e.g. 2.5`);
}

/**
 * Spaces out work to `perSecond` units per second: `take(n)` resolves when the units taken before
 * have had their share of time (`n` go at once, and push the next take back by `n / perSecond`
 * seconds). Reserving before waiting keeps concurrent callers in line.
 *
 * A caller checks a rate it was given with {@link rateProblem} first, and refuses it with its own
 * options error: a rate this refuses is a caller's fault (a `RangeError`).
 *
 * @example
 * ```ts
 * const limit = new RateLimiter(50);
 * for (const batch of batches) { if (await limit.take(batch.length, signal)) await publish(batch); }
 * ```
 */
export class RateLimiter {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #nextFreeAt = 0;

  constructor(perSecond: number, now: () => number = Date.now, wait: (ms: number, signal?: AbortSignal) => Promise<void> = sleep) {
    const problem = rateProblem(perSecond);
    if (problem !== undefined) throw new RangeError(`Invalid rate: ${problem}`);
    this.#intervalMs = 1000 / perSecond;
    this.#now = now;
    this.#sleep = wait;
  }

  /** Waits until `units` fit; `false` when `signal` aborted first (the units must then not go). */
  async take(units: number, signal?: AbortSignal): Promise<boolean> {
    const now = this.#now();
    const startAt = Math.max(now, this.#nextFreeAt);
    this.#nextFreeAt = startAt + units * this.#intervalMs;
    if (startAt > now) await this.#sleep(startAt - now, signal);
    return signal?.aborted !== true;
  }
}

/** A limiter when a rate is set, otherwise one that never waits. */
export const rateLimiter = (perSecond: number | undefined): Pick<RateLimiter, 'take'> =>
  perSecond === undefined ? { take: async (_units, signal) => signal?.aborted !== true } : new RateLimiter(perSecond);
