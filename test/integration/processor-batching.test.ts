import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import type { OutboxEnvelope } from '../../shared/envelope.js';
import type { ProcessorWorker } from '../../shared/processor/index.js';
import { freshLeaseTable, startTestProcessor } from '../helpers/processor-stack.js';
import { type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';
import type { CommittedEvent } from '../helpers/slot-writer.js';

const config = defineConfig({
  source: 'urn:test:processor-batching',
  topics: [{ name: 'payments.fifo', fifo: true, batching: { maxEvents: 5 } }],
  routes: { payment: 'payments.fifo' },
  lowLatencyAggregateTypes: ['payment'],
});
const PAYMENTS = subscriberQueue('payments.fifo');

let stack: RelayTestStack;
let worker: ProcessorWorker | undefined;

beforeAll(async () => {
  stack = await startRelayStack(config);
});

afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
});

/** Each message's events: a batch's in order, or the one envelope. */
const messagesOf = (bodies: readonly string[]): OutboxEnvelope[][] =>
  bodies.map((body) => {
    const value = JSON.parse(body) as OutboxEnvelope | OutboxEnvelope[];
    return Array.isArray(value) ? value : [value];
  });

describe('stream processor with batching', () => {
  it('publishes a low-latency aggregate’s backlog in batch messages of at most maxEvents, in order, each event once', async () => {
    const leaseTableName = await freshLeaseTable(stack);
    const written: CommittedEvent[] = [];
    // The backlog is there before the worker starts, so its first pages hold many events of the aggregate.
    for (let i = 0; i < 8; i++) {
      written.push(
        ...(await stack.write(
          { type: 'payment', id: 'p-hot' },
          [1, 2].map((step) => ({ type: 'payment.changed', data: { i, step } })),
        )),
      );
    }
    worker = await startTestProcessor(stack, config, leaseTableName, { workerId: 'batching-worker' });

    await expect.poll(() => messagesOf(stack.bodies(PAYMENTS)).flat().length, { timeout: 60_000, interval: 50 }).toBe(16);
    const messages = messagesOf(stack.bodies(PAYMENTS));
    expect(messages.flat().map((e) => e.id)).toEqual(written.map((e) => e.id));
    expect(messages.flat().map((e) => e.aggregatesequence)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(Math.max(...messages.map((m) => m.length))).toBe(5);
  }, 120_000);
});
