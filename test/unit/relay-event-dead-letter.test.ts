import { describe, expect, it } from 'vitest';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { relayWith } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

/** The record's one event, as the slot holds it. */
const eventOf = (record: ReturnType<typeof slotRecord>) => record.dynamodb!.NewImage!.events!.L![0]!.M!;

/** Where the record sat in the stream, as a dead letter names it. */
const coordinatesOf = (record: ReturnType<typeof slotRecord>) => ({
  eventSourceArn: record.eventSourceARN,
  eventId: record.eventID,
  sequenceNumber: record.dynamodb!.SequenceNumber,
  approximateCreationDateTime: record.dynamodb!.ApproximateCreationDateTime,
});

describe("the relay's dead letter of an event", () => {
  it('carries why, the record, the topic it was routed to and the whole event, so a redrive can publish it again', async () => {
    const record = slotRecord({ type: 'order', id: 'o-7', seq: 3, sequenceNumber: '900' });
    const sqs = new FakeSqs();
    const result = await relayWith(new FakeSns(undefined, () => 'invalid'), sqs).relay([record]);
    expect(result.deadLettered).toBe(1);
    const letter = JSON.parse(sqs.bodies[0]!);
    expect(letter).toEqual({
      kind: 'outbox-relay-dead-letter',
      version: 1,
      reason: 'PUBLISH_REJECTED',
      detail: expect.stringMatching(/^SNS refused the request: /),
      failedAt: expect.any(String),
      record: coordinatesOf(record),
      topic: 'orders.fifo',
      envelope: expect.any(String),
      eventId: eventOf(record).id!.S,
      eventType: 'order.changed',
      aggregateType: 'order',
      aggregateId: 'o-7',
      sequence: 3,
    });
    expect(JSON.parse(letter.envelope)).toMatchObject({ id: eventOf(record).id!.S, type: 'order.changed', subject: 'o-7' });
  });

  it('names no topic for an event whose aggregate type has no route', async () => {
    const record = slotRecord({ type: 'invoice', id: 'i-1', sequenceNumber: '901' });
    const sqs = new FakeSqs();
    await relayWith(new FakeSns(), sqs).relay([record]);
    const letter = JSON.parse(sqs.bodies[0]!);
    expect(letter).toMatchObject({ reason: 'UNKNOWN_ROUTE', record: coordinatesOf(record), aggregateType: 'invoice', aggregateId: 'i-1' });
    expect(letter).not.toHaveProperty('topic');
  });
});
