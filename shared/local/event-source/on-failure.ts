import { randomUUID } from 'node:crypto';
import { PutObjectCommand, type PutObjectCommandOutput } from '@aws-sdk/client-s3';
import { SendMessageCommand, type SendMessageCommandOutput } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamBatchInfo } from '../../redrive/on-failure-record.js';

/** Why the event source mapping gave up on a batch. */
export type OnFailureCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/** AWS's invocation record for a DynamoDB stream batch sent to an on-failure destination. */
export interface StreamBatchFailureRecord {
  readonly requestContext: {
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: OnFailureCondition;
    readonly approximateInvokeCount: number;
  };
  readonly responseContext: { readonly statusCode: number; readonly executedVersion: string; readonly functionError?: string };
  readonly version: '1.0';
  readonly timestamp: string;
  readonly DDBStreamBatchInfo: StreamBatchInfo;
}

const arrival = (record: DynamoDBRecord | undefined): string => {
  const seconds = record?.dynamodb?.ApproximateCreationDateTime ?? 0;
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
};

export interface FailedBatch {
  readonly records: readonly DynamoDBRecord[];
  readonly shardId: string;
  readonly streamArn: string;
  readonly functionArn: string;
  readonly condition: OnFailureCondition;
  readonly invokeCount: number;
  /** Set when the last invocation threw rather than reporting failed items. */
  readonly functionError: boolean;
}

/** Builds the `DDBStreamBatchInfo` invocation record the way Lambda writes it: coordinates only, not the records. */
export function batchFailureRecord(batch: FailedBatch, now: Date = new Date()): StreamBatchFailureRecord {
  const first = batch.records[0];
  const last = batch.records.at(-1);
  return {
    requestContext: {
      requestId: randomUUID(),
      functionArn: batch.functionArn,
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
  };
}

/** Where the runner sends a batch it gave up on: the invocation record, and the batch itself. */
export type OnFailureDestination = (record: StreamBatchFailureRecord, payload: DynamoDBStreamEvent) => Promise<void> | void;

/** The SQS operation an SQS on-failure destination needs; an `SQSClient` fits. */
export interface OnFailureQueueClient {
  send(command: SendMessageCommand): Promise<SendMessageCommandOutput>;
}

/**
 * An on-failure destination that sends the invocation record to an SQS queue, as an event
 * source mapping with `OnFailure: { Destination: <queue ARN> }` does.
 *
 * @example
 * ```ts
 * new StreamRunner({ ..., onFailure: sqsOnFailureDestination(clients.sqs, queueUrl) });
 * ```
 */
export const sqsOnFailureDestination =
  (sqs: OnFailureQueueClient, queueUrl: string): OnFailureDestination =>
  async (record) => {
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(record) }));
  };

/** The S3 operation an S3 on-failure destination needs; an `S3Client` fits. */
export interface OnFailureBucketClient {
  send(command: PutObjectCommand): Promise<PutObjectCommandOutput>;
}

/**
 * An on-failure destination that writes the invocation record with the whole batch as
 * `payload` to S3, under AWS's key layout
 * `aws/lambda/<mapping id>/<shard id>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<uuid>`, so the records
 * outlive the stream's 24-hour retention and the redrive tool can republish them.
 *
 * @example
 * ```ts
 * new StreamRunner({ ..., onFailure: s3OnFailureDestination(clients.s3, 'relay-failures', 'relay/') });
 * ```
 */
export const s3OnFailureDestination =
  (s3: OnFailureBucketClient, bucket: string, prefix = '', mappingId = 'local-relay-mapping'): OnFailureDestination =>
  async (record, payload) => {
    const at = new Date(record.timestamp);
    const day = at.toISOString().slice(0, 10).replaceAll('-', '/');
    const stamp = at.toISOString().slice(0, 19).replaceAll(':', '.');
    const key = `${prefix}aws/lambda/${mappingId}/${record.DDBStreamBatchInfo.shardId}/${day}/${stamp}-${randomUUID()}`;
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify({ ...record, payload }), ContentType: 'application/json' }),
    );
  };
