import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { fc, test as fcTest } from '@fast-check/vitest';
import { afterEach, describe, expect, vi } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { isFinished, type Lease } from '../../shared/processor/lease.js';
import { createProcessorRelay } from '../../shared/processor/processor.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { Worker } from '../../shared/processor/worker.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { expectLineageOrder } from '../helpers/publish-order.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

const config = defineConfig({
  source: 'urn:test:sim',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }, { name: 'audits' }],
  routes: { order: 'orders.fifo', payment: 'payments', audit: 'audits' },
  lowLatencyAggregateTypes: ['order', 'payment'],
});
const topicArns = Object.fromEntries(config.topics.map((t) => [t.name, `arn:aws:sns:us-east-1:000000000000:${t.name}`]));
const AGGREGATES = ['order:a', 'order:b', 'order:c', 'payment:d', 'payment:e', 'audit:f', 'audit:g'].map((k) => {
  const [type, id] = k.split(':') as [string, string];
  return { type, id };
});
/** Short timings so hundreds of worker lifetimes fit in seconds; the ratios are the production ones. */
const SETTINGS = {
  failoverMs: 300,
  renewIntervalMs: 100,
  leaseScanIntervalMs: 20,
  shardSyncIntervalMs: 20,
  // Small pages and a publish latency keep parents busy while children appear, so order matters.
  readLimit: 4,
  idleMinDelayMs: 1,
  idleMaxDelayMs: 8,
  retryMaxDelayMs: 40,
};

const step = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), commits: fc.integer({ min: 1, max: 25 }) }),
  fc.record({ kind: fc.constant('split' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('kill' as const), pick: fc.nat(), graceful: fc.boolean() }),
  fc.record({ kind: fc.constant('join' as const) }),
);

let running: Worker[] = [];
afterEach(async () => {
  await Promise.all(running.map((w) => w.halt()));
  running = [];
});

const scenario = fc.record({
  initialShards: fc.integer({ min: 1, max: 3 }),
  workers: fc.integer({ min: 1, max: 4 }),
  steps: fc.array(step, { minLength: 1, maxLength: 10 }),
  seed: fc.integer(),
});

/**
 * A lease table that fails a share of its calls as a throttled DynamoDB does (nothing written), and
 * a smaller share after the write was applied, its answer lost (a reset connection).
 */
class ThrottledLeaseStore extends MemoryLeaseStore {
  constructor(private readonly random: () => number) {
    super();
  }

  private async faulty<T>(call: () => Promise<T>): Promise<T> {
    const draw = this.random();
    if (draw < 0.1) throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
    const result = await call();
    if (draw < 0.13) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    return result;
  }

  override list(): Promise<Lease[]> {
    return this.faulty(() => super.list());
  }
  override renew(lease: Lease, owner: string): Promise<Lease> {
    return this.faulty(() => super.renew(lease, owner));
  }
  override take(lease: Lease, owner: string): Promise<Lease | undefined> {
    return this.faulty(() => super.take(lease, owner));
  }
  override checkpoint(lease: Lease, owner: string, checkpoint: string): Promise<Lease> {
    return this.faulty(() => super.checkpoint(lease, owner, checkpoint));
  }
  override release(lease: Lease, owner: string): Promise<void> {
    return this.faulty(() => super.release(lease, owner));
  }
  override handOver(lease: Lease, owner: string): Promise<Lease> {
    return this.faulty(() => super.handOver(lease, owner));
  }
}

describe('stream processor on a splitting stream (simulated; DynamoDB Local never splits)', () => {
  fcTest.prop([scenario], { numRuns: 25, timeout: 30_000 })(
    'processes every record at least once, parents before children, each item in order, and balances',
    (run) => splittingRun(run, new MemoryLeaseStore()),
  );

  fcTest.prop([scenario], { numRuns: 25, timeout: 30_000 })(
    'does so on a lease table that throttles its calls and loses some answers',
    (run) => splittingRun(run, new ThrottledLeaseStore(seededRandom(run.seed ^ 0x5eed))),
  );
});

/** Runs `then` after `turns` turns of the event loop (at once for 0): where in the work under way it lands, not when. */
function afterTurns(turns: number, then: () => void): void {
  if (turns === 0) then();
  else setImmediate(() => afterTurns(turns - 1, then));
}

