import { backoffDelay } from '../backoff.js';
import { describeError } from '../relay/failure-kind.js';
import { IncompleteShardListingError, ProcessorStartError, StreamCallTimeoutError } from './errors.js';
import type { WorkerClock } from './worker-clock.js';

/**
 * Throttling as DynamoDB and DynamoDB Streams name it: `LimitExceededException` (too many
 * `DescribeStream` calls) and `ProvisionedThroughputExceededException` come as plain 400s, which
 * the relay's request classification would call permanent.
 */
const THROTTLED = /throttl|limitexceeded|throughputexceeded|toomanyrequests|slowdown/i;
/** Timeouts and connections refused or cut: the next attempt may well get through. */
const NETWORK = /timeout|abort|^e(conn|pipe|hostunreach|netunreach|ai_again|notfound)|socket|networking/i;

/**
 * Whether a failed start-up step (or another request: a lease write) may succeed if tried again: throttling, a server or network
 * error, a timeout, an error the SDK calls retryable, an incomplete shard listing. Anything else
 * is the deployment's fault and never goes away by waiting: a stream or lease table not found,
 * access denied, a malformed request, no credentials or region, a bug.
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

/** What a start-up step needs from its worker. */
export interface StartStepContext {
  /** Its sleeps end, and the step is given up, when the worker stops. */
  readonly clock: WorkerClock;
  /** The largest pause between attempts (`retryMaxDelayMs`). */
  readonly maxDelayMs: number;
  /** Each transient failure, before the pause. */
  failed(message: string, error: unknown): void;
}

/**
 * Runs a start-up step (the first shard sync, the first lease scan) until it succeeds or the
 * worker stops, pausing 50 ms doubling up to `maxDelayMs` (full jitter) between attempts, as
 * the periodic sync and scan would retry it on their next tick. A failure that is not transient
 * fails the start at once with a `ProcessorStartError`: retried for ever, a wrong stream ARN or a
 * missing permission would leave a task that looks alive and does nothing, while a task that
 * exits is restarted by ECS with back-off and stopped by the deployment's circuit breaker.
 *
 * @example
 * ```ts
 * await retryStartStep('the first shard sync', () => syncShards(source, leases), { clock, maxDelayMs: 2000, failed: log });
 * ```
 */
export async function retryStartStep(what: string, step: () => Promise<unknown>, context: StartStepContext): Promise<void> {
  const backoff = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 50, maxDelayMs: context.maxDelayMs };
  for (let retry = 1; !context.clock.stopped; retry++) {
    try {
      await step();
      return;
    } catch (error) {
      if (!isTransientFailure(error)) throw new ProcessorStartError(what, describeError(error), { cause: error });
      context.failed(`starting: ${what} failed; retrying`, error);
      await context.clock.sleep(backoffDelay(backoff, retry));
    }
  }
}
