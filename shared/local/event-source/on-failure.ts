import { SendMessageCommand, type SendMessageCommandOutput } from '@aws-sdk/client-sqs';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamBatchFailureRecord } from '../../on-failure/batch-record.js';
import { type OnFailureBucketClient, onFailureKey, putOnFailureObject } from '../../on-failure/s3-object.js';

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
    await putOnFailureObject(s3, bucket, onFailureKey(prefix, `aws/lambda/${mappingId}`, record), record, payload);
  };
