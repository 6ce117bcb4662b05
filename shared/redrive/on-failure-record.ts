import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { StreamBatchInfo } from '../on-failure/batch-record.js';

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
  /**
   * `outbox-stream-processor` on the records the stream processor writes (Lambda's have none): their
   * payload holds only records of the processor's aggregate types, which are republished.
   */
  readonly origin?: string;
}

/** The stream records as the function received them (DynamoDB JSON images). */
export interface StreamInvocationPayload {
  readonly Records: readonly {
    readonly eventName?: string;
    readonly dynamodb?: { readonly NewImage?: Record<string, AttributeValue>; readonly SequenceNumber?: string };
  }[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const SEQUENCE_NUMBER = /^\d{1,64}$/;

const describeValue = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'string' ? 'a string' : typeof value;

/**
 * Why a value is not a DynamoDB stream on-failure record, or `undefined` when it is one. The
 * sequence numbers must be decimal, as the stream gives them: the redrive orders and compares
 * them as big integers.
 */
export function onFailureRecordProblem(value: unknown): string | undefined {
  if (!isRecord(value))
    return `not a JSON object (got ${describeValue(value)}); allowed: a DynamoDB stream on-failure record with DDBStreamBatchInfo`;
  const info = value.DDBStreamBatchInfo;
  if (!isRecord(info)) return 'no DDBStreamBatchInfo: not a DynamoDB stream on-failure record';
  for (const field of ['shardId', 'startSequenceNumber', 'endSequenceNumber', 'streamArn'] as const) {
    if (typeof info[field] !== 'string' || info[field] === '') {
      return `DDBStreamBatchInfo.${field} is missing (got ${info[field] === '' ? 'an empty string' : describeValue(info[field])}); allowed: a non-empty string`;
    }
  }
  for (const field of ['startSequenceNumber', 'endSequenceNumber'] as const) {
    const given = info[field] as string;
    if (!SEQUENCE_NUMBER.test(given)) {
      return `DDBStreamBatchInfo.${field} is ${JSON.stringify(given.slice(0, 80))}; allowed: a stream sequence number (decimal digits only)`;
    }
  }
  if (BigInt(info.startSequenceNumber as string) > BigInt(info.endSequenceNumber as string)) {
    return `DDBStreamBatchInfo.startSequenceNumber ${info.startSequenceNumber} is after endSequenceNumber ${info.endSequenceNumber}; allowed: start <= end`;
  }
  return undefined;
}

/** A record's `payload`, read. */
export type PayloadRead =
  /** The destination kept the batch's records (S3). */
  | { readonly status: 'records'; readonly records: StreamInvocationPayload['Records'] }
  /** Coordinates only (SQS, SNS): the records must be read from the stream again. */
  | { readonly status: 'absent' }
  /** A payload is there but is not an invocation event: what the batch held is not known. */
  | { readonly status: 'malformed'; readonly reason: string };

/**
 * The invocation's records when the destination kept them (S3). A payload that is there but
 * unreadable is `malformed`, never taken for "no payload": the stream may hold other records
 * than the batch did by now, or none at all.
 *
 * @example
 * ```ts
 * const read = payloadRecords(record);
 * if (read.status === 'malformed') console.warn(read.reason);
 * ```
 */
export function payloadRecords(record: StreamOnFailureRecord): PayloadRead {
  if (record.payload === undefined || record.payload === null) return { status: 'absent' };
  let raw: unknown = record.payload;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch (error) {
      return {
        status: 'malformed',
        reason: `payload is a string that is not JSON (${(error as Error).message}); allowed: the invocation event { "Records": [...] }, as an object or its JSON text`,
      };
    }
  }
  if (!isRecord(raw) || !Array.isArray(raw.Records)) {
    const got = isRecord(raw) ? `an object with Records ${describeValue(raw.Records)}` : describeValue(raw);
    return { status: 'malformed', reason: `payload is ${got}; allowed: the invocation event { "Records": [...] }` };
  }
  const bad = raw.Records.findIndex((entry) => !isRecord(entry) || (entry.dynamodb !== undefined && !isRecord(entry.dynamodb)));
  if (bad !== -1) {
    return {
      status: 'malformed',
      reason: `payload.Records[${bad}] is ${describeValue(raw.Records[bad])}; allowed: a stream record { eventName, dynamodb: { NewImage, SequenceNumber } }`,
    };
  }
  return { status: 'records', records: raw.Records as StreamInvocationPayload['Records'] };
}
