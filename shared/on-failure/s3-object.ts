import { randomUUID } from 'node:crypto';
import { PutObjectCommand, type PutObjectCommandOutput } from '@aws-sdk/client-s3';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamBatchFailureRecord } from './batch-record.js';

/** The S3 operation an S3 on-failure destination needs; an `S3Client` fits. */
export interface OnFailureBucketClient {
  send(command: PutObjectCommand, options?: { abortSignal?: AbortSignal }): Promise<PutObjectCommandOutput>;
}

/** The stream processor's part of its on-failure objects' keys, where Lambda's have `aws/lambda/<mapping id>`. */
export const PROCESSOR_KEY_WRITER = 'outbox-processor';

/**
 * The key of an on-failure object: `<prefix><writer>/<shard id>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<uuid>`,
 * where Lambda's writer is `aws/lambda/<mapping id>` and the stream processor's `outbox-processor`.
 * The date parts put objects in time order; the UUID keeps two of one second apart.
 *
 * @example
 * ```ts
 * onFailureKey('', 'aws/lambda/0f3c…', record); // 'aws/lambda/0f3c…/shardId-…/2025/01/01/2025-01-01T00.00.00-…'
 * ```
 */
export function onFailureKey(prefix: string, writer: string, record: StreamBatchFailureRecord): string {
  const at = new Date(record.timestamp);
  const day = at.toISOString().slice(0, 10).replaceAll('-', '/');
  const stamp = at.toISOString().slice(0, 19).replaceAll(':', '.');
  return `${prefix}${writer}/${record.DDBStreamBatchInfo.shardId}/${day}/${stamp}-${randomUUID()}`;
}

/**
 * Writes an on-failure object as Lambda's S3 destination does: the invocation record with the
 * whole batch as `payload`, the invocation event as a JSON string (Lambda's form, which tools
 * written against Lambda's objects parse), so the records outlive the stream's 24-hour retention
 * and the redrive can republish them. Resolves once S3 has the object; rejects with S3's error otherwise.
 *
 * @example
 * ```ts
 * await putOnFailureObject(s3, 'relay-failures', key, record, { Records: records });
 * ```
 */
export async function putOnFailureObject(
  s3: OnFailureBucketClient,
  bucket: string,
  key: string,
  record: StreamBatchFailureRecord,
  payload: DynamoDBStreamEvent,
  signal?: AbortSignal,
): Promise<void> {
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: JSON.stringify({ ...record, payload: JSON.stringify(payload) }),
      ContentType: 'application/json',
    }),
    signal === undefined ? undefined : { abortSignal: signal },
  );
}
