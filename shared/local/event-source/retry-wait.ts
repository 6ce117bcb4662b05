/** The wait before the first retry of a failed batch, in ms; it doubles with each retry after that. */
export const RETRY_BASE_DELAY_MS = 10;
/** The longest wait before a retry, in ms: a failing batch is retried at most as often as an empty shard is polled (4×/s). */
export const RETRY_MAX_DELAY_MS = 250;

/**
 * How long a lane waits after a failed invocation before it invokes again: on AWS a failing
 * batch blocks its shard while the retries run through the Lambda service; here a handler that
 * fails at once, without I/O, would otherwise be retried in a loop of microtasks, in which no
 * timer, I/O or `stop()` ever runs. `retries` is the lane's count of failed invocations of its
 * head batch: 0 (bisected halves, or a new batch after one was given up on) is no delay, only a
 * turn of the event loop; a retry of the same records backs off from
 * {@link RETRY_BASE_DELAY_MS}, doubling, up to {@link RETRY_MAX_DELAY_MS}. A batch that succeeds
 * never waits.
 *
 * @example
 * ```ts
 * if (failed) await context.sleep(retryWaitMs(lane.retries));
 * ```
 */
export function retryWaitMs(retries: number): number {
  if (retries <= 0) return 0;
  return Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** Math.min(retries - 1, 30));
}
