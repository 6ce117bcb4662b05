import { LeaseLostError } from '../../shared/processor/index.js';
import { appliedWrite, type FailedAttempts, type Lease, type LeaseStore, TRIM_HORIZON } from '../../shared/processor/lease.js';

/**
 * An in-memory lease table with the DynamoDB implementation's conditional semantics (every
 * write checks and increments the counter), for property runs that need hundreds of workers'
 * lifetimes in seconds. The DynamoDB implementation is tested against DynamoDB Local; the
 * hand-over mark of both is pinned by the same test (`lease-store-hand-over.ts`).
 */
export class MemoryLeaseStore implements LeaseStore {
  readonly rows = new Map<string, Lease>();
  writes = 0;

  async list(): Promise<Lease[]> {
    await Promise.resolve();
    return [...this.rows.values()].map((lease) => ({ ...lease }));
  }

  async create(leaseKey: string, parentShardIds: readonly string[]): Promise<boolean> {
    await Promise.resolve();
    if (this.rows.has(leaseKey)) return false;
    this.rows.set(leaseKey, {
      leaseKey,
      leaseCounter: 0,
      checkpoint: TRIM_HORIZON,
      parentShardIds: [...parentShardIds],
      ownerSwitchesSinceCheckpoint: 0,
    });
    return true;
  }

  async renew(lease: Lease, owner: string): Promise<Lease> {
    return this.write(
      lease,
      owner,
      'renew',
      (row) => row,
      (found) => appliedWrite.renew(found, lease, owner),
    );
  }

  async take(lease: Lease, owner: string): Promise<Lease | undefined> {
    try {
      return await this.write(
        lease,
        undefined,
        'take',
        ({ handingOver: _, ...row }) => ({
          ...row,
          leaseOwner: owner,
          ownerSwitchesSinceCheckpoint: row.ownerSwitchesSinceCheckpoint + (row.leaseOwner === owner ? 0 : 1),
        }),
        (found) => appliedWrite.take(found, lease, owner),
      );
    } catch (error) {
      if (error instanceof LeaseLostError) return undefined;
      throw error;
    }
  }

  async checkpoint(lease: Lease, owner: string, checkpoint: string): Promise<Lease> {
    return this.write(
      lease,
      owner,
      'checkpoint',
      ({ failedAttempts: _, ...row }) => ({ ...row, checkpoint, ownerSwitchesSinceCheckpoint: 0 }),
      (found) => appliedWrite.checkpoint(found, lease, owner, checkpoint),
    );
  }

  async recordFailure(lease: Lease, owner: string, failed: FailedAttempts): Promise<Lease> {
    return this.write(
      lease,
      owner,
      'recordFailure',
      (row) => ({ ...row, failedAttempts: { ...failed } }),
      (found) => appliedWrite.recordFailure(found, lease, owner, failed),
    );
  }

  async release(lease: Lease, owner: string): Promise<void> {
    await this.write(
      lease,
      owner,
      'release',
      ({ leaseOwner: _, handingOver: __, ...row }) => row,
      (found) => appliedWrite.release(found, lease),
    );
  }

  async handOver(lease: Lease, owner: string): Promise<Lease> {
    return this.write(
      lease,
      owner,
      'handOver',
      (row) => ({ ...row, handingOver: true }),
      (found) => appliedWrite.handOver(found, lease, owner),
    );
  }

  async remove(lease: Lease): Promise<boolean> {
    await Promise.resolve();
    const row = this.rows.get(lease.leaseKey);
    if (row === undefined || row.leaseCounter !== lease.leaseCounter) return false;
    this.rows.delete(lease.leaseKey);
    return true;
  }

  /**
   * A failed condition that finds the lease as this very write leaves it (`applied`) is the write's
   * success, as `DynamoDbLeaseTable` has it: an SDK retry of a write whose first attempt was applied.
   */
  private async write(
    lease: Lease,
    owner: string | undefined,
    operation: string,
    change: (row: Lease) => Lease,
    applied: (found: Lease) => boolean,
  ): Promise<Lease> {
    await Promise.resolve();
    const row = this.rows.get(lease.leaseKey);
    if (row === undefined || row.leaseCounter !== lease.leaseCounter || (owner !== undefined && row.leaseOwner !== owner)) {
      if (row !== undefined && applied(row)) return { ...row };
      throw new LeaseLostError(lease.leaseKey, operation, { ...(owner === undefined ? {} : { owner }), counter: lease.leaseCounter });
    }
    this.writes++;
    const updated = { ...change(row), leaseCounter: row.leaseCounter + 1 };
    this.rows.set(lease.leaseKey, updated);
    return { ...updated };
  }
}
