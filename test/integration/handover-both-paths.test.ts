import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';
import type { OutboxEnvelope } from '../../shared/envelope.js';
import type { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import type { ProcessorWorker } from '../../shared/processor/index.js';
import { Outbox } from '../../shared/write/index.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { freshLeaseTable, startTestProcessor } from '../helpers/processor-stack.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';
import { type RelayTestStack, startRelayRunner, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';

// Mid-move: `payment` leaves the processor, `order` joins it; both paths publish both meanwhile.
const config = defineConfig({
  source: 'urn:test:handover',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
  handoverAggregateTypes: ['payment', 'order'],
});
const QUEUES = [subscriberQueue('orders.fifo'), subscriberQueue('payments')];

let stack: RelayTestStack;
let worker: ProcessorWorker | undefined;
let runner: StreamRunner | undefined;

beforeAll(async () => {
  stack = await startRelayStack(config);
});

afterAll(async () => {
  await worker?.stop();
  await runner?.stop();
  await stack?.stop();
});

describe('a handed-over aggregate type published by the Lambda relay and the stream processor at once', () => {
  it("reaches the consumer once per event after the inbox, each aggregate's events in order of first delivery", async () => {
    worker = await startTestProcessor(stack, config, await freshLeaseTable(stack), { settings: { failoverMs: 3000 } });
    // The Lambda path as deployed: its mapping's filter and a relay with the default selection.
    runner = startRelayRunner(stack, config);

    const outbox = new Outbox({ config, tableName: stack.tableName, client: stack.clients.dynamodb });
    const written: string[] = [];
    for (let i = 0; i < 8; i++) {
      for (const type of ['order', 'payment']) {
        const aggregate = { type, id: `${type}-${i % 2}` };
        const result = await outbox.write({
          events: [
            { aggregate, type: `${type}.changed`, data: { i, step: 1 } },
            { aggregate, type: `${type}.changed`, data: { i, step: 2 } },
          ],
        });
        written.push(...result.events.map((e) => e.id));
      }
    }

    // Both paths have read all 16 records and published every event they were given.
    await expect.poll(() => worker!.status().eventsPublished, { timeout: 30_000, interval: 50 }).toBe(32);
    const all = () => QUEUES.flatMap((queue) => stack.envelopes(queue).map((e) => e.id));
    await expect.poll(() => new Set(all()).size, { timeout: 30_000, interval: 50 }).toBe(32);
    await runner.idle();
    // The standard topic keeps the second copies (the FIFO one may drop them by deduplication id).
    expect(stack.envelopes(subscriberQueue('payments')).length).toBeGreaterThan(16);
    const delivered = all().length;

    const handled: OutboxEnvelope[] = [];
    const { logger, metrics, counts } = recordingTelemetry();
    const consumer = createConsumer({
      name: 'handover',
      sources: [config.source],
      inbox: { document: stack.clients.document, tableName: stack.tableName },
      sequenceTracking: true,
      logger,
      metrics,
      handlers: {
        'order.changed': { handle: (event: OutboxEnvelope) => void handled.push(event) },
        'payment.changed': { handle: (event: OutboxEnvelope) => void handled.push(event) },
      },
    });
    for (const queue of QUEUES) {
      const queueUrl = stack.server.inspectQueue(queue)?.url ?? '';
      await expect
        .poll(
          async () => {
            await pollOnce({ sqs: stack.clients.sqs, queueUrl, consumer, retryDelaySeconds: 0 });
            return queueDepth(stack.server, queue);
          },
          { timeout: 30_000, interval: 50 },
        )
        .toBe(0);
    }

    expect(handled.map((e) => e.id).sort()).toEqual([...written].sort());
    for (const subject of ['order-0', 'order-1', 'payment-0', 'payment-1']) {
      expect(handled.filter((e) => e.subject === subject).map((e) => e.aggregatesequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    }
    expect(counts.get('DuplicateEvents')).toBe(delivered - 32);
    // The late copies are duplicates to the inbox: never reported as out of order, and no gap.
    expect(counts.get('SequenceOutOfOrder') ?? 0).toBe(0);
    expect(counts.get('SequenceGaps') ?? 0).toBe(0);
  }, 90_000);
});
