import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { type StreamHandler, StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { toLambdaRecord } from '../../shared/on-failure/lambda-record.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

const config = defineConfig({ source: 'urn:test:payload', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

let runner: StreamRunner | undefined;
afterEach(async () => {
  await runner?.stop();
});

describe('stream runner payload limit', () => {
  it('cuts batches at 6 MB of UTF-8, not 6 M UTF-16 code units, for records with non-ASCII data', async () => {
    // 40 items near DynamoDB's 400 KB limit, in a 3-byte character: about 5.2 M code units of
    // JSON in all, under 6 M, but 15.6 MB.
    const stream = new SimulatedStream();
    for (let i = 0; i < 40; i++) {
      stream.commit({ type: 'order', id: `o${i}` }, 1, 1);
      stream.shards[0]!.records.at(-1)!.dynamodb!.NewImage!.note = { S: '€'.repeat(130_000) };
    }
    const batches: DynamoDBRecord[][] = [];
    const handler: StreamHandler = async ({ Records }) => {
      batches.push(Records);
      return { batchItemFailures: [] };
    };
    runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      settings: { ...relayEventSourceSettings(config), batchSize: 100 },
      handler,
      pollIntervalMs: 10,
    });
    runner.start();
    await expect.poll(() => batches.flat().length, { timeout: 20_000 }).toBe(40);

    expect(batches.flat().map((r) => r.dynamodb?.NewImage?.aggregateId?.S)).toEqual(Array.from({ length: 40 }, (_, i) => `o${i}`));
    expect(batches.length).toBeGreaterThan(1);
    for (const [i, Records] of batches.entries()) {
      expect(bytes({ Records })).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
      // Each cut is where the limit puts it: the next record would not have fitted.
      const next = batches[i + 1]?.[0];
      if (next !== undefined) expect(bytes({ Records: [...Records, next] })).toBeGreaterThan(MAX_PAYLOAD_BYTES);
    }
  });

  it('invokes at once, without waiting out the batching window, when the records pending already fill a 6 MB payload', async () => {
    // 20 records of about 390 KB: 7.8 MB, more than one payload and fewer than the batch size.
    const stream = new SimulatedStream();
    for (let i = 0; i < 20; i++) {
      stream.commit({ type: 'order', id: `o${i}` }, 1, 1);
      stream.shards[0]!.records.at(-1)!.dynamodb!.NewImage!.note = { S: 'x'.repeat(390_000) };
    }
    const batches: DynamoDBRecord[][] = [];
    runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      // The longest window AWS allows: without the payload cut, the first batch would wait 5 minutes.
      settings: { ...relayEventSourceSettings(config), batchSize: 100, maxBatchingWindowSeconds: 300 },
      handler: async ({ Records }) => {
        batches.push(Records);
        return { batchItemFailures: [] };
      },
      pollIntervalMs: 10,
    });
    runner.start();
    await expect.poll(() => batches.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);

    const [first] = batches;
    expect(first!.length).toBeLessThan(20);
    expect(bytes({ Records: first })).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    // Cut where the limit puts it: the next record would not have fitted.
    const all = stream.shards[0]!.records.map((r) => toLambdaRecord(r, stream.streamArn));
    expect(first).toEqual(all.slice(0, first!.length));
    expect(bytes({ Records: all.slice(0, first!.length + 1) })).toBeGreaterThan(MAX_PAYLOAD_BYTES);
  });
});
