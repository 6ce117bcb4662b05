import { sharedAbortController } from '../abort.js';
import { sleep } from '../backoff.js';

/**
 * Sleeps that end early when the worker stops, so a stopping worker never waits out a
 * back-off or a scan interval before handing its leases over.
 */
export class WorkerClock {
  /** Every consumer's sleeps listen to it: one listener per shard held, or more. */
  private readonly abort = sharedAbortController();

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  stop(): void {
    this.abort.abort();
  }

  sleep(ms: number): Promise<void> {
    return sleep(ms, this.abort.signal);
  }
}
