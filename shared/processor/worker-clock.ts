import { sharedAbortController } from '../abort.js';
import { sleep } from '../backoff.js';

/**
 * Milliseconds on a clock that only moves forward at a steady pace (epoch ms at the process's
 * start, then `performance.now()`): every duration the worker measures within itself (lease
 * expiry, health, intervals) is read on it, since a wall clock stepped by NTP would make leases
 * look expired (a step forward: live owners' leases taken) or alive (a step back: a cut-off owner
 * publishing on), and a stuck worker healthy or a healthy one stuck.
 */
export const monotonicNow = (): number => performance.timeOrigin + performance.now();

/**
 * Sleeps that end early when the worker stops, so a stopping worker never waits out a
 * back-off or a scan interval before handing its leases over.
 */
export class WorkerClock {
  /** Every consumer's sleeps listen to it: one listener per shard held, or more. */
  private readonly abort = sharedAbortController();
  private stoppedAt: number | undefined;

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Aborted once the worker begins stopping. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** How long ago the worker began stopping, in ms on the monotonic clock; `undefined` while it runs. */
  stoppedFor(): number | undefined {
    return this.stoppedAt === undefined ? undefined : monotonicNow() - this.stoppedAt;
  }

  stop(): void {
    this.stoppedAt ??= monotonicNow();
    this.abort.abort();
  }

  /** Resolves after `ms`, or at once when the worker stops or `signal` (if given) aborts. */
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal === undefined) return sleep(ms, this.abort.signal);
    if (signal.aborted || this.stopped) return;
    // Either ends the wait; both listeners go with it, so a long-lived signal gathers none.
    const either = new AbortController();
    const end = (): void => either.abort();
    signal.addEventListener('abort', end, { once: true });
    this.abort.signal.addEventListener('abort', end, { once: true });
    try {
      await sleep(ms, either.signal);
    } finally {
      signal.removeEventListener('abort', end);
      this.abort.signal.removeEventListener('abort', end);
    }
  }
}
