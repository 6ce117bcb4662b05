import { sharedAbortController } from '../abort.js';
import { backoffDelay, sleep } from '../backoff.js';
import { describeCause, PollError, PollerStoppedError, type PollResult } from './poll-errors.js';
import { DEFAULT_POLLER_BACKOFF, POLL_KEYS, validatePollerOptions, validateStopOptions } from './poll-options.js';
import { type PollOptions, pollQueue } from './sqs-poller.js';

/** Options of `createPoller`: those of `pollOnce`, plus how many loops receive and how failures are backed off and reported. */
export interface PollerOptions extends PollOptions {
  /**
   * Receive loops, each taking a batch, processing it and deleting what was acknowledged before
   * it receives again: at most this many batches are in flight, so at most `concurrency` ×
   * the consumer's own `concurrency` handlers run at once. @default 1
   */
  readonly concurrency?: number;
  /** Long-poll wait, 1–20 s (short polls in a loop would call SQS without pause on an empty queue). @default 20 */
  readonly waitTimeSeconds?: number;
  /**
   * The wait after a failed poll (or a batch whose every message failed), per loop: a random time
   * between half and all of `min(maxDelayMs, baseDelayMs × 2^(n−1))` after the n-th failure in a
   * row; a poll that goes through starts again from the first. @default { baseDelayMs: 500, maxDelayMs: 30000 }
   */
  readonly backoff?: { readonly baseDelayMs?: number; readonly maxDelayMs?: number };
  /**
   * Called with every batch the consumer processed (not with empty receives), in its loop, before
   * it receives again: once per batch, also when its delete then failed (`acknowledged` then
   * counts only what SQS confirmed deleted). An error it throws goes to `onError` (phase `on-batch`).
   */
  readonly onBatch?: (result: PollResult) => void | Promise<void>;
  /**
   * Called with every failure, as a {@link PollError} naming its phase; the poller backs off and
   * goes on, whatever the error: call `stop()` from here to end it on an error you deem permanent.
   * @default logs the error with `console.error`
   */
  readonly onError?: (error: PollError) => void;
}

/** How `stop()` ended: every batch in flight finished (and its deletes), or the wait ran out first. */
export type PollerStopResult =
  | { readonly status: 'drained' }
  /** `inFlight`: batches still running; their unacknowledged messages come back after their visibility timeout. */
  | { readonly status: 'timed-out'; readonly inFlight: number };

/** A long-running SQS poller; see {@link createPoller}. */
export interface Poller {
  /** Starts the receive loops and returns at once; again while running, it does nothing. */
  start(): void;
  /**
   * Stops receiving (a long poll under way is cut short) and waits until every batch in flight
   * has been processed and its acknowledged messages deleted, or `timeoutMs` has passed
   * (whole ms from 1 to 43200000, SQS's longest visibility timeout; another is refused with a
   * `ConsumerOptionsError` and the poller goes on).
   * @default timeoutMs 30000
   */
  stop(options?: { readonly timeoutMs?: number }): Promise<PollerStopResult>;
  /** Between `start()` and `stop()`. */
  readonly running: boolean;
}

const DEFAULT_STOP_TIMEOUT_MS = 30_000;

/** A batch in which no message was handled: every one failed or was skipped behind a failure. */
const madeNoProgress = (result: PollResult): boolean =>
  result.received > 0 && result.result.outcomes.every((o) => o.status === 'failed' || o.status === 'skipped');

