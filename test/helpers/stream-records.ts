import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { SLOT_KIND, slotKey } from '../../shared/slot.js';

let counter = 0;

export interface SlotRecordOptions {
  readonly type?: string;
  readonly id?: string;
  /** The slot's `seq` after this commit. */
  readonly seq?: number;
  readonly events?: number;
  readonly data?: unknown;
  readonly sequenceNumber?: string;
  readonly eventName?: 'INSERT' | 'MODIFY' | 'REMOVE';
}

/** A Lambda stream record of an outbox slot commit, with unique event ids. */
export function slotRecord(options: SlotRecordOptions = {}): DynamoDBRecord {
  const { type = 'order', id = 'o-1', events = 1, seq = events, data = { n: 1 }, eventName = 'MODIFY' } = options;
  const sequenceNumber = options.sequenceNumber ?? String(1_000_000 + ++counter);
  const item = {
    ...slotKey({ type, id }),
    kind: SLOT_KIND,
    aggregateType: type,
    aggregateId: id,
    source: 'urn:test:unit',
    seq,
    createdAt: '2025-01-01T00:00:00.000Z',
    expiresAt: 1_900_000_000,
    events: Array.from({ length: events }, (_, i) => ({
      id: `${type}-${id}-${seq - events + 1 + i}-${sequenceNumber}`,
      type: `${type}.changed`,
      time: '2025-01-01T00:00:00.000Z',
      data: JSON.stringify(data),
    })),
  };
  const image = marshall(item) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
  return {
    eventID: `ev-${sequenceNumber}`,
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN: 'arn:aws:dynamodb:us-east-1:123456789012:table/outbox/stream/2025-01-01T00:00:00.000',
    dynamodb: {
      ApproximateCreationDateTime: 1_735_689_600,
      Keys: marshall(slotKey({ type, id })) as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
      ...(eventName === 'REMOVE' ? {} : { NewImage: image }),
      SequenceNumber: sequenceNumber,
      SizeBytes: 200,
      StreamViewType: 'NEW_IMAGE',
    },
  };
}
