import type { DynamoDBRecord } from 'aws-lambda';

/**
 * One of a shard's concurrent batch streams: with a parallelization factor of N, Lambda
 * processes up to N batches of a shard at once, keeping order per item (partition and sort
 * key). Every record of an item goes to the same lane, and a lane has one batch in flight.
 */
export interface BatchLane {
  readonly pending: DynamoDBRecord[];
  firstPendingAt: number;
  /** Invocations of the lane's current head batch that failed. */
  retries: number;
  /**
   * Sizes of the batches to come after a bisection or a partial failure, first one first; a
   * bisected batch's halves are handed over separately, as Lambda does. Empty: full batches.
   */
  segments: number[];
  /** How many records were pending when the head batch was last found to fit in one payload: no need to size it again until more come. */
  fitsUpTo: number;
}

/**
 * A lane with nothing pending.
 *
 * @example
 * ```ts
 * const lanes = Array.from({ length: settings.parallelizationFactor }, emptyLane);
 * ```
 */
export function emptyLane(): BatchLane {
  return {
    pending: [],
    firstPendingAt: 0,
    retries: 0,
    segments: [],
    fitsUpTo: 0,
  };
}

/**
 * Which of `lanes` lanes a record goes to: FNV-1a over its item's keys, so an item keeps one lane.
 *
 * @example
 * ```ts
 * lanes[laneIndex(record, lanes.length)]!.pending.push(record);
 * ```
 */
export function laneIndex(record: DynamoDBRecord, lanes: number): number {
  if (lanes === 1) return 0;
  const key = JSON.stringify(record.dynamodb?.Keys ?? {});
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

/**
 * The oldest record pending in any lane, by sequence number: lanes finish out of order, so the
 * checkpoint can pass no record before it.
 *
 * @example
 * ```ts
 * const oldest = oldestPending(lanes);
 * const checkpoint = oldest === undefined ? lastRead : readBefore.get(oldest);
 * ```
 */
export function oldestPending(lanes: readonly BatchLane[]): DynamoDBRecord | undefined {
  let oldest: DynamoDBRecord | undefined;
  for (const lane of lanes) {
    const head = lane.pending[0];
    if (head !== undefined && (oldest === undefined || BigInt(head.dynamodb!.SequenceNumber!) < BigInt(oldest.dynamodb!.SequenceNumber!))) {
      oldest = head;
    }
  }
  return oldest;
}
