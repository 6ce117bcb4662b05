import { hasStarted, isFinished, type Lease, type LeaseStore } from './lease.js';
import type { ShardInfo, StreamCallBound, StreamSource } from './stream-source.js';

/** What one shard sync did. */
export interface ShardSyncResult {
  readonly shards: number;
  readonly created: number;
  readonly removed: number;
}

/** Shards in an order where every parent comes before its children. */
function parentsFirst(shards: readonly ShardInfo[]): ShardInfo[] {
  const byId = new Map(shards.map((shard) => [shard.shardId, shard]));
  const ordered: ShardInfo[] = [];
  const visited = new Set<string>();
  const visit = (shard: ShardInfo): void => {
    if (visited.has(shard.shardId)) return;
    visited.add(shard.shardId);
    const parent = shard.parentShardId === undefined ? undefined : byId.get(shard.parentShardId);
    if (parent !== undefined) visit(parent);
    ordered.push(shard);
  };
  for (const shard of shards) visit(shard);
  return ordered;
}

/**
 * Keeps the lease table in step with the stream's shards. A lease is created for every shard
 * that has none, parents before children, unless a descendant already has one or is named as a
 * parent by one (then the shard was finished and its lease removed). A finished lease is removed only once every child shard
 * has a lease that has started, so a child never runs while its parent could still be missing.
 * `bound` limits each `DescribeStream` call.
 *
 * @example
 * ```ts
 * const { created, removed } = await syncShards(source, leases);
 * ```
 */
export async function syncShards(source: StreamSource, store: LeaseStore, bound: StreamCallBound = {}): Promise<ShardSyncResult> {
  const shards = parentsFirst(await source.listShards(bound));
  const leases = new Map((await store.list()).map((lease) => [lease.leaseKey, lease]));
  const children = new Map<string, string[]>();
  for (const shard of shards) {
    if (shard.parentShardId === undefined) continue;
    children.set(shard.parentShardId, [...(children.get(shard.parentShardId) ?? []), shard.shardId]);
  }
  // A parent named by a lease but without one of its own was finished and removed once its
  // children started: never created again, even from a listing older than the lease read (a slow
  // scan), which would not show the children yet. Nor is any ancestor of it the listing shows:
  // removed before it, it is named by no lease once the shard it parented was removed in turn.
  const namedParents = new Set([...leases.values()].flatMap((lease) => lease.parentShardIds));
  const known = (shardId: string): boolean => leases.has(shardId) || namedParents.has(shardId);
  const knownOrDescendantKnown = (shardId: string): boolean => known(shardId) || (children.get(shardId) ?? []).some(knownOrDescendantKnown);
  let created = 0;
  const inStream = new Set(shards.map((shard) => shard.shardId));
  for (const shard of shards) {
    if (knownOrDescendantKnown(shard.shardId)) continue;
    // A parent already trimmed from the stream has nothing left to wait for.
    const parents = shard.parentShardId !== undefined && inStream.has(shard.parentShardId) ? [shard.parentShardId] : [];
    if (await store.create(shard.shardId, parents)) created++;
    leases.set(shard.shardId, {
      leaseKey: shard.shardId,
      leaseCounter: 0,
      checkpoint: 'TRIM_HORIZON',
      parentShardIds: parents,
      ownerSwitchesSinceCheckpoint: 0,
    });
  }

  let removed = 0;
  for (const lease of leases.values()) {
    if (!isFinished(lease)) continue;
    const kids = children.get(lease.leaseKey) ?? [];
    const childrenStarted =
      kids.length > 0 && kids.every((child) => leases.get(child) !== undefined && hasStarted(leases.get(child) as Lease));
    const goneFromStream = !inStream.has(lease.leaseKey);
    if ((childrenStarted || goneFromStream) && (await store.remove(lease))) removed++;
  }
  return { shards: shards.length, created, removed };
}

/**
 * Whether a shard may start: each parent's lease is finished, or gone (removed after its
 * children started, or never created because the parent left the stream).
 */
export function parentsFinished(lease: Lease, leases: readonly Lease[]): boolean {
  return lease.parentShardIds.every((parent) => {
    const parentLease = leases.find((l) => l.leaseKey === parent);
    return parentLease === undefined || isFinished(parentLease);
  });
}
