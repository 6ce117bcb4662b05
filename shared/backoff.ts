/** Bounded retry with exponential backoff and full jitter. */
export interface BackoffOptions {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** Upper bound of the first delay, in ms. */
  readonly baseDelayMs: number;
  /** Upper bound of any delay, in ms. */
  readonly maxDelayMs: number;
}

/**
 * The delay before retry number `retry` (1 for the first retry): a uniformly random time up to
 * `min(maxDelayMs, baseDelayMs * 2^(retry-1))`, so contending writers spread out ("full jitter").
 */
export function backoffDelay(options: BackoffOptions, retry: number, random: () => number = Math.random): number {
  const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * cap);
}

/** Waits `ms`, or less if `signal` aborts first (it never rejects). */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
