import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { type OutboxEnvelope, parseEnvelope } from '../../shared/envelope.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import type { ProcessorWorker } from '../../shared/processor/index.js';
import { deliveryReport } from '../helpers/delivery.js';
import { FaultySns } from '../helpers/faulty-sns.js';
import { freshLeaseTable, startTestProcessor } from '../helpers/processor-stack.js';
import { RELAY_DLQ, type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';
import { type CommittedEvent, inParallel } from '../helpers/slot-writer.js';

// Both types handed over, so the Lambda relay and the stream processor publish each of them; one
// FIFO topic sends one event per message, the other batch messages. Few publish attempts in
// process, so records keep failing back to the event source mapping and to the processor's retry
// from the failed record; no retry limit, so nothing goes to an on-failure destination.
const config = defineConfig({
  source: 'urn:test:adversarial-handover',
  topics: [
    { name: 'orders.fifo', fifo: true },
    { name: 'carts.fifo', fifo: true, batching: { maxEvents: 4 } },
  ],
  routes: { order: 'orders.fifo', cart: 'carts.fifo' },
  lowLatencyAggregateTypes: ['order'],
  handoverAggregateTypes: ['order', 'cart'],
  relay: { batchSize: 20, maxRetryAttempts: -1, maxPublishAttempts: 2 },
});
const QUEUES = { order: subscriberQueue('orders.fifo'), cart: subscriberQueue('carts.fifo') };
const FAULTS = { throttledRequests: 0.1, failedRequests: 0.1, failedEntries: 0.25, lostAcks: 0.1 };

let stack: RelayTestStack;
let runner: StreamRunner | undefined;
const workers: ProcessorWorker[] = [];
let leaseTableName = '';

beforeAll(async () => {
  stack = await startRelayStack(config);
});

afterAll(async () => {
  for (const worker of workers) await worker.stop();
  await runner?.stop();
  await stack?.stop();
});

/** Every envelope a queue holds, in queue order, a batch message's in its order. */
function received(queue: string): OutboxEnvelope[] {
  return stack
    .bodies(queue)
    .flatMap((body) =>
      body.startsWith('[') ? (JSON.parse(body) as unknown[]).map((e) => parseEnvelope(JSON.stringify(e))) : [parseEnvelope(body)],
    );
}

const distinct = (queue: string): number => new Set(received(queue).map((e) => e.id)).size;

function startWorker(workerId: string, sns: FaultySns): Promise<ProcessorWorker> {
  return startTestProcessor(stack, config, leaseTableName, {
    sns,
    backoff: { baseDelayMs: 5, maxDelayMs: 50 },
    workerId,
    settings: { failoverMs: 2000 },
  });
}

describe('a handover under publish failures and a processor crash', () => {
  it("loses no event and delivers each aggregate's first copies in order on FIFO topics", async () => {
    leaseTableName = await freshLeaseTable(stack);
    const relaySns = new FaultySns(stack.clients.sns, { ...FAULTS, seed: 11 });
    runner = new StreamRunner({
      streams: stack.clients.streams,
      streamArn: stack.streamArn,
      settings: relayEventSourceSettings(config),
      handler: stack.handler({ sns: relaySns }),
      onError: () => undefined,
    });
    runner.start();
    const snsA = new FaultySns(stack.clients.sns, { ...FAULTS, seed: 23 });
    const snsB = new FaultySns(stack.clients.sns, { ...FAULTS, seed: 37 });
    const a = await startWorker('worker-a', snsA);
    workers.push(a);
    await expect.poll(() => a.status().leases.length, { timeout: 20_000, interval: 20 }).toBeGreaterThan(0);
    const b = await startWorker('worker-b', snsB);
    workers.push(b);

    // Commits of 1, 3 and 12 events (more than one PublishBatch holds), four aggregates of each type.
    const sizes = [1, 3, 12];
    const tasks = Array.from({ length: 6 }, (_, round) => round).flatMap((round) =>
      (['order', 'cart'] as const).flatMap((type) =>
        Array.from({ length: 4 }, (_, n) => n).map(
          (n) => () =>
            stack.write(
              { type, id: `${type}-${n}` },
              Array.from({ length: sizes[(round + n) % sizes.length]! }, (_, i) => ({ type: `${type}.changed`, data: { round, i } })),
            ),
        ),
      ),
    );
    const writing = inParallel(8, tasks);
    // Worker A crashes while it publishes: worker B takes the lease once it expired, from A's last checkpoint.
    await expect.poll(() => a.status().eventsPublished, { timeout: 60_000, interval: 10 }).toBeGreaterThan(20);
    await a.halt();
    const committed: CommittedEvent[] = (await writing).flat();
    await expect.poll(() => b.status().leases.length, { timeout: 20_000, interval: 20 }).toBeGreaterThan(0);

    for (const type of ['order', 'cart'] as const) {
      const expected = committed.filter((e) => e.aggregateType === type).length;
      await expect.poll(() => distinct(QUEUES[type]), { timeout: 240_000, interval: 250 }).toBe(expected);
    }
    await runner.idle({ timeoutMs: 120_000 });
    await b.stop();

    for (const type of ['order', 'cart'] as const) {
      const report = deliveryReport(
        committed.filter((e) => e.aggregateType === type),
        received(QUEUES[type]),
      );
      expect(report.missing).toEqual([]);
      expect(report.unexpected).toEqual([]);
      expect(report.outOfOrder).toEqual([]);
    }
    expect(stack.bodies(RELAY_DLQ)).toEqual([]);
    // The Lambda relay alone publishes every event, so its SNS failed entries and lost acknowledgements.
    expect(relaySns.stats.failedEntries).toBeGreaterThan(0);
    expect(relaySns.stats.lostAcks).toBeGreaterThan(0);
  }, 400_000);
});