/**
 * Polls an SQS queue for as long as the process runs, with the semantics of {@link pollOnce} for
 * each batch: `concurrency` receive loops, each receives a batch, has the consumer process it and
 * deletes what it acknowledged. A failure (a receive, a delete, the consumer throwing) never
 * ends a loop: it is reported to `onError` with its phase, and the loop backs off with jitter.
 * So does a batch whose every message failed (a downstream that is down), sparing the messages
 * receives on their way to the DLQ. Options are checked at once (`ConsumerOptionsError`).
 *
 * @example
 * ```ts
 * const poller = createPoller({
 *   sqs: new SQSClient({}),
 *   queueUrl,
 *   consumer,
 *   concurrency: 2,
 *   onBatch: ({ received, acknowledged }) => logger.info('batch', { received, acknowledged }),
 *   onError: (error) => logger.warn(error.message, { phase: error.phase }),
 * });
 * poller.start();
 * process.once('SIGTERM', async () => {
 *   const { status } = await poller.stop({ timeoutMs: 25_000 });
 *   logger.info(`poller stopped: ${status}`);
 * });
 * ```
 */
export function createPoller(options: PollerOptions): Poller {
  validatePollerOptions(options);
  const pollOptions = Object.fromEntries(Object.entries(options).filter(([key]) => POLL_KEYS.includes(key))) as unknown as PollOptions;
  const poll: PollOptions = { ...pollOptions, waitTimeSeconds: options.waitTimeSeconds ?? 20 };
  const backoff = { maxAttempts: Number.POSITIVE_INFINITY, ...DEFAULT_POLLER_BACKOFF, ...options.backoff };
  const { queueUrl } = options;
  // Each receive loop's requests and waits listen to it at once: `concurrency` may be more than Node's 10.
  const abort = sharedAbortController();
  let state: 'new' | 'running' | 'stopped' = 'new';
  let loops: Promise<void>[] = [];
  let inFlight = 0;

  const reportError = (error: PollError): void => {
    try {
      if (options.onError === undefined) console.error(error);
      else options.onError(error);
    } catch (thrown) {
      // The caller's handler failed on the report: both are printed rather than lost.
      console.error(error, thrown);
    }
  };

  const reportBatch = async (result: PollResult): Promise<void> => {
    try {
      await options.onBatch?.(result);
    } catch (error) {
      const message = `${describeCause(error)}; the batch of ${result.received} is done (see batch), and polling goes on`;
      reportError(new PollError('on-batch', queueUrl, `onBatch threw ${message}`, { cause: error, batch: result }));
    }
  };

  const loop = async (): Promise<void> => {
    const { signal } = abort;
    let failures = 0;
    while (!signal.aborted) {
      let failed: boolean;
      try {
        inFlight++;
        const result = await pollQueue(poll, signal);
        if (result.received > 0) await reportBatch(result);
        failed = madeNoProgress(result);
      } catch (error) {
        const pollError = error instanceof PollError ? error : new PollError('process', queueUrl, describeCause(error), { cause: error });
        // A receive cut short by stop() received nothing: not a failure.
        if (signal.aborted && (pollError.phase === 'receive' || pollError.phase === 'queue-attributes')) return;
        if (pollError.batch !== undefined) await reportBatch(pollError.batch);
        reportError(pollError);
        failed = true;
      } finally {
        inFlight--;
      }
      failures = failed ? failures + 1 : 0;
      // Half the cap at least: a failing dependency is given time, whatever the draw.
      if (failed)
        await sleep(
          backoffDelay(backoff, failures, () => 0.5 + Math.random() / 2),
          signal,
        );
    }
  };

  return {
    start() {
      if (state === 'stopped') throw new PollerStoppedError(queueUrl);
      if (state === 'running') return;
      state = 'running';
      loops = Array.from({ length: options.concurrency ?? 1 }, () => loop());
    },
    async stop(stopOptions) {
      validateStopOptions(stopOptions);
      state = 'stopped';
      abort.abort();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<true>((resolve) => {
        timer = setTimeout(() => resolve(true), stopOptions?.timeoutMs ?? DEFAULT_STOP_TIMEOUT_MS);
      });
      const drained = await Promise.race([Promise.all(loops).then(() => false as const), timedOut]);
      clearTimeout(timer);
      return drained === false ? { status: 'drained' } : { status: 'timed-out', inFlight };
    },
    get running() {
      return state === 'running';
    },
  };
}
