import type { HeldLease } from './held-lease.js';
import { leaseExpiresAfterMs, type ProcessorSettings } from './settings.js';

/** Ends one page's publishing; `dispose()` once the page is done. */
export interface PublishCutoff {
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * Aborts a page's publishing once its lease may have expired in another worker's eyes
 * (`leaseExpiresAfterMs` after its last successful write, which renewals during the page push
 * back; or once the lease is lost), or once the worker has been stopping for `handOffTimeoutMs`.
 * Before that, a page runs as long as SNS makes it: the lease is renewed meanwhile.
 *
 * @example
 * ```ts
 * const cutoff = publishCutoff(held, settings, () => context.stopping());
 * try { await relay.relay(records, { signal: cutoff.signal }); } finally { cutoff.dispose(); }
 * ```
 */
export function publishCutoff(held: HeldLease, settings: ProcessorSettings, stopping: () => boolean): PublishCutoff {
  const controller = new AbortController();
  let stoppingSince: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    const now = held.now();
    const leaseLeft = held.writtenAt + leaseExpiresAfterMs(settings) - now;
    if (held.lost || leaseLeft <= 0) {
      controller.abort(new Error(`the lease of ${held.leaseKey} may have expired: not written for ${now - held.writtenAt} ms`));
      return;
    }
    if (stoppingSince === undefined && stopping()) stoppingSince = now;
    const handOffLeft = stoppingSince === undefined ? Number.POSITIVE_INFINITY : stoppingSince + settings.handOffTimeoutMs - now;
    if (handOffLeft <= 0) {
      controller.abort(new Error(`the worker has been stopping for ${now - stoppingSince!} ms (handOffTimeoutMs)`));
      return;
    }
    // Looked at again when the lease would expire, and meanwhile as often as leases are scanned, to notice a stop.
    timer = setTimeout(check, Math.max(1, Math.min(leaseLeft, handOffLeft, settings.leaseScanIntervalMs)));
  };
  check();
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}
