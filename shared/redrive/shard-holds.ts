/** Where a shard is held: from a sequence number on, or (`from` undefined) all of it. */
interface Hold {
  readonly from: bigint | undefined;
  readonly why: string;
}

/**
 * Shards the run stopped publishing from. When a record's events cannot be known (its stream
 * range could not be read, its payload is malformed, its object could not be fetched), any event
 * in it may be the earlier event of an aggregate whose later records follow in the same shard or
 * in its child shards; none of those may be published before it, so they are held for the rest
 * of the run and stay in the source.
 *
 * @example
 * ```ts
 * const holds = new ShardHolds();
 * holds.hold(info.shardId, info.startSequenceNumber, `record ${key} could not be read`);
 * holds.reason(later.shardId, later.startSequenceNumber, lineage.ancestors(later.shardId)); // 'held back: …'
 * ```
 */
export class ShardHolds {
  private readonly holds = new Map<string, Hold>();

  get size(): number {
    return this.holds.size;
  }

  /** Holds `shardId` from `from` on (the whole shard when `from` is undefined); the earliest hold wins. */
  hold(shardId: string, from: string | undefined, why: string): void {
    const at = from === undefined ? undefined : BigInt(from);
    const current = this.holds.get(shardId);
    if (current !== undefined && (current.from === undefined || (at !== undefined && current.from <= at))) return;
    this.holds.set(shardId, { from: at, why });
  }

  /**
   * Why a record of `shardId` starting at `start` must not be published, or `undefined` when it
   * may be: its shard is held at or before `start`, or one of its `ancestors` is held at all.
   */
  reason(shardId: string, start: string, ancestors: readonly string[]): string | undefined {
    const own = this.holds.get(shardId);
    if (own !== undefined && (own.from === undefined || own.from <= BigInt(start))) {
      return `held back: an earlier record of shard ${shardId} was not republished (${own.why}); redrive that one first`;
    }
    for (const ancestor of ancestors) {
      const held = this.holds.get(ancestor);
      if (held !== undefined) {
        return `held back: a record of parent shard ${ancestor} was not republished (${held.why}); redrive that one first`;
      }
    }
    return undefined;
  }
}
