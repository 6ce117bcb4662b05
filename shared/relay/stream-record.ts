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
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return {
    ...(record.eventSourceARN === undefined ? {} : { eventSourceArn: record.eventSourceARN }),
    ...(record.eventID === undefined ? {} : { eventId: record.eventID }),
    ...(record.dynamodb?.SequenceNumber === undefined ? {} : { sequenceNumber: record.dynamodb.SequenceNumber }),
    ...(created === undefined ? {} : { approximateCreationDateTime: created instanceof Date ? created.getTime() / 1000 : created }),
  };
}
