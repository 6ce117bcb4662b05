import type { _Record, AttributeValue } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, AttributeValue as LambdaAttributeValue } from 'aws-lambda';
import type { Mutable } from '../mutable.js';

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/**
 * The Lambda event's JSON form of an attribute value: binary as base64, the rest as the Streams
 * API returns it. A string or number value (a union value has exactly one member) is already in
 * that form and is returned as is.
 */
export function lambdaAttribute(value: AttributeValue): LambdaAttributeValue {
  if (value.S !== undefined || value.N !== undefined) return value as LambdaAttributeValue;
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(lambdaAttribute) };
  if (value.M !== undefined) return { M: lambdaImage(value.M) };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  return { NS: value.NS ?? [] };
}

export function lambdaImage(image: Record<string, AttributeValue>): Record<string, LambdaAttributeValue> {
  const converted: Record<string, LambdaAttributeValue> = {};
  for (const name in image) converted[name] = lambdaAttribute(image[name]!);
  return converted;
}

/**
 * A `GetRecords` record in the exact shape Lambda hands a function: the same fields, epoch
 * seconds for `ApproximateCreationDateTime`, base64 binaries, and the stream's ARN as
 * `eventSourceARN`. (Built field by field: it runs for every record the runner reads.)
 */
export function toLambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const dynamodb: Mutable<NonNullable<DynamoDBRecord['dynamodb']>> = {};
  if (stream.ApproximateCreationDateTime !== undefined) {
    dynamodb.ApproximateCreationDateTime = Math.floor(stream.ApproximateCreationDateTime.getTime() / 1000);
  }
  if (stream.Keys !== undefined) dynamodb.Keys = lambdaImage(stream.Keys);
  if (stream.NewImage !== undefined) dynamodb.NewImage = lambdaImage(stream.NewImage);
  if (stream.OldImage !== undefined) dynamodb.OldImage = lambdaImage(stream.OldImage);
  if (stream.SequenceNumber !== undefined) dynamodb.SequenceNumber = stream.SequenceNumber;
  if (stream.SizeBytes !== undefined) dynamodb.SizeBytes = stream.SizeBytes;
  if (stream.StreamViewType !== undefined) dynamodb.StreamViewType = stream.StreamViewType as 'NEW_IMAGE';
  const converted: Mutable<DynamoDBRecord> = {};
  if (record.eventID !== undefined) converted.eventID = record.eventID;
  if (record.eventName !== undefined) converted.eventName = record.eventName;
  if (record.eventVersion !== undefined) converted.eventVersion = record.eventVersion;
  converted.eventSource = record.eventSource ?? 'aws:dynamodb';
  if (record.awsRegion !== undefined) converted.awsRegion = record.awsRegion;
  converted.dynamodb = dynamodb;
  converted.eventSourceARN = streamArn;
  if (record.userIdentity?.PrincipalId !== undefined) {
    converted.userIdentity = { type: record.userIdentity.Type ?? 'Service', principalId: record.userIdentity.PrincipalId };
  }
  return converted;
}