async function splittingRun(run: typeof scenario extends fc.Arbitrary<infer T> ? T : never, leases: MemoryLeaseStore): Promise<void> {
  const random = seededRandom(run.seed);
  const stream = new SimulatedStream({ initialShards: run.initialShards, pageSize: 2, expiryRate: 0.05, trimmedRate: 0.02, random });
  const sns = new FakeSns();
  // Each publish answers a turn of the event loop later, so pages are in flight while the next steps run.
  const slowSns = {
    send: (command: PublishBatchCommand) => new Promise<void>((resolve) => setImmediate(resolve)).then(() => sns.send(command)),
  };
  const publisher = createProcessorRelay({
    config,
    sns: slowSns,
    sqs: new FakeSqs(),
    topicArns,
    deadLetterQueueUrl: 'http://localhost/000000000000/relay-dlq',
    backoff: { baseDelayMs: 1, maxDelayMs: 5 },
  });
  let workerCounter = 0;
  const live: Worker[] = [];
  const join = async (): Promise<void> => {
    const worker = new Worker({
      source: new StreamSource(stream, stream.streamArn),
      leases,
      publisher,
      workerId: `w${++workerCounter}`,
      settings: SETTINGS,
    });
    running.push(worker);
    live.push(worker);
    await worker.start();
  };
  for (let i = 0; i < run.workers; i++) await join();

  const seqs = new Map<string, number>();
  const pendingStops: Promise<void>[] = [];
  const written: string[] = [];
  for (const action of run.steps) {
    if (action.kind === 'write') {
      const fresh: string[] = [];
      for (let c = 0; c < action.commits; c++) {
        const aggregate = AGGREGATES[Math.floor(random() * AGGREGATES.length)]!;
        const key = `${aggregate.type}:${aggregate.id}`;
        const events = 1 + Math.floor(random() * 3);
        const seq = (seqs.get(key) ?? 0) + events;
        seqs.set(key, seq);
        fresh.push(...stream.commit(aggregate, seq, events));
      }
      written.push(...fresh);
      // Progress before the next step, so splits and kills land mid-stream.
      const lowLatency = fresh.filter((id) => !id.startsWith('audit:'));
      if (lowLatency.length > 0) await vi.waitFor(() => expect(sns.accepted).toContain(lowLatency[0]), { timeout: 10_000, interval: 5 });
    } else if (action.kind === 'split') {
      const open = stream.openShards;
      stream.split(open[action.pick % open.length]!.id);
    } else if (action.kind === 'kill') {
      if (live.length === 1) await join();
      const holding = live.filter((w) => w.status().leases.length > 0);
      const pool = holding.length > 0 ? holding : live;
      const victim = pool[action.pick % pool.length]!;
      live.splice(live.indexOf(victim), 1);
      if (action.graceful) {
        // The hand-off runs on while the next steps do; a third of them crash part-way through it.
        pendingStops.push(victim.stop());
        if (action.pick % 3 === 0) afterTurns(action.pick % 7, () => void victim.halt());
      } else await victim.halt();
    } else {
      await join();
    }
  }

  await Promise.all(pendingStops);
  const expected = written.filter((id) => !id.startsWith('audit:'));
  await vi.waitFor(() => expect(expected.filter((id) => !sns.accepted.includes(id))).toEqual([]), { timeout: 15_000, interval: 10 });

  // Balanced: every unfinished lease held by a live worker, holdings within one of each other.
  await vi.waitFor(
    () => {
      const active = [...leases.rows.values()].filter((l) => !isFinished(l));
      const liveIds = new Set(live.map((w) => w.workerId));
      expect(active.filter((l) => l.leaseOwner === undefined || !liveIds.has(l.leaseOwner))).toEqual([]);
      const counts = live.map((w) => active.filter((l) => l.leaseOwner === w.workerId).length);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    },
    { timeout: 10_000, interval: 10 },
  );
  await Promise.all(live.map((w) => w.stop()));

  expect(sns.accepted.filter((id) => id.startsWith('audit:'))).toEqual([]);
  expectLineageOrder(sns.accepted, expected, stream);
}
