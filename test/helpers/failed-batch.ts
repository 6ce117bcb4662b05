import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { StreamOnFailureRecord } from '../../shared/redrive/on-failure-record.js';

/** The record Lambda writes for a failed batch of stream records; with its payload as an S3 destination keeps it. */
export function failedBatch(
  streamArn: string,
  shardId: string,
  records: readonly _Record[],
  options: { payload?: unknown; arrival?: string } = {},
): Omit<StreamOnFailureRecord, 'payload'> & { payload?: unknown } {
  const arrival = options.arrival ?? new Date().toISOString();
  return {
    version: '1.0',
    timestamp: arrival,
    requestContext: { condition: 'RetryAttemptsExhausted' },
    DDBStreamBatchInfo: {
      shardId,
      streamArn,
      startSequenceNumber: records[0]?.dynamodb?.SequenceNumber ?? '',
      endSequenceNumber: records.at(-1)?.dynamodb?.SequenceNumber ?? '',
      approximateArrivalOfFirstRecord: arrival,
      approximateArrivalOfLastRecord: arrival,
      batchSize: records.length,
    },
    ...(options.payload === undefined ? {} : { payload: options.payload }),
  };
}
