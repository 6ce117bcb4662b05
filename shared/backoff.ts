/** Bounded retry with exponential backoff and full jitter. */
export interface BackoffOptions {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** Upper bound of the first delay, in ms. */
  readonly baseDelayMs: number;
  /** Upper bound of any delay, in ms. */
  readonly maxDelayMs: number;
}

/** Largest delay bound (`baseDelayMs`, `maxDelayMs`) a retry takes, in ms: a minute. */
export const MAX_BACKOFF_DELAY_MS = 60_000;
/** What a delay bound may be, as a refusal says it. */
export const BACKOFF_DELAY_ALLOWED = `milliseconds from 0 to ${MAX_BACKOFF_DELAY_MS}`;

/**
 * Whether `value` is a delay bound a retry can take ({@link BACKOFF_DELAY_ALLOWED}): a negative or
 * NaN one would make every delay NaN, which a timer takes for none, so retries would not back off.
 *
 * @example
 * ```ts
 * isBackoffDelay(Number.NaN); // false
 * ```
 */
export const isBackoffDelay = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_BACKOFF_DELAY_MS;

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
