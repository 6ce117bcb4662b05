import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { PublishBatchCommand, PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { publishAll, resolveRecord } from '../../shared/redrive/on-failure-events.js';
import type { StreamOnFailureRecord } from '../../shared/redrive/on-failure-record.js';
import type { PublishBatchClient } from '../../shared/relay/types.js';
import { slotRecord } from '../helpers/stream-records.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const topicArn = 'arn:aws:sns:us-east-1:000000000000:orders';
const config = defineConfig({ source: 'urn:test:unit', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

/**
 * A slot commit whose event carries this trace context, as a write helper before tracestates
 * without members were dropped stored one (or as another producer's write may hold it).
 */
function tracedRecord(id: string, tracestate: string, traceparent = TRACEPARENT): DynamoDBRecord {
  const record = slotRecord({ type: 'order', id });
  const item = unmarshall(record.dynamodb!.NewImage as never);
  item.events = item.events.map((event: Record<string, unknown>) => ({ ...event, traceparent, tracestate }));
  return { ...record, dynamodb: { ...record.dynamodb, NewImage: marshall(item) as never } };
}

/** The relay's failed batch as an S3 destination keeps it: the payload is read, the stream never is. */
function failureOf(records: DynamoDBRecord[]): StreamOnFailureRecord {
  const now = new Date().toISOString();
  return {
    requestContext: {
      requestId: 'r-1',
      functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:relay',
      condition: 'RetryAttemptsExhausted',
    },
    version: '1.0',
    timestamp: now,
    DDBStreamBatchInfo: {
      shardId: 'shardId-1',
      startSequenceNumber: records[0]!.dynamodb!.SequenceNumber!,
      endSequenceNumber: records.at(-1)!.dynamodb!.SequenceNumber!,
      approximateArrivalOfFirstRecord: now,
      approximateArrivalOfLastRecord: now,
      batchSize: records.length,
      streamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/outbox/stream/2025-01-01T00:00:00.000',
    },
    payload: { Records: records },
  } as unknown as StreamOnFailureRecord;
}

/** What a redrive of these records publishes: each entry's message attributes, by aggregate id. */
async function republishedAttributes(records: DynamoDBRecord[]) {
  const noStream = {
    send: () => Promise.reject(new Error('the payload is there: the stream is not read')),
  } as unknown as DynamoDBStreamsClient;
  const retry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 };
  const resolved = await resolveRecord(failureOf(records), {
    streams: noStream,
    config,
    topicArns: { orders: topicArn },
    now: Date.now,
    retry,
  });
  if (resolved.status !== 'events') throw new Error(`expected events, got ${JSON.stringify(resolved)}`);
  const entries: PublishBatchRequestEntry[] = [];
  const sns: PublishBatchClient = {
    send: async (command: PublishBatchCommand) => {
      const batch = command.input.PublishBatchRequestEntries ?? [];
      entries.push(...batch);
      return { Successful: batch.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}` })), Failed: [], $metadata: {} };
    },
  };
  const result = await publishAll(sns, resolved, new Map(), { retry });
  expect(result).toEqual({ events: records.length, published: records.length, deadLettered: 0, letters: 0 });
  return Object.fromEntries(entries.map((e) => [JSON.parse(e.Message!).subject, e.MessageAttributes]));
}

describe('redrive of on-failure records passes on only W3C trace context, and a tracestate only with members', () => {
  it('sends the traceparent alone for a tracestate without members, and a tracestate with members as it is', async () => {
    const attributes = await republishedAttributes([
      tracedRecord('commas', ' , '),
      tracedRecord('empty-list', ',,'),
      tracedRecord('member', 'vendor=a'),
    ]);
    for (const id of ['commas', 'empty-list']) {
      expect(attributes[id]?.traceparent?.StringValue).toBe(TRACEPARENT);
      expect(attributes[id]).not.toHaveProperty('tracestate');
    }
    expect(attributes.member?.tracestate).toEqual({ DataType: 'String', StringValue: 'vendor=a' });
    expect(attributes.member?.traceparent?.StringValue).toBe(TRACEPARENT);
  });

  it('leaves out a traceparent that is not W3C trace context, and the tracestate with it', async () => {
    const attributes = await republishedAttributes([tracedRecord('not-w3c', 'vendor=a', 'not a traceparent')]);
    expect(Object.keys(attributes['not-w3c'] ?? {}).sort()).toEqual(['aggregatetype', 'type']);
  });
});
