import { sleep } from '../backoff.js';
import { errorMessage } from '../error-message.js';
import { LeaseLostError } from './errors.js';
import { HeldLease } from './held-lease.js';
import type { Lease, LeaseStore } from './lease.js';
import { planLeases } from './lease-balance.js';
import { isTransientFailure, retryPauseMs, WAITED_ON_FIRST_PAUSE_MS } from './retries.js';
import { leaseExpiresAfterMs, type ProcessorSettings } from './settings.js';
import { monotonicNow } from './worker-clock.js';

/** What the coordinator tells its worker. */
export interface LeaseEvents {
  /** A lease was taken; start consuming its shard. */
  acquired(held: HeldLease): void;
  /** A held lease was found taken by another worker, or went unrenewed until it could be. */
  lost(held: HeldLease, reason: string): void;
  /** A renewal failed for another reason than a lost lease (throttling, a network error); it is retried. */
  renewFailed?(held: HeldLease, error: unknown): void;
  /**
   * Marking a lease as handed over failed for another reason than a lost lease: `retrying`;
   * `given-up` (not transient, or out of time), the stop going on without the mark; or
   * `not-needed`, every consumer having exited meanwhile (no page is in flight to publish twice).
   */
  handOverFailed?(held: HeldLease, error: unknown, outcome: HandOverOutcome): void;
}

/** What follows a failed hand-over mark (see `LeaseEvents.handOverFailed`). */
export type HandOverOutcome = 'retrying' | 'given-up' | 'not-needed';

/**
 * Holds this worker's leases: renews them every `renewIntervalMs`, and on every scan of the
 * lease table takes free and expired leases and steals towards a fair share. Expiry is judged
 * as the KCL does, from this worker's own clock, never from another's: a counter that moved
 * between two scans proves its owner alive at the earlier scan's start. A lease is taken on the
 * first scan from which that proof is older than `failoverMs` minus one scan interval, so a
 * dead owner's lease is taken at most `failoverMs` (plus the scan's own duration) after its last
 * write. A live owner looks dead only if two of its writes land more than `failoverMs` − 2 ×
 * `leaseScanIntervalMs` apart; the settings keep `renewIntervalMs` + 2 × `leaseScanIntervalMs`
 * within 70 % of `failoverMs`, which leaves the rest for write latency and slow scans. A scan
 * that follows a failed one dates a counter change to its own start instead (the write may have
 * landed just before it), so after failed scans a lease is taken late, never early.
 *
 * Only a lost lease (a failed write condition) is lost at once. Any other failed renewal is
 * retried until the lease could have expired in another worker's eyes (`failoverMs` − 2 ×
 * `leaseScanIntervalMs` after the last successful write was issued), and only then given up.
 *
 * @example
 * ```ts
 * const coordinator = new LeaseCoordinator(store, 'worker-1', settings, { acquired, lost });
 * await coordinator.scan();
 * await coordinator.renewAll();
 * ```
 */
export class LeaseCoordinator {
  readonly held = new Map<string, HeldLease>();
  private readonly seen = new Map<string, { counter: number; at: number }>();
  /** Held leases with a renewal under way. */
  private readonly renewing = new Set<HeldLease>();
  /** Held leases already reported lost. */
  private readonly reportedLost = new WeakSet<HeldLease>();
  private snapshot: readonly Lease[] = [];

  constructor(
    private readonly store: LeaseStore,
    readonly workerId: string,
    private readonly settings: ProcessorSettings,
    private readonly events: LeaseEvents,
    private readonly now: () => number = monotonicNow,
  ) {}

  /** The lease table as of the last scan. */
  get leases(): readonly Lease[] {
    return this.snapshot;
  }

  /**
   * Reads the lease table, notes counter movements, and takes or steals what the plan says.
   * `read` is called once the table was read. A take that fails (a throttled write) does not stop
   * the others; the first such failure is thrown once all were tried.
   */
  async scan(read?: () => void): Promise<void> {
    const leases = await this.store.list();
    read?.();
    // A counter seen to move (or a lease seen for the first time) is dated to the end of the read:
    // the owner issued its write before then, however long the read (or the one before) took, so
    // the lease is never judged expired before the owner itself gives it up.
    const now = this.now();
    const keys = new Set<string>();
    for (const lease of leases) {
      keys.add(lease.leaseKey);
      const seen = this.seen.get(lease.leaseKey);
      if (seen === undefined || seen.counter !== lease.leaseCounter)
        this.seen.set(lease.leaseKey, { counter: lease.leaseCounter, at: now });
    }
    for (const key of this.seen.keys()) if (!keys.has(key)) this.seen.delete(key);
    this.snapshot = leases;
    for (const lease of leases) {
      const held = this.held.get(lease.leaseKey);
      if (held !== undefined && lease.leaseOwner !== this.workerId)
        this.lose(held, `the lease table shows owner ${lease.leaseOwner ?? '(none)'}`);
    }
    const plan = planLeases({
      leases,
      me: this.workerId,
      held: new Set(this.held.keys()),
      isExpired: (lease) => this.isExpired(lease, now),
      maxSteal: this.settings.maxLeasesToStealAtOnce,
    });
    let failure: { error: unknown } | undefined;
    for (const lease of [...plan.take, ...plan.steal]) {
      const issuedAt = this.now();
      let taken: Lease | undefined;
      try {
        taken = await this.store.take(lease, this.workerId);
      } catch (error) {
        failure ??= { error };
        continue;
      }
      if (taken === undefined) continue;
      this.seen.set(taken.leaseKey, { counter: taken.leaseCounter, at: this.now() });
      const held = new HeldLease(this.store, this.workerId, taken, this.now, issuedAt);
      this.held.set(taken.leaseKey, held);
      this.events.acquired(held);
    }
    if (failure !== undefined) throw failure.error;
  }

