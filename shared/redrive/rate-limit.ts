import { sleep } from '../backoff.js';
import { RedriveOptionsError } from './errors.js';

/**
 * The slowest rate allowed, in events per second. A batch waits for its whole share of the rate
 * before it is republished, while its messages stay received (the drain renews their visibility
 * through the wait); much slower, and one batch (10 messages, or an on-failure record's many
 * events) would hold its messages, and the run, for hours.
 */
export const MIN_RATE_PER_SECOND = 1;

/**
 * Spaces out work to at most `perSecond` units per second: `take(n)` resolves when `n` more units
 * fit. Reserving before waiting keeps concurrent callers in line.
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
    if (!Number.isFinite(perSecond) || perSecond < MIN_RATE_PER_SECOND) {
      throw new RedriveOptionsError(
        'ratePerSecond',
        `got ${perSecond}; allowed: at least ${MIN_RATE_PER_SECOND} event per second (slower, one batch would hold its messages for hours)`,
      );
    }
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
