import {
  type _Record,
  DescribeStreamCommand,
  type DescribeStreamCommandOutput,
  type GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type GetShardIteratorCommandOutput,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { laneIndex } from '../../shared/local/shard-reader.js';
import { type StreamHandler, StreamRunner, type StreamsClient } from '../../shared/local/stream-runner.js';

const STREAM_ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/lanes/stream/2026-01-01T00:00:00.000';

/** An open shard holding `records`, served from memory: reads are instant, so the buffer fills. */
function memoryStream(records: readonly _Record[]): StreamsClient {
  const send = async (command: DescribeStreamCommand | GetShardIteratorCommand | GetRecordsCommand) => {
    if (command instanceof DescribeStreamCommand) {
      return { StreamDescription: { Shards: [{ ShardId: 'shard-0' }] }, $metadata: {} } satisfies DescribeStreamCommandOutput;
    }
    if (command instanceof GetShardIteratorCommand) return { ShardIterator: '0', $metadata: {} } satisfies GetShardIteratorCommandOutput;
    const from = Number(command.input.ShardIterator);
    const page = records.slice(from, from + (command.input.Limit ?? 1000));
    return { Records: page, NextShardIterator: String(from + page.length), $metadata: {} } satisfies GetRecordsCommandOutput;
  };
  return { send } as StreamsClient;
}

const record = (key: string, sequence: number): _Record => ({
  eventID: `e${sequence}`,
  eventName: 'MODIFY',
  dynamodb: {
    Keys: { pk: { S: key } },
    NewImage: { pk: { S: key }, n: { N: String(sequence) } },
    SequenceNumber: String(1000 + sequence),
    SizeBytes: 40,
    StreamViewType: 'NEW_IMAGE',
  },
});

const keyOf = (r: DynamoDBRecord) => r.dynamodb?.Keys?.pk?.S;

let runner: StreamRunner | undefined;
afterEach(async () => {
  await runner?.stop();
});

describe('shard reader lanes (parallelization factor)', () => {
  it('a lane that runs dry while the read-ahead buffer is full of another lane’s records waits, then takes its later records', async () => {
    // Two items in different lanes: the hot one fills the read-ahead buffer (2,000 records)
    // by itself, and the cold one has records at the start and far behind the hot ones.
    const hot = 'hot';
    const cold = Array.from({ length: 50 }, (_, i) => `cold-${i}`).find(
      (key) => laneIndex({ dynamodb: { Keys: { pk: { S: key } } } }, 2) !== laneIndex({ dynamodb: { Keys: { pk: { S: hot } } } }, 2),
    )!;
    const records = Array.from({ length: 3000 }, (_, i) => record(i < 5 || i >= 2900 ? cold : hot, i));
    const delivered: DynamoDBRecord[] = [];
    const handler: StreamHandler = async ({ Records }) => {
      await new Promise((resolve) => setImmediate(resolve));
      delivered.push(...Records);
      return { batchItemFailures: [] };
    };
    const config = defineConfig({ source: 'urn:test:lanes', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
    runner = new StreamRunner({
      streams: memoryStream(records),
      streamArn: STREAM_ARN,
      settings: { ...relayEventSourceSettings(config), filterPatterns: [], batchSize: 10, parallelizationFactor: 2 },
      handler,
      pollIntervalMs: 10,
    });
    runner.start();
    await expect.poll(() => delivered.length, { timeout: 20_000 }).toBe(3000);
    expect(new Set(delivered.map((r) => r.eventID)).size).toBe(3000);
    for (const key of [hot, cold]) {
      const mine = delivered.filter((r) => keyOf(r) === key).map((r) => Number(r.dynamodb?.NewImage?.n?.N));
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
    }
    expect(delivered.filter((r) => keyOf(r) === cold)).toHaveLength(105);
  });
});
