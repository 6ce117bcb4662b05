import { describeError } from '../relay/failure-kind.js';
import { ProcessorStartError } from './errors.js';
import { isTransientFailure, retryPauseMs, WAITED_ON_FIRST_PAUSE_MS } from './retries.js';
import type { WorkerClock } from './worker-clock.js';

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
  for (let retry = 1; !context.clock.stopped; retry++) {
    try {
      await step();
      return;
    } catch (error) {
      if (!isTransientFailure(error)) throw new ProcessorStartError(what, describeError(error), { cause: error });
      context.failed(`starting: ${what} failed; retrying`, error);
      await context.clock.sleep(retryPauseMs(retry, context.maxDelayMs, WAITED_ON_FIRST_PAUSE_MS));
    }
  }
}
