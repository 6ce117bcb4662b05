import { errorName } from './aws/error-name.js';
import { type BackoffOptions, backoffDelay, sleep } from './backoff.js';
import { OutboxError } from './errors.js';
import { describeError, requestErrorKind } from './relay/failure-kind.js';

/**
 * How often the redrive (and the archive replay) tries a read again (a stream range, a shard listing, an S3 object) before
 * it gives up on it for this run. The SDK retries a few times on its own; this rides out a longer
 * spell of throttling, which would otherwise hold back a whole shard.
 */
export const REDRIVE_READ_RETRY: BackoffOptions = { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 5_000 };

/** The outcome of a read tried up to `maxAttempts` times. */
export type Retried<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown; readonly attempts: number; readonly reason: string };

// DynamoDB Streams throttles with LimitExceededException, which the publish classifier does not
// know; an iterator that expired mid-read is solved by reading the range again.
const STREAM_TRANSIENT = new Set(['LimitExceededException', 'ExpiredIteratorException', 'InternalServerError']);
// Retrying these cannot help: the records are gone, or the request is wrong.
const STREAM_PERMANENT = new Set([
  'TrimmedDataAccessException',
  'ResourceNotFoundException',
  'ValidationException',
  'AccessDeniedException',
]);

/**
 * Whether an AWS read error may go away when tried again: throttling, a server error or the
 * network. The library's own errors (an incomplete stream range, say) state a fact and are final.
 */
export function isTransientReadError(error: unknown): boolean {
  if (error instanceof OutboxError) return false;
  const name = errorName(error);
  if (STREAM_TRANSIENT.has(name)) return true;
  if (STREAM_PERMANENT.has(name)) return false;
  return requestErrorKind(error) === 'transient';
}

/**
 * Runs `read`, and again after a backoff while it fails with a transient error, at most
 * `backoff.maxAttempts` times in all. Never throws: a read that still fails is a result with the
 * last error and a reason to report.
 *
 * @example
 * ```ts
 * const listed = await retried(() => source.listShards(), REDRIVE_READ_RETRY);
 * if (!listed.ok) console.warn(listed.reason);
 * ```
 */
export async function retried<T>(
  read: () => Promise<T>,
  backoff: BackoffOptions,
  isTransient: (error: unknown) => boolean = isTransientReadError,
): Promise<Retried<T>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await read() };
    } catch (error) {
      const transient = isTransient(error);
      if (!transient || attempt >= backoff.maxAttempts) {
        const tries = transient ? ` (still failing after ${attempt} attempts)` : '';
        return { ok: false, error, attempts: attempt, reason: `${describeError(error)}${tries}` };
      }
      await sleep(backoffDelay(backoff, attempt));
    }
  }
}
