import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { s3BucketNameProblem } from '../aws/s3-bucket-name.js';
import { sendClientFault } from '../aws/send-client.js';
import { batchFailureRecord, type OnFailureCondition, PROCESSOR_ORIGIN } from '../on-failure/batch-record.js';
import { toLambdaRecord } from '../on-failure/lambda-record.js';
import { type OnFailureBucketClient, onFailureKey, PROCESSOR_KEY_WRITER, putOnFailureObject } from '../on-failure/s3-object.js';
import { showValue } from '../show-value.js';
import { ProcessorOptionsError } from './errors.js';
import { BUCKET_ALLOWED } from './processor-rules.js';

/** The stream processor's on-failure destination: an S3 bucket, as the Lambda relay's event source mapping has. */
export interface ProcessorOnFailureDestination {
  /** An `S3Client` (or anything that sends `PutObject` like one). */
  readonly s3: OnFailureBucketClient;
  readonly bucket: string;
  /** Put before every key (`<prefix>outbox-processor/<shard id>/YYYY/MM/DD/<time>-<uuid>`). @default '' */
  readonly prefix?: string;
}

/** Records of a shard given up on, to be written as one on-failure object. */
export interface GivenUpRecords {
  readonly shardId: string;
  /** In stream order, as `GetRecords` returned them. */
  readonly records: readonly _Record[];
  readonly condition: OnFailureCondition;
  /** Attempts made at the first of them. */
  readonly attempts: number;
}

/** Writes one on-failure object and resolves with its key; rejects when S3 did not take it. */
export type OnFailureWriter = (given: GivenUpRecords, signal?: AbortSignal) => Promise<string>;

/**
 * Writes records the stream processor gave up on in the shape Lambda's S3 on-failure destination
 * gives them (the invocation record with the records, as a Lambda event, as `payload`, marked
 * `origin: "outbox-stream-processor"`), so `redrive on-failure` reads them like the relay's and
 * republishes them in stream order. A bucket name S3 refuses, or an `s3` without `send`, is a
 * {@link ProcessorOptionsError} here, not a failed write once a record is given up on.
 *
 * @example
 * ```ts
 * const write = onFailureWriter({ s3, bucket: 'outbox-failed-batches' }, streamArn);
 * const key = await write({ shardId, records, condition: 'RetryAttemptsExhausted', attempts: 11 });
 * ```
 */
export function onFailureWriter(destination: ProcessorOnFailureDestination, streamArn: string): OnFailureWriter {
  if (typeof destination !== 'object' || destination === null) {
    throw new ProcessorOptionsError('onFailure', `got ${showValue(destination)}; allowed: { s3, bucket, prefix? }, an S3 destination`);
  }
  const bucket: unknown = destination.bucket;
  const problem = typeof bucket === 'string' ? s3BucketNameProblem(bucket) : 'is not a string';
  if (problem !== undefined)
    throw new ProcessorOptionsError('onFailure.bucket', `got ${showValue(bucket)}, which ${problem}; allowed: ${BUCKET_ALLOWED}`);
  // Else the first record given up on would fail to be written, and be retried for ever, blocking its shard.
  const client = sendClientFault(destination.s3);
  if (client !== undefined) {
    throw new ProcessorOptionsError('onFailure.s3', `got ${client}; allowed: an S3Client (or anything that sends PutObject like one)`);
  }
  return async ({ shardId, records, condition, attempts }, signal) => {
    const lambdaRecords = records.map((record) => toLambdaRecord(record, streamArn));
    const record = batchFailureRecord({
      records: lambdaRecords,
      shardId,
      streamArn,
      condition,
      invokeCount: attempts,
      functionError: false,
      origin: PROCESSOR_ORIGIN,
    });
    const key = onFailureKey(destination.prefix ?? '', PROCESSOR_KEY_WRITER, record);
    await putOnFailureObject(destination.s3, destination.bucket, key, record, { Records: lambdaRecords }, signal);
    return key;
  };
}
