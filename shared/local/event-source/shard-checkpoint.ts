import type { DynamoDBRecord } from 'aws-lambda';
import { type BatchLane, oldestPending } from './batch-lanes.js';
import type { CheckpointStore } from './checkpoints.js';

/**
 * A shard's checkpoint while its lanes finish out of order: the last record read before the
 * oldest one still pending in any lane (or the last read, when none is pending), so every record
 * up to it is done, whatever the lanes' order of completion.
 *
 * @example
 * ```ts
 * const checkpoint = new ShardCheckpoint(options.checkpoints, shardId);
 * checkpoint.handedOver(record, lastRead); // as each record read goes to a lane
 * checkpoint.move(lanes, lastRead); // whenever records are done
 * ```
 */
export class ShardCheckpoint {
  /** The sequence number read just before each record handed to a lane: the checkpoint while that record is the oldest not done. */
  private readonly readBefore = new WeakMap<DynamoDBRecord, string | undefined>();
  private checkpoint: string | undefined;

  constructor(
    private readonly checkpoints: CheckpointStore | undefined,
    private readonly shardId: string,
  ) {
    this.checkpoint = checkpoints?.get(shardId);
  }

  /** The stored checkpoint until it moves, then where it moved to. */
  get current(): string | undefined {
    return this.checkpoint;
  }

  /** Notes what was read just before `record`, as the record goes to a lane (without a store, there is nothing to track). */
  handedOver(record: DynamoDBRecord, before: string | undefined): void {
    if (this.checkpoints !== undefined) this.readBefore.set(record, before);
  }

  /** Moves the checkpoint past every record done, and stores it when it moved. */
  move(lanes: readonly BatchLane[], lastRead: string | undefined): void {
    const { checkpoints } = this;
    if (checkpoints === undefined) return;
    const oldest = oldestPending(lanes);
    const checkpoint = oldest === undefined ? lastRead : this.readBefore.get(oldest);
    if (checkpoint === undefined || checkpoint === this.checkpoint) return;
    this.checkpoint = checkpoint;
    checkpoints.set(this.shardId, checkpoint);
  }
}
