import type { PublishBatchCommand, PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { createProcessorRelay } from '../../shared/processor/processor.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { Worker } from '../../shared/processor/worker.js';
import { FakeSqs } from '../helpers/fake-sns.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { expectLineageOrder } from '../helpers/publish-order.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

// `order` is low-latency, `payment` handed over (the processor publishes it too), `audit` the Lambda relay's alone.
const config = defineConfig({
  source: 'urn:test:sim',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }, { name: 'audits' }],
  routes: { order: 'orders.fifo', payment: 'payments', audit: 'audits' },
  lowLatencyAggregateTypes: ['order'],
  handoverAggregateTypes: ['payment'],
  // Two attempts in process: a failing entry soon fails its record, and the shard retries from it.
  relay: { maxPublishAttempts: 2 },
});
const topicArns = Object.fromEntries(config.topics.map((t) => [t.name, `arn:aws:sns:us-east-1:000000000000:${t.name}`]));
const AGGREGATES = [
  { type: 'order', id: 'a' },
  { type: 'order', id: 'b' },
  { type: 'payment', id: 'c' },
  { type: 'audit', id: 'd' },
];
/** The ratios of the production timings, short enough for a few worker lifetimes per second. */
const SETTINGS = {
  failoverMs: 300,
  renewIntervalMs: 100,
  leaseScanIntervalMs: 20,
  shardSyncIntervalMs: 20,
  readLimit: 4,
  idleMinDelayMs: 1,
  idleMaxDelayMs: 8,
  retryMaxDelayMs: 40,
};

/**
 * An SNS that answers a turn of the event loop later (so pages are in flight while the test splits
 * shards and crashes workers), throttles some requests, fails some entries without publishing
 * them and publishes others while reporting them failed (a lost acknowledgement).
 */
class UnreliableSns {
  /** Event ids in the order they were accepted, repeats included. */
  readonly accepted: string[] = [];
  readonly stats = { throttled: 0, failedEntries: 0, lostAcks: 0 };

  constructor(private readonly random: () => number) {}

  async send(command: PublishBatchCommand): Promise<PublishBatchCommandOutput> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.random() < 0.05) {
      this.stats.throttled++;
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottledException', $metadata: { httpStatusCode: 400 } });
    }
    const output: PublishBatchCommandOutput = { Successful: [], Failed: [], $metadata: {} };
    for (const entry of command.input.PublishBatchRequestEntries ?? []) {
      const roll = this.random();
      if (roll < 0.15) {
        this.stats.failedEntries++;
        output.Failed!.push({ Id: entry.Id, Code: 'InternalError', SenderFault: false, Message: 'injected' });
        continue;
      }
      this.accepted.push((JSON.parse(entry.Message ?? '{}') as { id: string }).id);
      if (roll < 0.25) {
        this.stats.lostAcks++;
        output.Failed!.push({ Id: entry.Id, Code: 'InternalError', SenderFault: false, Message: 'injected after publishing' });
      } else output.Successful!.push({ Id: entry.Id, MessageId: `m-${this.accepted.length}` });
    }
    return output;
  }
}

let running: Worker[] = [];
afterEach(async () => {
  await Promise.all(running.map((w) => w.halt()));
  running = [];
});

describe('shards split while their holder publishes through a failing SNS, and the holder crashes', () => {
  it.each([1, 2, 3, 4, 5, 6])(
    'every event published, first copies in order per aggregate, parents before children (seed %i)',
    async (seed) => {
      const random = seededRandom(seed);
      const stream = new SimulatedStream({ initialShards: 1, pageSize: 2, expiryRate: 0.05, random });
      const sns = new UnreliableSns(seededRandom(seed * 7919));
      const publisher = createProcessorRelay({
        config,
        sns,
        sqs: new FakeSqs(),
        topicArns,
        deadLetterQueueUrl: 'http://localhost/000000000000/relay-dlq',
        backoff: { baseDelayMs: 1, maxDelayMs: 5 },
      });
      const leases = new MemoryLeaseStore();
      let workers = 0;
      const join = async (): Promise<Worker> => {
        const worker = new Worker({
          source: new StreamSource(stream, stream.streamArn),
          leases,
          publisher,
          workerId: `w${++workers}`,
          settings: SETTINGS,
        });
        running.push(worker);
        await worker.start();
        return worker;
      };
      const seqs = new Map<string, number>();
      const written: string[] = [];
      /** `commits` commits of 1 to 12 events (more than one PublishBatch holds); waits until the first of the processor's is accepted. */
      const write = async (commits: number): Promise<void> => {
        const fresh: string[] = [];
        for (let c = 0; c < commits; c++) {
          const aggregate = AGGREGATES[Math.floor(random() * AGGREGATES.length)]!;
          const key = `${aggregate.type}:${aggregate.id}`;
          const events = 1 + Math.floor(random() * 12);
          const seq = (seqs.get(key) ?? 0) + events;
          seqs.set(key, seq);
          fresh.push(...stream.commit(aggregate, seq, events));
        }
        written.push(...fresh);
        const first = fresh.find((id) => !id.startsWith('audit:'));
        if (first !== undefined) await vi.waitFor(() => expect(sns.accepted).toContain(first), { timeout: 10_000, interval: 2 });
      };

      const a = await join();
      await write(12);
      // Split while worker A holds the shard with a page in flight, then write to the children.
      stream.split(stream.openShards[0]!.id);
      await write(12);
      const b = await join();
      await write(12);
      // A crashes with whatever it holds (the parent, a child or both), pages in flight.
      await a.halt();
      stream.split(stream.openShards[Math.floor(random() * stream.openShards.length)]!.id);
      await write(12);
      const c = await join();
      await write(8);

      const expected = written.filter((id) => !id.startsWith('audit:'));
      await vi.waitFor(() => expect(expected.filter((id) => !sns.accepted.includes(id))).toEqual([]), {
        timeout: 30_000,
        interval: 10,
      });
      await Promise.all([b.stop(), c.stop()]);

      expect(sns.accepted.filter((id) => id.startsWith('audit:'))).toEqual([]);
      expectLineageOrder(sns.accepted, expected, stream);
      expect(sns.stats.failedEntries).toBeGreaterThan(0);
      expect(sns.stats.lostAcks).toBeGreaterThan(0);
    },
    60_000,
  );
});
