import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { laneIndex } from '../../shared/local/event-source/batch-lanes.js';
import { type StreamHandler, StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { slotKey } from '../../shared/slot.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

const config = defineConfig({ source: 'urn:test:lanes', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const aggregate = (id: string) => ({ type: 'order', id });
const laneOf = (id: string) => laneIndex({ dynamodb: { Keys: marshall(slotKey(aggregate(id))) } } as DynamoDBRecord, 2);
const idOf = (r: DynamoDBRecord) => r.dynamodb?.NewImage?.aggregateId?.S;

let runner: StreamRunner | undefined;
afterEach(async () => {
  await runner?.stop();
});

describe('shard reader lanes (parallelization factor)', () => {
  it('a lane that runs dry while the read-ahead buffer is full of another lane’s records waits, then takes its later records', async () => {
    // Two aggregates in different lanes: the hot one fills the read-ahead buffer (2,000 records)
    // by itself, and the cold one has records at the start and far behind the hot ones. The
    // in-memory stream answers at once, so reading outruns the handler.
    const hot = 'hot';
    const cold = Array.from({ length: 50 }, (_, i) => `cold-${i}`).find((id) => laneOf(id) !== laneOf(hot))!;
    const stream = new SimulatedStream();
    const seq = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const id = i < 5 || i >= 2900 ? cold : hot;
      seq.set(id, (seq.get(id) ?? 0) + 1);
      stream.commit(aggregate(id), seq.get(id)!, 1);
    }
    const delivered: DynamoDBRecord[] = [];
    /** The most records read but not yet handed over, seen from the handler. */
    let mostBuffered = 0;
    const handler: StreamHandler = async ({ Records }) => {
      mostBuffered = Math.max(mostBuffered, (runner?.stats.recordsRead ?? 0) - delivered.length);
      await new Promise((resolve) => setImmediate(resolve));
      delivered.push(...Records);
      return { batchItemFailures: [] };
    };
    runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      settings: { ...relayEventSourceSettings(config), batchSize: 10, parallelizationFactor: 2 },
      handler,
      pollIntervalMs: 10,
    });
    runner.start();
    await expect.poll(() => delivered.length, { timeout: 20_000 }).toBe(3000);
    // The scenario happened: the buffer held its 2,000 records (a hot batch may be in flight besides).
    expect(mostBuffered).toBeGreaterThanOrEqual(2000);
    expect(new Set(delivered.map((r) => r.eventID)).size).toBe(3000);
    for (const id of [hot, cold]) {
      const mine = delivered.filter((r) => idOf(r) === id).map((r) => Number(r.dynamodb?.NewImage?.seq?.N));
      expect(mine).toEqual(Array.from({ length: seq.get(id)! }, (_, i) => i + 1));
    }
  });
});
