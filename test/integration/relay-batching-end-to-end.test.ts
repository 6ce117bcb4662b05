import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';
import type { MessageOutcome } from '../../shared/consumer/types.js';
import { BATCH_CONTENT_TYPE } from '../../shared/envelope.js';
import type { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';
import { type RelayTestStack, startRelayRunner, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';
import { type CommittedEvent, inParallel } from '../helpers/slot-writer.js';

const config = defineConfig({
  source: 'urn:test:batching',
  topics: [{ name: 'orders.fifo', fifo: true, batching: { maxEvents: 10 } }],
  routes: { order: 'orders.fifo' },
});
const ORDERS = subscriberQueue('orders.fifo');

let stack: RelayTestStack;
let runner: StreamRunner;

beforeAll(async () => {
  stack = await startRelayStack(config);
  runner = startRelayRunner(stack, config);
});

afterAll(async () => {
  await runner?.stop();
  await stack?.stop();
});

describe('batching end to end (DynamoDB Local → runner → relay → fauxqs → consumer)', () => {
  it('delivers a hot aggregate in batch messages that the consumer handles in order, each event once', async () => {
    // A hot aggregate written in series (so its commits are many records), a few cold ones beside it, one event type a run.
    const hot: CommittedEvent[] = [];
    for (let c = 0; c < 12; c++) {
      hot.push(
        ...(await stack.write(
          { type: 'order', id: 'hot' },
          [0, 1, 2].map((i) => ({ type: 'order.changed', data: { c, i } })),
        )),
      );
    }
    hot.push(...(await stack.write({ type: 'order', id: 'hot' }, [{ type: 'order.closed', data: {} }])));
    const cold = (
      await inParallel(
        4,
        Array.from(
          { length: 8 },
          (_, i) => () => stack.write({ type: 'order', id: `cold-${i}` }, [{ type: 'order.changed', data: { i } }]),
        ),
      )
    ).flat();
    const committed = [...hot, ...cold];

    const handled = new Map<string, number[]>();
    const telemetry = recordingTelemetry();
    const handler = {
      handle: (event: { subject: string; aggregatesequence: number }) =>
        void handled.set(event.subject, [...(handled.get(event.subject) ?? []), event.aggregatesequence]),
    };
    const consumer = createConsumer({
      name: 'batching-e2e',
      sources: [config.source],
      inbox: { document: stack.clients.document, tableName: stack.tableName },
      sequenceTracking: true,
      logger: telemetry.logger,
      metrics: telemetry.metrics,
      handlers: { 'order.changed': handler, 'order.closed': handler },
    });
    const queueUrl = stack.server.inspectQueue(ORDERS)?.url ?? '';
    const outcomes: MessageOutcome[] = [];
    await expect
      .poll(
        async () => {
          outcomes.push(...(await pollOnce({ sqs: stack.clients.sqs, queueUrl, consumer, retryDelaySeconds: 0 })).result.outcomes);
          return [...handled.values()].reduce((sum, s) => sum + s.length, 0);
        },
        { timeout: 120_000, interval: 100 },
      )
      .toBe(committed.length);
    await expect.poll(() => queueDepth(stack.server, ORDERS), { timeout: 10_000 }).toBe(0);

    expect(handled.get('hot')).toEqual(Array.from({ length: 37 }, (_, i) => i + 1));
    for (let i = 0; i < 8; i++) expect(handled.get(`cold-${i}`)).toEqual([1]);
    expect(outcomes.every((o) => o.status === 'processed')).toBe(true);
    // The hot aggregate's 37 events came in a few messages: the order.changed runs batched, order.closed alone.
    const batches = outcomes.filter((o) => o.status === 'processed' && o.events !== undefined);
    expect(batches.length).toBeGreaterThan(0);
    expect(outcomes.length).toBeLessThan(committed.length);
    expect(telemetry.counts.get('SequenceGaps')).toBeUndefined();
    expect(telemetry.counts.get('SequenceOutOfOrder')).toBeUndefined();
  }, 180_000);

  it('marks a batch message with its content type and the events’ attributes for filter policies', async () => {
    const before = stack.bodies(ORDERS).length;
    await stack.write(
      { type: 'order', id: 'marked' },
      [1, 2, 3].map((i) => ({ type: 'order.changed', data: { i } })),
    );
    await expect.poll(() => stack.bodies(ORDERS).length, { timeout: 60_000, interval: 100 }).toBe(before + 1);
    const queue = stack.server.inspectQueue(ORDERS)!;
    const message = [...queue.messages.ready, ...queue.messages.delayed].at(-1)!;
    expect(JSON.parse(message.body)).toHaveLength(3);
    expect(message.messageAttributes).toMatchObject({
      type: { DataType: 'String', StringValue: 'order.changed' },
      'content-type': { DataType: 'String', StringValue: BATCH_CONTENT_TYPE },
    });
  }, 90_000);
});
