import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';
import type { MessageOutcome } from '../../shared/consumer/types.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { sqsOnFailureDestination } from '../../shared/local/event-source/on-failure.js';
import { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { Outbox, type WrittenEvent } from '../../shared/write/index.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';
import { ON_FAILURE_QUEUE, type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';

const config = defineConfig({
  source: 'urn:test:end-to-end',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  relay: { maxRetryAttempts: 1 },
});
const ORDERS = subscriberQueue('orders.fifo');
const PAYMENTS = subscriberQueue('payments');

let stack: RelayTestStack;
let runner: StreamRunner;
let snsDown = true;

beforeAll(async () => {
  stack = await startRelayStack(config);
  const relay = stack.handler();
  runner = new StreamRunner({
    streams: stack.clients.streams,
    streamArn: stack.streamArn,
    settings: relayEventSourceSettings(config),
    handler: async (event: DynamoDBStreamEvent) => {
      if (snsDown) throw new Error('SNS unavailable');
      return relay(event);
    },
    onFailure: sqsOnFailureDestination(stack.clients.sqs, stack.onFailureQueueUrl),
  });
  runner.start();
});

afterAll(async () => {
  await runner?.stop();
  await stack?.stop();
});

const failedRecords = () =>
  stack
    .bodies(ON_FAILURE_QUEUE)
    .reduce((sum, body) => sum + (JSON.parse(body) as { DDBStreamBatchInfo: { batchSize: number } }).DDBStreamBatchInfo.batchSize, 0);

describe('write → stream → relay → SNS/SQS → consumer, with an outage redriven from the on-failure records', () => {
  it('handles every event exactly once and reports the late ones', async () => {
    const outbox = new Outbox({ config, tableName: stack.tableName, client: stack.clients.document });
    const write = async (type: string, id: string, events: string[]): Promise<readonly WrittenEvent[]> =>
      (await outbox.write({ events: events.map((eventType) => ({ aggregate: { type, id }, type: eventType, data: { id } })) })).events;

    // Outage: every batch fails until the event source mapping gives up and records it.
    const lost = [
      ...(await write('order', 'o-1', ['order.placed'])),
      ...(await write('order', 'o-1', ['order.paid'])),
      ...(await write('payment', 'p-1', ['payment.authorised', 'payment.captured'])),
    ];
    await expect.poll(failedRecords, { timeout: 120_000, interval: 100 }).toBe(3);

    snsDown = false;
    const live = [...(await write('order', 'o-1', ['order.shipped'])), ...(await write('payment', 'p-2', ['payment.captured']))];
    await expect.poll(() => stack.bodies(ORDERS).length + stack.bodies(PAYMENTS).length, { timeout: 120_000, interval: 100 }).toBe(2);

    const handled: string[] = [];
    const { logger, metrics, counts } = recordingTelemetry();
    const handler = { handle: (event: { id: string }) => void handled.push(event.id) };
    const consumer = createConsumer({
      name: 'e2e',
      sources: [config.source],
      inbox: { document: stack.clients.document, tableName: stack.tableName },
      sequenceTracking: true,
      logger,
      metrics,
      handlers: Object.fromEntries([...lost, ...live].map((e) => [e.type, handler])),
    });
    const drain = async (): Promise<MessageOutcome[]> => {
      const outcomes: MessageOutcome[] = [];
      for (const queue of [ORDERS, PAYMENTS]) {
        const queueUrl = stack.server.inspectQueue(queue)?.url ?? '';
        await expect
          .poll(
            async () => {
              outcomes.push(...(await pollOnce({ sqs: stack.clients.sqs, queueUrl, consumer, retryDelaySeconds: 0 })).result.outcomes);
              return queueDepth(stack.server, queue);
            },
            { timeout: 30_000, interval: 50 },
          )
          .toBe(0);
      }
      return outcomes;
    };

    expect((await drain()).map((o) => o.status)).toEqual(['processed', 'processed']);

    const summary = await redriveOnFailure({
      source: { sqs: stack.clients.sqs, queueUrl: stack.onFailureQueueUrl },
      sns: stack.clients.sns,
      streams: stack.clients.streams,
      config,
      topicArns: stack.topicArns,
    });
    expect(summary).toMatchObject({ republished: 4, after: 0, failed: [], skipped: [] });

    const redriven = await drain();
    expect(redriven.filter((o) => o.status === 'processed')).toHaveLength(4);
    expect(handled.sort()).toEqual([...lost, ...live].map((e) => e.id).sort());
    // o-1's first two events arrived after its third: reported, not silently accepted.
    expect(counts.get('SequenceOutOfOrder')).toBe(2);
  }, 180_000);
});
