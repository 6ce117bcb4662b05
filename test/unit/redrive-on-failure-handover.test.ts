import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { resolveRecord } from '../../shared/redrive/on-failure-events.js';
import type { StreamOnFailureRecord } from '../../shared/redrive/on-failure-record.js';
import { slotRecord } from '../helpers/stream-records.js';

const base = {
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
};
const topicArns = {
  'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo',
  payments: 'arn:aws:sns:us-east-1:000000000000:payments',
};

// The relay's failed batch as an S3 destination keeps it: the payload is read, the stream never is.
const records = [slotRecord({ type: 'order', id: 'o-1' }), slotRecord({ type: 'payment', id: 'p-1' })];
const failure = {
  requestContext: {
    requestId: 'r-1',
    functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:relay',
    condition: 'RetryAttemptsExhausted',
  },
  version: '1.0',
  timestamp: new Date().toISOString(),
  DDBStreamBatchInfo: {
    shardId: 'shardId-1',
    startSequenceNumber: records[0]!.dynamodb!.SequenceNumber!,
    endSequenceNumber: records[1]!.dynamodb!.SequenceNumber!,
    approximateArrivalOfFirstRecord: new Date().toISOString(),
    approximateArrivalOfLastRecord: new Date().toISOString(),
    batchSize: 2,
    streamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/outbox/stream/2025-01-01T00:00:00.000',
  },
  payload: { Records: records },
} as unknown as StreamOnFailureRecord;

const noStream = {
  send: () => Promise.reject(new Error('the payload is there: the stream is not read')),
} as unknown as DynamoDBStreamsClient;
const republished = async (handoverAggregateTypes: string[]) => {
  const config = defineConfig({ ...base, handoverAggregateTypes });
  const resolved = await resolveRecord(failure, {
    streams: noStream,
    config,
    topicArns,
    now: Date.now,
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  });
  if (resolved.status !== 'events') throw new Error(`expected events, got ${JSON.stringify(resolved)}`);
  return resolved.events.map((event) => event.aggregateType);
};

describe("redrive of the relay's on-failure records for a handed-over aggregate type", () => {
  it('republishes the handed-over type, which the relay publishes too, and leaves a low-latency one to the processor', async () => {
    expect(await republished(['payment'])).toEqual(['order', 'payment']);
    expect(await republished([])).toEqual(['order']);
  });
});
