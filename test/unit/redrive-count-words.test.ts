import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { RedriveOptionsError, RedriveStoppedError } from '../../shared/redrive/errors.js';
import { InFlightRoom } from '../../shared/redrive/in-flight-room.js';
import { publishAll, resolveRecord } from '../../shared/redrive/on-failure-events.js';
import type { StreamOnFailureRecord } from '../../shared/redrive/on-failure-record.js';
import { IN_FLIGHT_LIMIT } from '../../shared/redrive/queue-counts.js';
import type { RedriveSummary } from '../../shared/redrive/types.js';
import { batchPayload, failedBatch } from '../helpers/failed-batch.js';
import { FakeSns } from '../helpers/fake-sns.js';
import { slotRecord } from '../helpers/stream-records.js';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/relay-failures';
const STREAM_ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/outbox/stream/2025-01-01T00:00:00.000';
const config = defineConfig({ source: 'urn:test:unit', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const retry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 };
const noStream = {
  send: () => Promise.reject(new Error('the payload is there: the stream is not read')),
} as unknown as DynamoDBStreamsClient;

/** The problem a republish of a failed batch of one record with `events` events reports when SNS refuses every one for good. */
async function problemOfRefused(events: number): Promise<string | undefined> {
  const records = [slotRecord({ type: 'order', id: 'o-1', events })] as never[];
  const failure = failedBatch(STREAM_ARN, 'shardId-1', records, { payload: batchPayload(records) }) as StreamOnFailureRecord;
  const resolved = await resolveRecord(failure, {
    streams: noStream,
    config,
    topicArns: { orders: 'arn:aws:sns:us-east-1:000000000000:orders' },
    now: Date.now,
    retry,
  });
  if (resolved.status !== 'events') throw new Error(`expected events, got ${JSON.stringify(resolved)}`);
  const result = await publishAll(new FakeSns(() => 'permanent'), resolved, new Map(), { retry });
  return 'problem' in result ? result.problem : undefined;
}

describe('redrive messages count what they count in words', () => {
  it.each([
    [1, '1 message'],
    [2, '2 messages'],
  ])('a run stopped after %i read says %j', (processed, words) => {
    const error = new RedriveStoppedError({ processed } as RedriveSummary, new Error('socket hang up'));

    expect(error.message).toBe(`stopped after ${words}: socket hang up`);
  });

  it.each([
    [1, 'about 1 message to receive'],
    [2, 'about 2 messages to receive'],
  ])('a queue of %i that does not fit in flight says %j', (visible, words) => {
    const room = new InFlightRoom({} as SQSClient, QUEUE_URL, { visible, inFlight: IN_FLIGHT_LIMIT.standard, delayed: 0 }, false);

    const refused = (() => {
      try {
        room.check(undefined);
      } catch (error) {
        return error;
      }
      return undefined;
    })();

    expect(refused).toBeInstanceOf(RedriveOptionsError);
    expect((refused as Error).message).toContain(
      `not given (the whole queue), and the queue holds ${words}, with 120000 in flight (SQS's approximate counts)`,
    );
  });

  it.each([
    [1, '1 of 1 event failed, first '],
    [2, '2 of 2 events failed, first '],
  ])('an on-failure record SNS refuses, %i events in it, says %j', async (events, words) => {
    expect(await problemOfRefused(events)).toMatch(new RegExp(`^${words}`));
  });
});
