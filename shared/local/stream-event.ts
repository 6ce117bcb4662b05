import type { _Record, AttributeValue } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, AttributeValue as LambdaAttributeValue } from 'aws-lambda';

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** The Lambda event's JSON form of an attribute value: binary as base64, the rest as the Streams API returns it. */
export function lambdaAttribute(value: AttributeValue): LambdaAttributeValue {
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(lambdaAttribute) };
  if (value.M !== undefined) return { M: lambdaImage(value.M) };
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  return { NS: value.NS ?? [] };
}

export function lambdaImage(image: Record<string, AttributeValue>): Record<string, LambdaAttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, lambdaAttribute(value)]));
}

/**
 * A `GetRecords` record in the exact shape Lambda hands a function: the same fields, epoch
 * seconds for `ApproximateCreationDateTime`, base64 binaries, and the stream's ARN as
 * `eventSourceARN`.
 */
export function toLambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const dynamodb: NonNullable<DynamoDBRecord['dynamodb']> = {
    ...(stream.ApproximateCreationDateTime === undefined
      ? {}
      : { ApproximateCreationDateTime: Math.floor(stream.ApproximateCreationDateTime.getTime() / 1000) }),
    ...(stream.Keys === undefined ? {} : { Keys: lambdaImage(stream.Keys) }),
    ...(stream.NewImage === undefined ? {} : { NewImage: lambdaImage(stream.NewImage) }),
    ...(stream.OldImage === undefined ? {} : { OldImage: lambdaImage(stream.OldImage) }),
    ...(stream.SequenceNumber === undefined ? {} : { SequenceNumber: stream.SequenceNumber }),
    ...(stream.SizeBytes === undefined ? {} : { SizeBytes: stream.SizeBytes }),
    ...(stream.StreamViewType === undefined ? {} : { StreamViewType: stream.StreamViewType as 'NEW_IMAGE' }),
  };
  return {
    ...(record.eventID === undefined ? {} : { eventID: record.eventID }),
    ...(record.eventName === undefined ? {} : { eventName: record.eventName }),
    ...(record.eventVersion === undefined ? {} : { eventVersion: record.eventVersion }),
    eventSource: record.eventSource ?? 'aws:dynamodb',
    ...(record.awsRegion === undefined ? {} : { awsRegion: record.awsRegion }),
    dynamodb,
    eventSourceARN: streamArn,
    ...(record.userIdentity?.PrincipalId === undefined
      ? {}
      : { userIdentity: { type: record.userIdentity.Type ?? 'Service', principalId: record.userIdentity.PrincipalId } }),
  };
}
