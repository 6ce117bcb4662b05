import type { _Record } from '@aws-sdk/client-dynamodb-streams';

/**
 * The count of stream records a worker is done with, each counted once: a record read again after
 * the worker lost a lease and took it back (from the shard's last checkpoint) is at or below the
 * highest sequence number it was done with on that shard. A shard read to its end is forgotten,
 * as no record of it comes again, so the memory holds only the shards the worker may still read.
 */
export class ProcessedRecords {
  #count = 0;
  /** Per shard, the highest sequence number of a record done with. */
  readonly #doneUpTo = new Map<string, bigint>();

  get count(): number {
    return this.#count;
  }

  /** Counts the records of `shardId` not counted before. */
  add(shardId: string, records: readonly _Record[]): void {
    const done = this.#doneUpTo.get(shardId);
    if (done === undefined) this.#count += records.length;
    else
      this.#count += records.filter(
        ({ dynamodb }) => dynamodb?.SequenceNumber === undefined || BigInt(dynamodb.SequenceNumber) > done,
      ).length;
    const last = records.at(-1)?.dynamodb?.SequenceNumber;
    if (last !== undefined && (done === undefined || BigInt(last) > done)) this.#doneUpTo.set(shardId, BigInt(last));
  }

  /** Forgets a shard read to its end. */
  forget(shardId: string): void {
    this.#doneUpTo.delete(shardId);
  }
}
