/** Bounded exponential backoff with full jitter, as the AWS SDKs do it. */
export interface BackoffOptions {
  /** Delay cap of the first retry, in ms. @default 50 */
  readonly baseDelayMs?: number;
  /** Largest delay, in ms. @default 2000 */
  readonly maxDelayMs?: number;
  /** Source of randomness in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/**
 * Delay before retry number `retry` (1 for the first retry): a random value up to
 * `min(maxDelayMs, baseDelayMs * 2^(retry-1))`, so concurrent relays do not retry in step.
 */
export function backoffDelay(retry: number, options: BackoffOptions = {}): number {
  const base = options.baseDelayMs ?? 50;
  const max = options.maxDelayMs ?? 2000;
  const random = options.random ?? Math.random;
  return Math.floor(random() * Math.min(max, base * 2 ** Math.max(0, retry - 1)));
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
