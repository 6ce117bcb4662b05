import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';

/**
 * Index of the lowest failed record (ReportBatchItemFailures), or `undefined` when all
 * succeeded. An identifier that is empty or not in the batch fails the whole batch, as on AWS.
 *
 * @example
 * ```ts
 * const failedAt = failedIndex(batch, await handler({ Records: batch }, context));
 * ```
 */
export function failedIndex(batch: readonly DynamoDBRecord[], response: DynamoDBBatchResponse | undefined): number | undefined {
  const failures = response?.batchItemFailures ?? [];
  if (failures.length === 0) return undefined;
  let lowest: number | undefined;
  for (const failure of failures) {
    const index = batch.findIndex((r) => r.dynamodb?.SequenceNumber === failure.itemIdentifier);
    if (typeof failure.itemIdentifier !== 'string' || failure.itemIdentifier === '' || index < 0) return 0;
    lowest = lowest === undefined ? index : Math.min(lowest, index);
  }
  return lowest;
}

/**
 * How many records at the head of a batch are older than the maximum record age (none when it is -1, no limit).
 *
 * @example
 * ```ts
 * const expired = expiredPrefix(batch, settings.maxRecordAgeSeconds);
 * ```
 */
export function expiredPrefix(batch: readonly DynamoDBRecord[], maxRecordAgeSeconds: number): number {
  // -1: no limit, as on AWS (records then live until the stream trims them).
  if (maxRecordAgeSeconds === -1) return 0;
  const oldest = Date.now() / 1000 - maxRecordAgeSeconds;
  let count = 0;
  while (count < batch.length && (batch[count]!.dynamodb?.ApproximateCreationDateTime ?? Infinity) < oldest) count++;
  return count;
}
