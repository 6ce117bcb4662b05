import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { sqsOnFailureDestination } from '../../shared/local/event-source/on-failure.js';
import { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import type { RelayHandler } from '../../shared/relay/handler.js';
import { deliveryReport } from '../helpers/delivery.js';
import { FaultySns } from '../helpers/faulty-sns.js';
import { ON_FAILURE_QUEUE, RELAY_DLQ, type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';
import { type CommittedEvent, inParallel } from '../helpers/slot-writer.js';

const config = defineConfig({
  source: 'urn:test:relay',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  relay: { batchSize: 50 },
});
const ORDERS = subscriberQueue('orders.fifo');
const PAYMENTS = subscriberQueue('payments');

let stack: RelayTestStack | undefined;
let runner: StreamRunner | undefined;

afterEach(async () => {
  await runner?.stop();
  await stack?.stop();
});

async function run(handler: (stack: RelayTestStack) => RelayHandler): Promise<RelayTestStack> {
  const started = await startRelayStack(config);
  stack = started;
  runner = new StreamRunner({
    streams: started.clients.streams,
    streamArn: started.streamArn,
    settings: relayEventSourceSettings(config),
    handler: handler(started),
    onFailure: sqsOnFailureDestination(started.clients.sqs, started.onFailureQueueUrl),
    onError: (error) => console.error('stream runner error', (error as Error).name),
  });
  runner.start();
  return started;
}

/** `aggregates` aggregates of each type, `commits` commits each, one or two events per commit. */
async function commitMany(target: RelayTestStack, aggregates: number, commits: number): Promise<CommittedEvent[]> {
  const tasks = Array.from({ length: commits }, (_, c) => c).flatMap((c) =>
    Array.from({ length: aggregates }, (_, a) => a).flatMap((a) => [
      () => target.write({ type: 'order', id: `o-${a}` }, [{ type: 'order.changed', data: { a, c } }]),
      () =>
        target.write({ type: 'payment', id: `p-${a}` }, [
          { type: 'payment.changed', data: { a, c, n: 0 } },
          { type: 'payment.changed', data: { a, c, n: 1 } },
        ]),
    ]),
  );
  return (await inParallel(16, tasks)).flat();
}

const uniqueIds = (s: RelayTestStack, queue: string) => new Set(s.envelopes(queue).map((e) => e.id)).size;

describe('relay under failures', () => {
  it('loses no event and keeps per-aggregate order when SNS throttles and fails requests and entries', async () => {
    let faulty: FaultySns | undefined;
    const s = await run((target) => {
      faulty = new FaultySns(target.clients.sns, {
        throttledRequests: 0.15,
        failedRequests: 0.1,
        failedEntries: 0.1,
        lostAcks: 0.1,
        seed: 7,
      });
      return target.handler({ sns: faulty });
    });
    const committed = await commitMany(s, 12, 10);
    const orders = committed.filter((e) => e.aggregateType === 'order');
    const payments = committed.filter((e) => e.aggregateType === 'payment');

    await expect.poll(() => uniqueIds(s, ORDERS), { timeout: 180_000, interval: 250 }).toBe(orders.length);
    await expect.poll(() => uniqueIds(s, PAYMENTS), { timeout: 180_000, interval: 250 }).toBe(payments.length);
    const fifo = deliveryReport(orders, s.envelopes(ORDERS));
    const standard = deliveryReport(payments, s.envelopes(PAYMENTS));
    for (const report of [fifo, standard]) {
      expect(report.missing).toEqual([]);
      expect(report.unexpected).toEqual([]);
      expect(report.outOfOrder).toEqual([]);
    }
    expect(s.bodies(RELAY_DLQ)).toEqual([]);
    expect(s.bodies(ON_FAILURE_QUEUE)).toEqual([]);
    const stats = faulty!.stats;
    expect(stats.throttled).toBeGreaterThan(0);
    expect(stats.serverErrors).toBeGreaterThan(0);
    expect(stats.failedEntries).toBeGreaterThan(0);
    expect(stats.lostAcks).toBeGreaterThan(0);
    console.log(
      `fault injection: ${stats.requests} PublishBatch requests (${stats.throttled} throttled, ${stats.serverErrors} failed), ` +
        `${stats.failedEntries} entries failed, ${stats.lostAcks} acknowledgements lost; ` +
        `${faulty!.duplicatesPublished()} duplicates accepted by SNS, ${standard.duplicates} reached the standard queue, ` +
        `${fifo.duplicates} the FIFO queue (deduplicated by event id); ${runner!.stats.failedInvocations} invocations reported failures`,
    );
  }, 300_000);

  it('delivers every event at least once when the handler throws after publishing part of a batch', async () => {
    let crashes = 0;
    const s = await run((target) => {
      const real = target.handler();
      return async (event: DynamoDBStreamEvent) => {
        if (crashes < 3 && event.Records.length >= 2) {
          crashes++;
          await real({ Records: event.Records.slice(0, Math.ceil(event.Records.length / 2)) });
          throw new Error('crashed after publishing half of the batch');
        }
        return real(event);
      };
    });
    const committed = await commitMany(s, 10, 5);
    const orders = committed.filter((e) => e.aggregateType === 'order');
    const payments = committed.filter((e) => e.aggregateType === 'payment');

    await expect.poll(() => uniqueIds(s, ORDERS), { timeout: 180_000, interval: 250 }).toBe(orders.length);
    await expect.poll(() => uniqueIds(s, PAYMENTS), { timeout: 180_000, interval: 250 }).toBe(payments.length);
    expect(crashes).toBe(3);
    expect(runner!.stats.failedInvocations).toBeGreaterThanOrEqual(3);
    for (const report of [deliveryReport(orders, s.envelopes(ORDERS)), deliveryReport(payments, s.envelopes(PAYMENTS))]) {
      expect(report.missing).toEqual([]);
      expect(report.outOfOrder).toEqual([]);
    }
    expect(s.bodies(ON_FAILURE_QUEUE)).toEqual([]);
  }, 300_000);
});
