import { RedriveOptionsError } from './errors.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Spaces out work to at most `perSecond` units per second: `take(n)` resolves when `n` more units
 * fit. Reserving before waiting keeps concurrent callers in line.
 *
 * @example
 * ```ts
 * const limit = new RateLimiter(50);
 * for (const batch of batches) { await limit.take(batch.length); await publish(batch); }
 * ```
 */
export class RateLimiter {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #nextFreeAt = 0;

  constructor(perSecond: number, now: () => number = Date.now, wait: (ms: number) => Promise<void> = sleep) {
    if (!Number.isFinite(perSecond) || perSecond <= 0) {
      throw new RedriveOptionsError('ratePerSecond', `got ${perSecond}; allowed: a positive number of messages per second`);
    }
    this.#intervalMs = 1000 / perSecond;
    this.#now = now;
    this.#sleep = wait;
  }

  async take(units: number): Promise<void> {
    const now = this.#now();
    const startAt = Math.max(now, this.#nextFreeAt);
    this.#nextFreeAt = startAt + units * this.#intervalMs;
    if (startAt > now) await this.#sleep(startAt - now);
  }
}

/** A limiter when a rate is set, otherwise one that never waits. */
export const rateLimiter = (perSecond: number | undefined): Pick<RateLimiter, 'take'> =>
  perSecond === undefined ? { take: async () => {} } : new RateLimiter(perSecond);
