import type { ConsumerContext } from './consumer-context.js';
import type { HeldLease } from './held-lease.js';
import { leaseExpiresAfterMs, type ProcessorSettings } from './settings.js';

/** Ends one page's publishing; `dispose()` once the page is done. */
export interface PublishCutoff {
  /** Aborted at the cut-off, with an `Error` saying why: ends the requests in flight. */
  readonly signal: AbortSignal;
  /**
   * Whether a request may still be sent, judged by the clock now: the timer that aborts `signal`
   * may run late (after a blocked event loop, answers already waiting are handled first). Aborts
   * `signal` when it finds the cut-off reached.
   */
  mayPublish(): boolean;
  /** Why publishing was cut off, once it was. */
  readonly reason: string | undefined;
  dispose(): void;
}

/**
 * Ends a page's publishing the moment its lease is dropped (found taken by another worker, or
 * given up), once it may have expired in another worker's eyes (`leaseExpiresAfterMs` after its
 * last successful write, which renewals during the page push back), or once the worker has been
 * stopping for `handOffTimeoutMs`, counted from the moment the stop began. Before that, a page
 * runs as long as SNS makes it: the lease is renewed meanwhile. The relay asks `mayPublish()`
 * before every request; the lease's `dropped` signal, the stop and a timer abort `signal` for the
 * requests in flight.
 *
 * @example
 * ```ts
 * const cutoff = publishCutoff(held, settings, context);
 * try {
 *   await relay.relay(records, { signal: cutoff.signal, mayPublish: () => cutoff.mayPublish() });
 * } finally {
 *   cutoff.dispose();
 * }
 * ```
 */
export function publishCutoff(
  held: HeldLease,
  settings: ProcessorSettings,
  worker: Pick<ConsumerContext, 'stopping' | 'stoppingFor'>,
): PublishCutoff {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  /** Aborts `signal` once the cut-off is reached; until then, the ms left before it may be. */
  const check = (): number | undefined => {
    if (controller.signal.aborted) return undefined;
    const now = held.now();
    const leaseLeft = held.writtenAt + leaseExpiresAfterMs(settings) - now;
    if (held.lost) {
      controller.abort(new Error(`the lease of ${held.leaseKey} is no longer held: ${held.lostBecause ?? 'lost'}`));
      return undefined;
    }
    if (leaseLeft <= 0) {
      controller.abort(new Error(`the lease of ${held.leaseKey} may have expired: not written for ${Math.round(now - held.writtenAt)} ms`));
      return undefined;
    }
    const stoppingFor = worker.stoppingFor();
    const handOffLeft = stoppingFor === undefined ? Number.POSITIVE_INFINITY : settings.handOffTimeoutMs - stoppingFor;
    if (handOffLeft <= 0) {
      controller.abort(new Error(`the worker has been stopping for ${Math.round(stoppingFor!)} ms (handOffTimeoutMs)`));
      return undefined;
    }
    return Math.min(leaseLeft, handOffLeft);
  };
  const watch = (): void => {
    clearTimeout(timer);
    const left = check();
    // Looked at again when the lease would expire (renewals meanwhile push that back: looked at
    // then, it schedules the next look) or the hand-off time is up, and at once when the stop
    // begins (its time is counted from then) or the lease is dropped (found taken, or given up).
    if (left !== undefined) timer = setTimeout(watch, Math.max(1, left));
  };
  const dispose = (): void => {
    clearTimeout(timer);
    worker.stopping.removeEventListener('abort', watch);
    held.dropped.removeEventListener('abort', watch);
  };
  worker.stopping.addEventListener('abort', watch, { once: true });
  held.dropped.addEventListener('abort', watch, { once: true });
  watch();
  return {
    signal: controller.signal,
    mayPublish: () => {
      if (check() !== undefined) return true;
      dispose();
      return false;
    },
    get reason() {
      const { reason } = controller.signal;
      return !controller.signal.aborted ? undefined : reason instanceof Error ? reason.message : String(reason);
    },
    dispose,
  };
}
