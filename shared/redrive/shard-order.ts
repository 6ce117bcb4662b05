import type { StreamBatchInfo } from '../on-failure/batch-record.js';

/** An on-failure record, placed by its batch info alone (its payload is read again when its turn comes). */
export interface PlacedRecord {
  /** Where it is kept: the S3 key. */
  readonly id: string;
  readonly info: StreamBatchInfo;
}

const arrival = (info: StreamBatchInfo): number => {
  const ms = Date.parse(info.approximateArrivalOfFirstRecord);
  return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
};

/**
 * Puts records in stream order: within a shard by `startSequenceNumber` (as a big integer; then
 * by id, so equal batches keep a stable order), and each shard after its ancestors, as given by
 * `parentOf`. Shards with no known relation go by the arrival of their first record, then by id:
 * when the stream no longer lists a parent (trimmed 24 h after it closed), its children's
 * records still arrived after its own.
 *
 * Any prefix of the result is closed under "comes earlier": it never takes a record without the
 * records of its shard and of its ancestors that precede it.
 *
 * @example
 * ```ts
 * const ordered = streamOrder(placed, (shardId) => lineage.parentOf(shardId));
 * ```
 */
export function streamOrder(records: readonly PlacedRecord[], parentOf: (shardId: string) => string | undefined): PlacedRecord[] {
  const byShard = new Map<string, PlacedRecord[]>();
  for (const record of records) {
    const list = byShard.get(record.info.shardId);
    if (list === undefined) byShard.set(record.info.shardId, [record]);
    else list.push(record);
  }
  const firstArrival = new Map<string, number>();
  for (const [shardId, list] of byShard) {
    list.sort((a, b) => {
      const start = BigInt(a.info.startSequenceNumber) - BigInt(b.info.startSequenceNumber);
      return start !== 0n ? (start < 0n ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    });
    firstArrival.set(
      shardId,
      list.reduce((min, r) => Math.min(min, arrival(r.info)), Number.POSITIVE_INFINITY),
    );
  }
  const shards = [...byShard.keys()].sort(
    (a, b) => (firstArrival.get(a) ?? 0) - (firstArrival.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const ordered: PlacedRecord[] = [];
  const visited = new Set<string>();
  // Depth first up the lineage, so every ancestor with records is emitted before its descendants.
  const visit = (shardId: string): void => {
    if (visited.has(shardId)) return;
    visited.add(shardId);
    const parent = parentOf(shardId);
    if (parent !== undefined) visit(parent);
    for (const record of byShard.get(shardId) ?? []) ordered.push(record);
  };
  for (const shardId of shards) visit(shardId);
  return ordered;
}