  /**
   * Renews every held lease whose renewal from an earlier call is not still under way (a write
   * the SDK retries through throttling takes seconds: it must not hold the others' back). A lease
   * found taken is lost; one whose renewal failed otherwise is kept, unless it went unrenewed until
   * another worker may take it. Resolves `false` when a renewal should be retried soon, `true`
   * otherwise.
   */
  async renewAll(): Promise<boolean> {
    const due = [...this.held.values()].filter((held) => !this.renewing.has(held));
    const renewed = await Promise.all(
      due.map(async (held) => {
        this.renewing.add(held);
        try {
          await held.renew();
          return true;
        } catch (error) {
          if (error instanceof LeaseLostError || held.lost) {
            // Dropped before the renewal's turn (its consumer gave it up): that is why, not a lease taken.
            this.lose(held, held.lostBecause ?? errorMessage(error));
            return true;
          }
          const unrenewedMs = this.now() - held.writtenAt;
          if (unrenewedMs >= this.expiresAfterMs()) {
            this.lose(held, `not renewed for ${unrenewedMs} ms, so another worker may take it: ${errorMessage(error)}`);
            return true;
          }
          this.events.renewFailed?.(held, error);
          return false;
        } finally {
          this.renewing.delete(held);
        }
      }),
    );
    return renewed.every(Boolean);
  }

  /**
   * Marks every held lease as being handed over (the worker is stopping), so that balancing steals
   * none before its release. A mark that fails for a transient reason (throttled, a server or
   * network error) is retried with back-off while the lease is still held and not yet released,
   * until `ended` aborts (every consumer has exited: the leases left are released at once), and
   * no later than `handOffTimeoutMs` after the call: each failure is reported, the last one as given
   * up (the lease may then be stolen before its release, a duplicate of the page in flight at most),
   * or as not needed when every consumer had exited by then (no page is left in flight).
   * One that finds the lease taken (a failed condition) loses it, as any lease write does, and is
   * not retried.
   */
  async handOverAll(ended?: AbortSignal): Promise<void> {
    const deadline = this.now() + this.settings.handOffTimeoutMs;
    await Promise.all([...this.held.values()].map((held) => this.handOver(held, deadline, ended)));
  }

  private async handOver(held: HeldLease, deadline: number, ended: AbortSignal | undefined): Promise<void> {
    const isEnded = (): boolean => ended?.aborted === true;
    for (let retry = 1; ; retry++) {
      try {
        // `false`: released or lost before the mark's turn, the loss reported where it was found.
        await held.handOver();
        return;
      } catch (error) {
        if (error instanceof LeaseLostError || held.lost) {
          this.lose(held, held.lostBecause ?? errorMessage(error));
          return;
        }
        const pause = retryPauseMs(retry, this.settings.retryMaxDelayMs, WAITED_ON_FIRST_PAUSE_MS);
        const retrying = isTransientFailure(error) && this.now() + pause < deadline;
        const outcome: HandOverOutcome = isEnded() ? 'not-needed' : retrying ? 'retrying' : 'given-up';
        this.events.handOverFailed?.(held, error, outcome);
        if (outcome !== 'retrying') return;
        await sleep(pause, ended === undefined ? held.dropped : AbortSignal.any([held.dropped, ended]));
        if (isEnded() || held.lost) return;
      }
    }
  }

  /**
   * How long, at most, until a held lease could have expired in another worker's eyes if not
   * written again; `Infinity` when none is held. A renewal retried later than that would give the
   * lease up only after another worker may have taken it. A lease with a renewal under way is left
   * out: that renewal gives it up if it fails once the lease could have expired.
   */
  msUntilExpiry(): number {
    let soonest = Number.POSITIVE_INFINITY;
    for (const held of this.held.values()) {
      if (!this.renewing.has(held)) soonest = Math.min(soonest, held.writtenAt + this.expiresAfterMs());
    }
    return soonest - this.now();
  }

  /** Forgets a lease this worker no longer works on (finished or lost). */
  forget(held: HeldLease): void {
    if (this.held.get(held.leaseKey) === held) this.held.delete(held.leaseKey);
  }

  /**
   * Drops a held lease, forgets it and reports it lost, once: wherever the loss is found first (a
   * scan, a renewal, the hand-over mark, or its consumer giving it up), later finds of it are quiet.
   */
  lose(held: HeldLease, reason: string): void {
    held.drop(reason);
    this.forget(held);
    if (this.reportedLost.has(held)) return;
    this.reportedLost.add(held);
    this.events.lost(held, reason);
  }

  /** How long after a holder's last write another worker may judge its lease expired, at the soonest. */
  private expiresAfterMs(): number {
    return leaseExpiresAfterMs(this.settings);
  }

  private isExpired(lease: Lease, now: number): boolean {
    if (lease.leaseOwner === undefined) return true;
    if (lease.leaseOwner === this.workerId && this.held.has(lease.leaseKey)) return false;
    const seen = this.seen.get(lease.leaseKey);
    return seen !== undefined && now - seen.at >= this.expiresAfterMs();
  }
}
