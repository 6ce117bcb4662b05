import type { DynamoDBRecord } from 'aws-lambda';
import type { BatchLane } from './batch-lanes.js';
import { jsonLength, jsonLengthBound, MAX_PAYLOAD_BYTES } from './payload-size.js';

/**
 * A lane's next batch: up to the batch size (or the pending segment's size) and the payload limit.
 * Cheap upper bounds of the records' JSON sizes (UTF-8 bytes) are summed while they prove the batch fits;
 * once they cannot, exact sizes take over, so the cut is where the exact sizes put it.
 *
 * @example
 * ```ts
 * await handler({ Records: headBatch(lane, settings.batchSize) }, context);
 * ```
 */
export function headBatch(lane: BatchLane, batchSize: number): DynamoDBRecord[] {
  const max = Math.min(batchSize, lane.segments[0] ?? Number.POSITIVE_INFINITY);
  const batch: DynamoDBRecord[] = [];
  const envelope = '{"Records":[]}'.length;
  let bytes = envelope;
  let exact = false;
  for (const record of lane.pending) {
    if (batch.length >= max) break;
    let size = (exact ? jsonLength(record) : jsonLengthBound(record)) + 1;
    if (!exact && bytes + size > MAX_PAYLOAD_BYTES) {
      exact = true;
      bytes = envelope + batch.reduce((sum, r) => sum + jsonLength(r) + 1, 0);
      size = jsonLength(record) + 1;
    }
    if (batch.length > 0 && bytes + size > MAX_PAYLOAD_BYTES) break;
    batch.push(record);
    bytes += size;
  }
  return batch;
}

/**
 * Whether the lane's records pending no longer fit in one payload, so its next batch is cut
 * at 6 MB already: Lambda invokes then instead of waiting out the batching window.
 *
 * @example
 * ```ts
 * const full = lane.pending.length >= settings.batchSize || cutByPayload(lane, settings.batchSize);
 * ```
 */
export function cutByPayload(lane: BatchLane, batchSize: number): boolean {
  const max = Math.min(batchSize, lane.segments[0] ?? Number.POSITIVE_INFINITY);
  if (lane.pending.length <= lane.fitsUpTo) return false;
  if (headBatch(lane, batchSize).length < Math.min(max, lane.pending.length)) return true;
  lane.fitsUpTo = lane.pending.length;
  return false;
}
