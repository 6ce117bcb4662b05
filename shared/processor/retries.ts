import { backoffDelay } from '../backoff.js';
import { IncompleteShardListingError, StreamCallTimeoutError } from './errors.js';

/**
 * Throttling as DynamoDB and DynamoDB Streams name it: `LimitExceededException` (too many
 * `DescribeStream` calls) and `ProvisionedThroughputExceededException` come as plain 400s, which
 * the relay's request classification would call permanent.
 */
const THROTTLED = /throttl|limitexceeded|throughputexceeded|toomanyrequests|slowdown/i;
/** Timeouts and connections refused or cut: the next attempt may well get through. */
const NETWORK = /timeout|abort|^e(conn|pipe|hostunreach|netunreach|ai_again|notfound)|socket|networking/i;

/**
 * Whether a failed request of the processor (a start-up step, a lease write) may succeed if tried
 * again: throttling, a server or network error, a timeout, an error the SDK calls retryable, an
 * incomplete shard listing. Anything else is the deployment's fault and never goes away by
 * waiting: a stream or lease table not found, access denied, a malformed request, no credentials
 * or region, a bug.
 */
export function isTransientFailure(error: unknown): boolean {
  if (error instanceof StreamCallTimeoutError || error instanceof IncompleteShardListingError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $retryable, $metadata } = error as {
    name?: unknown;
    code?: unknown;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  const status = $metadata?.httpStatusCode;
  if ($retryable !== undefined || (status !== undefined && (status >= 500 || status === 429))) return true;
  return [name, code].some((value) => typeof value === 'string' && (THROTTLED.test(value) || NETWORK.test(value)));
}

/**
 * The bound of the first pause for what a start or a stop waits on (a start-up step, a hand-over
 * mark), in ms: short, as the worker is not working meanwhile.
 */
export const WAITED_ON_FIRST_PAUSE_MS = 50;
/** The bound of the first pause for a running shard's reads, pages and checkpoints, in ms. */
export const SHARD_FIRST_PAUSE_MS = 100;

/**
 * The processor's one back-off (the shared one, full jitter): before retry number `retry` (1 for
 * the first), a random pause up to `firstPauseMs` × 2^(`retry` − 1), capped at `maxDelayMs`
 * (`retryMaxDelayMs`).
 */
export function retryPauseMs(retry: number, maxDelayMs: number, firstPauseMs: number = SHARD_FIRST_PAUSE_MS): number {
  return backoffDelay({ maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: firstPauseMs, maxDelayMs }, retry);
}
