/** Where processing of a shard resumes: the start, after a sequence number, or nowhere (finished). */
export const TRIM_HORIZON = 'TRIM_HORIZON';
export const SHARD_END = 'SHARD_END';

/**
 * One shard's lease, modelled on the KCL lease table. Every write is conditional on
 * `leaseCounter`, which every write increments: a worker that holds a lease proves it by
 * renewing it, and another worker sees a lease whose counter stood still for the failover time
 * as expired.
 */
export interface Lease {
  /** The shard id. */
  readonly leaseKey: string;
  /** The worker holding the lease; absent when free (new, released or never taken). */
  readonly leaseOwner?: string;
  readonly leaseCounter: number;
  /** {@link TRIM_HORIZON}, {@link SHARD_END} or the sequence number of the last record processed. */
  readonly checkpoint: string;
  /** The shard's parents: processed to {@link SHARD_END} before this shard starts. */
  readonly parentShardIds: readonly string[];
  /** Owner changes since the last checkpoint; a high value flags a shard that keeps failing over. */
  readonly ownerSwitchesSinceCheckpoint: number;
  /**
   * The failed attempts at the record the shard retries from, as its holder last counted them;
   * a checkpoint clears them. Kept in the lease so that a worker taking it over counts on from
   * them, and `maxRetryAttempts` bounds a record's attempts however often its lease moves.
   */
  readonly failedAttempts?: FailedAttempts;
  /**
   * Set by an owner that is stopping ({@link LeaseStore.handOver}): it releases the lease once its
   * page in flight is done, so balancing does not steal it meanwhile. A take or a release clears it.
   */
  readonly handingOver?: true;
}

/** Failed attempts at one record, by its sequence number. */
export interface FailedAttempts {
  readonly sequenceNumber: string;
  readonly attempts: number;
}

export const isFinished = (lease: Pick<Lease, 'checkpoint'>): boolean => lease.checkpoint === SHARD_END;

/** A child has started when it moved past its start: its parents may then be forgotten. */
export const hasStarted = (lease: Pick<Lease, 'checkpoint'>): boolean => lease.checkpoint !== TRIM_HORIZON;

/** Whether `found` is `lease` as one more write of `owner` leaves it: held by `owner`, its counter one up. */
const ownedAfter = (found: Lease, lease: Lease, owner: string): boolean =>
  found.leaseOwner === owner && found.leaseCounter === lease.leaseCounter + 1;

/**
 * Whether a lease found after a failed condition is the one this very write leaves, for each
 * write of a {@link LeaseStore}: the write's own effect (its first attempt applied, its answer
 * lost, and the SDK's retry failing on it), which is its success, not a lost lease.
 */
export const appliedWrite = {
  renew: (found: Lease, lease: Lease, owner: string): boolean => ownedAfter(found, lease, owner),
  take: (found: Lease, lease: Lease, owner: string): boolean => ownedAfter(found, lease, owner),
  checkpoint: (found: Lease, lease: Lease, owner: string, checkpoint: string): boolean =>
    ownedAfter(found, lease, owner) && found.checkpoint === checkpoint,
  recordFailure: (found: Lease, lease: Lease, owner: string, failed: FailedAttempts): boolean =>
    ownedAfter(found, lease, owner) &&
    found.failedAttempts?.sequenceNumber === failed.sequenceNumber &&
    found.failedAttempts.attempts === failed.attempts,
  release: (found: Lease, lease: Lease): boolean => found.leaseOwner === undefined && found.leaseCounter === lease.leaseCounter + 1,
  handOver: (found: Lease, lease: Lease, owner: string): boolean => ownedAfter(found, lease, owner) && found.handingOver === true,
};

/**
 * The conditional lease operations; {@link DynamoDbLeaseTable} implements them on DynamoDB.
 * Each write takes the lease as last seen and fails with `LeaseLostError` (or returns
 * `undefined` for the optimistic ones) when its counter has moved since.
 */
export interface LeaseStore {
  /**
   * Every lease, read consistently; a parent named by a child not yet started is listed if it
   * exists when the list ends, even if a scan over several pages missed it.
   */
  list(): Promise<Lease[]>;
  /** Creates a free lease at {@link TRIM_HORIZON}; `false` when it exists already. */
  create(leaseKey: string, parentShardIds: readonly string[]): Promise<boolean>;
  /** Proves ownership: increments the counter if `owner` still holds the lease at that counter. */
  renew(lease: Lease, owner: string): Promise<Lease>;
  /** Takes a free, expired or stolen lease, clearing `handingOver`; `undefined` when another worker was faster. */
  take(lease: Lease, owner: string): Promise<Lease | undefined>;
  /** Records progress, clearing `failedAttempts`; only the owner at the given counter may. */
  checkpoint(lease: Lease, owner: string, checkpoint: string): Promise<Lease>;
  /** Records the failed attempts at the record the shard retries from; only the owner at the given counter may. */
  recordFailure(lease: Lease, owner: string, failed: FailedAttempts): Promise<Lease>;
  /** Gives the lease up so another worker can take it at once; clears `handingOver`. */
  release(lease: Lease, owner: string): Promise<void>;
  /**
   * Marks the lease `handingOver` (its owner is stopping and releases it once its page in flight is
   * done), incrementing the counter as a renewal does; only the owner at the given counter may.
   * Without it, a stopping worker's leases may be stolen while it finishes its pages (duplicates).
   */
  handOver(lease: Lease, owner: string): Promise<Lease>;
  /** Deletes a finished lease; `false` when it changed since (someone else did it). */
  remove(lease: Lease): Promise<boolean>;
}
