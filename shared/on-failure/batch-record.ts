import { randomUUID } from 'node:crypto';
import type { DynamoDBRecord } from 'aws-lambda';

/** Why a batch was given up on: its retries were spent, or its first record grew too old. */
export type OnFailureCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/**
 * Marks an on-failure record the stream processor wrote (Lambda's have no `origin`): its payload
 * holds only records of the processor's own aggregate types, which the redrive republishes.
 */
export const PROCESSOR_ORIGIN = 'outbox-stream-processor';

/** Where a failed batch lies in the stream: its shard, first and last sequence numbers, arrival times and size. */
export interface StreamBatchInfo {
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly approximateArrivalOfFirstRecord: string;
  readonly approximateArrivalOfLastRecord: string;
  readonly batchSize: number;
  readonly streamArn: string;
}

/** AWS's invocation record for a DynamoDB stream batch sent to an on-failure destination. */
export interface StreamBatchFailureRecord {
  readonly requestContext: {
    readonly requestId: string;
    /** The relay function; absent from the stream processor's records, which no function wrote. */
    readonly functionArn?: string;
    readonly condition: OnFailureCondition;
    readonly approximateInvokeCount: number;
  };
  readonly responseContext: { readonly statusCode: number; readonly executedVersion: string; readonly functionError?: string };
  readonly version: '1.0';
  readonly timestamp: string;
  readonly DDBStreamBatchInfo: StreamBatchInfo;
  /** {@link PROCESSOR_ORIGIN} on the stream processor's records; absent on Lambda's. */
  readonly origin?: typeof PROCESSOR_ORIGIN;
}

const arrival = (record: DynamoDBRecord | undefined): string => {
  const seconds = record?.dynamodb?.ApproximateCreationDateTime ?? 0;
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
};

export interface FailedBatch {
  /** The records given up on, in stream order, in the shape Lambda hands a function. */
  readonly records: readonly DynamoDBRecord[];
  readonly shardId: string;
  readonly streamArn: string;
  /** The relay function's ARN; left out by the stream processor. */
  readonly functionArn?: string;
  readonly condition: OnFailureCondition;
  /** Attempts made at the batch before it was given up on. */
  readonly invokeCount: number;
  /** Set when the last invocation threw rather than reporting failed items. */
  readonly functionError: boolean;
  /** Set by the stream processor. */
  readonly origin?: typeof PROCESSOR_ORIGIN;
}

/**
 * Builds the `DDBStreamBatchInfo` invocation record the way Lambda writes it: coordinates only,
 * not the records (an S3 destination adds them as `payload`).
 *
 * @example
 * ```ts
 * const record = batchFailureRecord({ records, shardId, streamArn, condition: 'RetryAttemptsExhausted', invokeCount: 3, functionError: false });
 * ```
 */
export function batchFailureRecord(batch: FailedBatch, now: Date = new Date()): StreamBatchFailureRecord {
  const first = batch.records[0];
  const last = batch.records.at(-1);
  return {
    requestContext: {
      requestId: randomUUID(),
      ...(batch.functionArn === undefined ? {} : { functionArn: batch.functionArn }),
      condition: batch.condition,
      approximateInvokeCount: batch.invokeCount,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', ...(batch.functionError ? { functionError: 'Unhandled' } : {}) },
    version: '1.0',
    timestamp: now.toISOString(),
    DDBStreamBatchInfo: {
      shardId: batch.shardId,
      startSequenceNumber: first?.dynamodb?.SequenceNumber ?? '',
      endSequenceNumber: last?.dynamodb?.SequenceNumber ?? '',
      approximateArrivalOfFirstRecord: arrival(first),
      approximateArrivalOfLastRecord: arrival(last),
      batchSize: batch.records.length,
      streamArn: batch.streamArn,
    },
    ...(batch.origin === undefined ? {} : { origin: batch.origin }),
  };
}
