import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * The invocation record an event source mapping sends to its on-failure destination for a
 * DynamoDB stream batch. SQS and SNS destinations get the coordinates only; an S3 destination
 * also gets the whole invocation `payload` (the `{ Records: [...] }` event).
 */
export interface StreamOnFailureRecord {
  readonly requestContext?: {
    readonly requestId?: string;
    readonly functionArn?: string;
    readonly condition?: string;
    readonly approximateInvokeCount?: number;
  };
  readonly responseContext?: { readonly statusCode?: number; readonly executedVersion?: string; readonly functionError?: string };
  readonly version: string;
  readonly timestamp: string;
  readonly DDBStreamBatchInfo: StreamBatchInfo;
  readonly payload?: StreamInvocationPayload | string;
}

export interface StreamBatchInfo {
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly approximateArrivalOfFirstRecord: string;
  readonly approximateArrivalOfLastRecord: string;
  readonly batchSize: number;
  readonly streamArn: string;
}

/** The stream records as the function received them (DynamoDB JSON images). */
export interface StreamInvocationPayload {
  readonly Records: readonly {
    readonly eventName?: string;
    readonly dynamodb?: { readonly NewImage?: Record<string, AttributeValue>; readonly SequenceNumber?: string };
  }[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why a value is not a DynamoDB stream on-failure record, or `undefined` when it is one. */
export function onFailureRecordProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'not a JSON object';
  const info = value.DDBStreamBatchInfo;
  if (!isRecord(info)) return 'no DDBStreamBatchInfo: not a DynamoDB stream on-failure record';
  for (const field of ['shardId', 'startSequenceNumber', 'endSequenceNumber', 'streamArn'] as const) {
    if (typeof info[field] !== 'string' || info[field] === '') return `DDBStreamBatchInfo.${field} is missing`;
  }
  return undefined;
}

/** The invocation's records when the destination kept them (S3), else `undefined`. */
export function payloadRecords(record: StreamOnFailureRecord): StreamInvocationPayload['Records'] | undefined {
  const raw = typeof record.payload === 'string' ? (JSON.parse(record.payload) as unknown) : record.payload;
  if (!isRecord(raw) || !Array.isArray(raw.Records)) return undefined;
  return raw.Records as StreamInvocationPayload['Records'];
}
