import { LeaseLostError } from './errors.js';
import type { FailedAttempts, Lease, LeaseStore } from './lease.js';

/**
 * A lease this worker holds. Renewals, checkpoints and the release all move the counter, so
 * they run one at a time: two writes from the same worker at the same counter would make one
 * fail and look like a lost lease.
 */
export class HeldLease {
  private chain: Promise<unknown> = Promise.resolve();
  private lostReason: string | undefined;
  private lastWrittenAt: number;
  /**
   * When the earliest write since the last one known to succeed was issued, if one failed without
   * the lease being lost (a timeout, a throttle): it may have been applied, its answer lost. A
   * later write that recognises its effect in the table may be seeing that one's, so it is dated
   * no later than this.
   */
  private unconfirmedSince: number | undefined;
  private readonly dropping = new AbortController();

  /**
   * @param now this worker's clock
   * @param writtenAt when the write that took the lease was issued; @default now()
   */
  constructor(
    private readonly store: LeaseStore,
    readonly owner: string,
    private current: Lease,
    readonly now: () => number = Date.now,
    writtenAt = now(),
  ) {
    this.lastWrittenAt = writtenAt;
  }

  get lease(): Lease {
    return this.current;
  }

  get leaseKey(): string {
    return this.current.leaseKey;
  }

  /**
   * When this holder's last successful write (renewal, checkpoint or the take) was issued, by
   * this worker's clock: other workers judge the lease's expiry from no earlier than that.
   */
  get writtenAt(): number {
    return this.lastWrittenAt;
  }

  /** Set once a write found the lease changed, or the worker stopped holding it. */
  get lost(): boolean {
    return this.lostReason !== undefined;
  }

  /** Why the lease is no longer held, once it is not. */
  get lostBecause(): string | undefined {
    return this.lostReason;
  }

  /** Aborted once the lease is no longer held: ends waits that only make sense while it is. */
  get dropped(): AbortSignal {
    return this.dropping.signal;
  }

  /** Marks the lease as no longer held without writing (the worker was halted or another took it). */
  drop(reason: string): void {
    this.lostReason ??= reason;
    this.dropping.abort();
  }

  renew(): Promise<void> {
    return this.write('renew', (lease) => this.store.renew(lease, this.owner));
  }

  checkpoint(checkpoint: string): Promise<void> {
    return this.write('checkpoint', (lease) => this.store.checkpoint(lease, this.owner, checkpoint));
  }

  /** Keeps the failed attempts at the record retried from in the lease, for a worker that takes it over. */
  recordFailure(failed: FailedAttempts): Promise<void> {
    return this.write('recordFailure', (lease) => this.store.recordFailure(lease, this.owner, failed));
  }

  /**
   * Marks the lease as being handed over (the worker is stopping), so that balancing does not steal
   * it before the release. `false` when the lease was no longer held by the time the mark's turn
   * came (released, or a write queued before it found it taken): nothing is written.
   */
  handOver(): Promise<boolean> {
    return this.writeIfHeld('handOver', (lease) => this.store.handOver(lease, this.owner));
  }

  /**
   * Gives the lease up for another worker to take at once; the last write of this holder. `false`
   * when the lease was no longer held by the time the release's turn came (a write queued before it
   * found it taken): nothing is written, and the loss was reported where it was found.
   */
  async release(): Promise<boolean> {
    const released = await this.writeIfHeld('release', async (lease) => {
      await this.store.release(lease, this.owner);
      return lease;
    });
    if (released) this.drop('released');
    return released;
  }

  /** A write, `false` (nothing written) when the lease was no longer held at its turn; a lease the write itself finds lost throws. */
  private async writeIfHeld(operation: string, apply: (lease: Lease) => Promise<Lease>): Promise<boolean> {
    let tried = false;
    try {
      await this.write(operation, (lease) => {
        tried = true;
        return apply(lease);
      });
    } catch (error) {
      if (!tried && error instanceof LeaseLostError) return false;
      throw error;
    }
    return true;
  }

  private write(operation: string, apply: (lease: Lease) => Promise<Lease>): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.lostReason !== undefined) {
        throw new LeaseLostError(this.current.leaseKey, operation, { owner: this.owner, counter: this.current.leaseCounter });
      }
      const issuedAt = this.now();
      try {
        this.current = await this.applyOwn(operation, apply);
        // The table may hold an earlier write's effect, applied when that one was issued.
        this.lastWrittenAt = Math.max(this.lastWrittenAt, this.unconfirmedSince ?? issuedAt);
        this.unconfirmedSince = undefined;
      } catch (error) {
        if (error instanceof LeaseLostError) this.drop(error.message);
        else this.unconfirmedSince ??= issuedAt;
        throw error;
      }
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /**
   * Applies a write. An earlier write of this holder that failed without an answer (every attempt
   * timed out) may have been applied: the lease is then one up in this holder's name, and this
   * write's condition fails on it. A renewal recognises that state as its own (as the store does
   * for a write retried by the SDK), and the write is made again on the lease as it found it; a
   * lease another worker took fails the renewal as lost. Only after such a failure: otherwise a
   * failed condition is a lost lease.
   */
  private async applyOwn(operation: string, apply: (lease: Lease) => Promise<Lease>): Promise<Lease> {
    try {
      return await apply(this.current);
    } catch (error) {
      if (!(error instanceof LeaseLostError) || this.unconfirmedSince === undefined || operation === 'renew') throw error;
      this.current = await this.store.renew(this.current, this.owner);
      return apply(this.current);
    }
  }
}
