import { describe, expect, it } from 'vitest';
import { lowestFailedSequenceNumber } from '../../shared/relay/index.js';
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

  it('is sent in the invocation that meets it, after a failed record too: each retry of the batch sends it again, the same event', async () => {
    const failing = slotRecord({ type: 'order', id: 'o-1', sequenceNumber: '910' });
    const rejected = slotRecord({ type: 'order', id: 'o-2', sequenceNumber: '911' });
    const rejectedId = eventOf(rejected).id!.S;
    // o-1 keeps failing for now; SNS refuses o-2's event for good.
    const sns = new FakeSns((entry) => (JSON.parse(entry.Message ?? '{}').id === rejectedId ? 'permanent' : 'transient'));
    const sqs = new FakeSqs();
    const relay = relayWith(sns, sqs);

    // The mapping retries from 910, so 911 comes again; but the relay cannot tell the last attempt,
    // after which the batch goes to the on-failure destination (whose redrive does not dead-letter):
    // a dead letter deferred to the retry could be lost.
    for (let attempt = 1; attempt <= 2; attempt++) {
      const result = await relay.relay([failing, rejected]);
      expect(lowestFailedSequenceNumber(result)).toBe('910');
      expect(result.outcomes[1]).toMatchObject({ status: 'delivered', deadLettered: 1 });
    }
    expect(sqs.bodies.map((body) => JSON.parse(body).eventId)).toEqual([rejectedId, rejectedId]);
  });
});
