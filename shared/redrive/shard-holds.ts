import type { StreamBatchInfo } from '../on-failure/batch-record.js';

/** Where a shard is held: from a sequence number on, or (`from` undefined) all of it. */
interface Hold {
  readonly from: bigint | undefined;
  readonly why: string;
}

/** A hold seen from the rest of its stream: the arrival of the held record's first stream record. */
interface StreamHold {
  readonly arrival: number;
  readonly why: string;
}

/**
 * What the run knows of a shard's lineage: its ancestors as far as the listing names them, whether
 * that chain is `complete` (it ends at a shard without a parent, every shard of it listed) and
 * which shards the listing names; or nothing at all (the stream could not be listed).
 */
export type Ancestry =
  | {
      readonly known: true;
      readonly ancestors: readonly string[];
      readonly complete: boolean;
      readonly listed: (shardId: string) => boolean;
    }
  | { readonly known: false };

/** Milliseconds of an ISO time; an unreadable one is `fallback`, so that it errs on the side of holding. */
const millis = (time: string | undefined, fallback: number): number => {
  const ms = Date.parse(time ?? '');
  return Number.isFinite(ms) ? ms : fallback;
};

/**
 * Shards the run stopped publishing from. When a record's events cannot be republished (its
 * stream range could not be read, its payload or a slot is malformed, an aggregate type has no
 * route, its object could not be fetched), any event in it may be the earlier event of an
 * aggregate whose later records follow in the same shard or in its child shards; none of those
 * may be published before it, so they are held for the rest of the run and stay in the source.
 *
 * Where the stream's lineage is not known (it could not be listed, or is gone), a child cannot
 * be told from any other shard; but its records arrived after all of its parent's, so every
 * record of the stream that arrived at or after the held one is held.
 *
 * @example
 * ```ts
 * const holds = new ShardHolds();
 * holds.hold(info.shardId, info.startSequenceNumber, `record ${key} could not be read`, info);
 * holds.reason(later, lineage.ancestry(later.streamArn, later.shardId)); // 'held back: …'
 * ```
 */
export class ShardHolds {
  private readonly holds = new Map<string, Hold>();
  /** Stream ARN → shard id → the earliest hold of that shard, by arrival. */
  private readonly byStream = new Map<string, Map<string, StreamHold>>();

  get size(): number {
    return this.holds.size;
  }

  /**
   * Holds `shardId` from `from` on (the whole shard when `from` is undefined); the earliest hold
   * wins. `info`, the held record's batch info, lets the hold reach shards of a stream whose
   * lineage is not known; without it (the record's stream is unknown) it holds its shard only.
   */
  hold(
    shardId: string,
    from: string | undefined,
    why: string,
    info?: Pick<StreamBatchInfo, 'streamArn' | 'approximateArrivalOfFirstRecord'>,
  ): void {
    const at = from === undefined ? undefined : BigInt(from);
    const current = this.holds.get(shardId);
    if (current === undefined || (current.from !== undefined && (at === undefined || at < current.from)))
      this.holds.set(shardId, { from: at, why });
    if (info === undefined) return;
    const shards = this.byStream.get(info.streamArn) ?? new Map<string, StreamHold>();
    this.byStream.set(info.streamArn, shards);
    // An unreadable arrival holds the whole stream: nothing is known to have come before it.
    const arrival = millis(info.approximateArrivalOfFirstRecord, Number.NEGATIVE_INFINITY);
    const known = shards.get(shardId);
    if (known === undefined || arrival < known.arrival) shards.set(shardId, { arrival, why });
  }

  /**
   * Why the record `info` must not be published, or `undefined` when it may be: its shard is held
   * at or before its start, one of its ancestors is held at all, or (lineage not known) another
   * shard of its stream is held from a record that arrived no later than this one's last record.
   */
  reason(info: StreamBatchInfo, ancestry: Ancestry): string | undefined {
    const { shardId } = info;
    const own = this.holds.get(shardId);
    if (own !== undefined && (own.from === undefined || own.from <= BigInt(info.startSequenceNumber))) {
      return `held back: an earlier record of shard ${shardId} was not republished (${own.why}); redrive that one first`;
    }
    if (ancestry.known) {
      for (const ancestor of ancestry.ancestors) {
        const held = this.holds.get(ancestor);
        if (held !== undefined) {
          return `held back: a record of parent shard ${ancestor} was not republished (${held.why}); redrive that one first`;
        }
      }
      if (ancestry.complete) return undefined;
      // The chain reaches a shard that left the listing (24 h after it closed), whose parents are
      // not known. A held shard still listed closed less than 24 h ago, so it cannot lie beyond
      // that one; a held shard that left the listing too may: it holds by arrival.
      return this.byArrival(info, (other) => !ancestry.listed(other));
    }
    return this.byArrival(info, () => true);
  }

  /** Why `info` waits behind a held shard of its stream (one `among`) whose held record arrived no later. */
  private byArrival(info: StreamBatchInfo, among: (shardId: string) => boolean): string | undefined {
    const { shardId } = info;
    const last = millis(info.approximateArrivalOfLastRecord || info.approximateArrivalOfFirstRecord, Number.POSITIVE_INFINITY);
    for (const [other, held] of this.byStream.get(info.streamArn) ?? []) {
      if (other !== shardId && among(other) && held.arrival <= last) {
        return `held back: a record of shard ${other}, which arrived no later, was not republished (${held.why}), and the lineage of the stream's shards is not known; redrive that one first`;
      }
    }
    return undefined;
  }
}
