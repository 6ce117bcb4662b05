import { readFileSync } from 'node:fs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { slotMessages } from '../../shared/envelope.js';
import { decodeStreamRecord } from '../../shared/relay/decode.js';
import { type OutboxSlot, slotProblem } from '../../shared/slot.js';
import { slotRecord } from '../helpers/stream-records.js';

const config = defineConfig({ source: 'urn:test:unit', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

const fixture = (name: string): DynamoDBStreamEvent =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as DynamoDBStreamEvent;

/** A slot record whose image has `attribute` set to `value` (or removed, for `undefined`). */
function withAttribute(name: string, value: AttributeValue | Record<string, unknown> | undefined): DynamoDBRecord {
  const record = slotRecord({ id: 'o-attr', events: 2, seq: 5 });
  const image = record.dynamodb!.NewImage! as Record<string, unknown>;
  if (value === undefined) delete image[name];
  else image[name] = value;
  return record;
}

describe('relay: reading a slot from its stream image', () => {
  it('reads every slot as the SDK’s unmarshall would: the same messages, or the same problem', () => {
    const traced = slotRecord({ id: 'o-traced', events: 3, seq: 9, data: { text: 'ünïcødé "quoted" \\ \u2028' } });
    (traced.dynamodb!.NewImage!.events!.L![1]!.M as Record<string, unknown>).traceparent = {
      S: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    };
    const records = [
      ...fixture('outbox-slot-stream-event.json').Records,
      slotRecord({ id: 'o-1' }),
      slotRecord({ id: 'o-many', events: 5, seq: 12 }),
      traced,
      withAttribute('seq', { N: '0' }),
      withAttribute('seq', { N: '1.5' }),
      withAttribute('seq', { S: '5' }),
      withAttribute('source', { S: '' }),
      withAttribute('createdAt', undefined),
      withAttribute('events', { L: [] }),
      withAttribute('events', { L: [{ S: 'not a map' }] }),
      withAttribute('events', { M: {} }),
      withAttribute('aggregateId', { N: '12' }),
    ];
    const outcomes = records.map((record) => decodeStreamRecord(record, config));
    const expected = records.map((record) => {
      const item = unmarshall(record.dynamodb!.NewImage! as Parameters<typeof unmarshall>[0]);
      const problem = slotProblem(item);
      return problem === undefined ? { messages: slotMessages(item as OutboxSlot) } : { problem };
    });

    expect(outcomes.map((o) => o.status).filter((s) => s === 'decoded')).toHaveLength(4);
    expect(
      outcomes.map((o) => (o.status === 'decoded' ? { messages: o.messages } : o.status === 'malformed' ? { problem: o.problem } : o)),
    ).toEqual(expected);
  });

  it('refuses a sequence beyond the safe integers instead of rounding it', () => {
    const decoded = decodeStreamRecord(withAttribute('seq', { N: '9007199254740993' }), config);

    expect(decoded).toMatchObject({ status: 'malformed', problem: 'seq is not a positive whole number' });
  });

  it('refuses an attribute of the slot that is not DynamoDB JSON, and leaves those it does not read alone', () => {
    const broken = decodeStreamRecord(withAttribute('source', { X: 'urn:test:unit' }), config);
    const brokenEvent = withAttribute('events', { L: [{ M: { id: { Q: 'x' } } }] });
    const unread = decodeStreamRecord(withAttribute('expiresAt', { X: '1' }), config);

    expect(broken).toMatchObject({ status: 'malformed', problem: expect.stringMatching(/^NewImage is not DynamoDB JSON \(.*X/) });
    expect(decodeStreamRecord(brokenEvent, config)).toMatchObject({
      status: 'malformed',
      problem: expect.stringMatching(/^NewImage is not DynamoDB JSON/),
    });
    expect(unread).toMatchObject({ status: 'decoded', messages: [expect.any(Object), expect.any(Object)] });
  });
});
