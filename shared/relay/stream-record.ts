import type { Mutable } from '../mutable.js';

/**
 * The part of a DynamoDB stream record the relay reads. Both the Lambda event's records and
 * the DynamoDB Streams API's `GetRecords` records fit it, so the core serves the Lambda relay
 * and the stream processor alike.
 */
export interface StreamRecordInput {
  readonly eventID?: string;
  readonly eventName?: string;
  readonly eventSourceARN?: string;
  readonly userIdentity?: unknown;
  readonly dynamodb?: {
    /** Epoch seconds in a Lambda event, a `Date` from the Streams API. */
    readonly ApproximateCreationDateTime?: number | Date;
    readonly NewImage?: Record<string, unknown>;
    readonly SequenceNumber?: string;
  };
}

/** Where a record sits in the stream, as written into dead letters and outcomes. */
export interface RecordCoordinates {
  readonly eventSourceArn?: string;
  readonly eventId?: string;
  readonly sequenceNumber?: string;
  /** Epoch seconds. */
  readonly approximateCreationDateTime?: number;
}

export function coordinatesOf(record: StreamRecordInput): RecordCoordinates {
  // Built field by field rather than with spreads: it runs for every record of every batch.
  const coordinates: Mutable<RecordCoordinates> = {};
  if (record.eventSourceARN !== undefined) coordinates.eventSourceArn = record.eventSourceARN;
  if (record.eventID !== undefined) coordinates.eventId = record.eventID;
  const stream = record.dynamodb;
  if (stream?.SequenceNumber !== undefined) coordinates.sequenceNumber = stream.SequenceNumber;
  const created = stream?.ApproximateCreationDateTime;
  if (created !== undefined) coordinates.approximateCreationDateTime = created instanceof Date ? created.getTime() / 1000 : created;
  return coordinates;
}
