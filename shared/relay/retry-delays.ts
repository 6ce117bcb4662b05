/** Delay bounds of the relay's in-process retries. */
export interface RetryDelays {
  /** Upper bound of the first delay, in ms. @default 50 */
  readonly baseDelayMs?: number;
  /** Upper bound of any delay, in ms. @default 2000 */
  readonly maxDelayMs?: number;
}

/** Full backoff options from the relay's settings. */
export const retryBackoff = (maxAttempts: number, delays: RetryDelays = {}) => ({
  maxAttempts,
  baseDelayMs: delays.baseDelayMs ?? 50,
  maxDelayMs: delays.maxDelayMs ?? 2000,
});
