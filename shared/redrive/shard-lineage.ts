import { errorName } from '../aws/error-name.js';
import type { BackoffOptions } from '../backoff.js';
import { StreamSource, type StreamsApi } from '../processor/stream-source.js';
import { isTransientReadError, retried } from '../read-retry.js';
import type { Ancestry } from './shard-holds.js';

/** What listing a stream's shards gave. */
export type LineageListing =
  | { readonly status: 'listed' }
  /** The stream no longer exists (turned off or its table deleted more than 24 h ago): no shard has a known parent. */
  | { readonly status: 'gone'; readonly reason: string }
  /**
   * The listing failed; the shards' parents are not known in this run. `transient`: for a passing
   * reason (throttling, a server or network error) still there after the retries, which a later
   * run may get past; otherwise refused (no permission, a bad request).
   */
  | { readonly status: 'failed'; readonly reason: string; readonly transient: boolean };

/**
 * The parent of each shard of the streams the redrive meets, from `DescribeStream`. A shard
 * splits into children when its partition does, and an item's records move to a child only
 * after the parent closed: so an aggregate's records of a parent come before those of its
 * children, and the redrive orders (and holds back) by this lineage.
 *
 * @example
 * ```ts
 * const lineage = new ShardLineage(streams, REDRIVE_READ_RETRY);
 * await lineage.load(info.streamArn);
 * lineage.ancestors(info.shardId); // parent first, then its parent…
 * ```
 */
export class ShardLineage {
  private readonly parents = new Map<string, string | undefined>();
  /** Shards some listing named: only their parents are known. */
  private readonly listed = new Set<string>();
  private readonly listings = new Map<string, LineageListing>();

  constructor(
    private readonly streams: StreamsApi,
    private readonly backoff: BackoffOptions,
  ) {}

  /**
   * Lists the stream's shards, once per stream, or again when `shardId` is given and the last
   * listing did not know it (a shard opened since). Listing errors are results, never thrown.
   */
  async load(streamArn: string, shardId?: string): Promise<LineageListing> {
    const known = this.listings.get(streamArn);
    if (known !== undefined && (shardId === undefined || this.parents.has(shardId) || known.status !== 'listed')) return known;
    const listed = await retried(() => new StreamSource(this.streams, streamArn).listShards(), this.backoff);
    let listing: LineageListing;
    if (listed.ok) {
      for (const shard of listed.value) {
        this.parents.set(shard.shardId, shard.parentShardId);
        this.listed.add(shard.shardId);
      }
      listing = { status: 'listed' };
    } else {
      const reason = `could not list the shards of ${streamArn}: ${listed.reason}`;
      listing =
        errorName(listed.error) === 'ResourceNotFoundException'
          ? { status: 'gone', reason }
          : { status: 'failed', reason, transient: isTransientReadError(listed.error) };
    }
    // A shard the listing did not name is still asked about only once: it is marked as known, without a parent.
    if (shardId !== undefined && !this.parents.has(shardId)) this.parents.set(shardId, undefined);
    this.listings.set(streamArn, listing);
    return listing;
  }

  parentOf(shardId: string): string | undefined {
    return this.parents.get(shardId);
  }

  /**
   * What a hold on another shard needs to know of `shardId`: its ancestors as far as the listing
   * names them, and whether that chain is complete (a shard of it that has left the listing, 24 h
   * after it closed, has parents no one knows); nothing when the stream was not listed (not
   * loaded, failed or gone), so that a hold covers the stream by arrival.
   */
  ancestry(streamArn: string, shardId: string): Ancestry {
    if (this.listings.get(streamArn)?.status !== 'listed') return { known: false };
    const ancestors = this.ancestors(shardId);
    const chain = [shardId, ...ancestors];
    const complete = chain.every((shard) => this.listed.has(shard)) && this.parents.get(chain.at(-1) as string) === undefined;
    return { known: true, ancestors, complete, listed: (shard) => this.listed.has(shard) };
  }

  /** The shard's known ancestors, nearest first. */
  ancestors(shardId: string): string[] {
    const found: string[] = [];
    for (let parent = this.parents.get(shardId); parent !== undefined && !found.includes(parent); parent = this.parents.get(parent)) {
      found.push(parent);
    }
    return found;
  }
}
