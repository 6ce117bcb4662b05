import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import type { ProcessorWorker } from '../../shared/processor/index.js';
import { TRIM_HORIZON } from '../../shared/processor/lease.js';
import { DynamoDbLeaseTable } from '../../shared/processor/lease-table.js';
import { Outbox } from '../../shared/write/index.js';
import { freshLeaseTable, startTestProcessor } from '../helpers/processor-stack.js';
import { type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';

const config = defineConfig({
  source: 'urn:test:processor',
  topics: [
    { name: 'orders.fifo', fifo: true },
    { name: 'payments.fifo', fifo: true },
  ],
  routes: { order: 'orders.fifo', payment: 'payments.fifo' },
  lowLatencyAggregateTypes: ['payment'],
});
const ORDERS = subscriberQueue('orders.fifo');
const PAYMENTS = subscriberQueue('payments.fifo');

let stack: RelayTestStack;
let leaseTableName: string;
let worker: ProcessorWorker | undefined;
let runner: StreamRunner | undefined;

beforeAll(async () => {
  stack = await startRelayStack(config);
  leaseTableName = await freshLeaseTable(stack);
});

afterAll(async () => {
  await worker?.stop();
  await runner?.stop();
  await stack?.stop();
});

describe('stream processor against DynamoDB Local and fauxqs', () => {
  it('publishes the low-latency types in order, leaves the others to the Lambda path, and hands its lease over on stop', async () => {
    worker = await startTestProcessor(stack, config, leaseTableName, { workerId: 'it-worker', settings: { failoverMs: 3000 } });
    const outbox = new Outbox({ config, tableName: stack.tableName, client: stack.clients.dynamodb });
    const written = { order: [] as string[], payment: [] as string[] };
    for (let i = 0; i < 15; i++) {
      for (const type of ['order', 'payment'] as const) {
        const result = await outbox.write({
          events: [
            { aggregate: { type, id: `${type}-${i % 3}` }, type: `${type}.changed`, data: { i, step: 1 } },
            { aggregate: { type, id: `${type}-${i % 3}` }, type: `${type}.changed`, data: { i, step: 2 } },
          ],
        });
        written[type].push(...result.events.map((e) => e.id));
      }
    }

    await expect.poll(() => new Set(stack.envelopes(PAYMENTS).map((e) => e.id)).size, { timeout: 30_000, interval: 50 }).toBe(30);
    const payments = stack.envelopes(PAYMENTS);
    expect(payments.map((e) => e.id).sort()).toEqual([...written.payment].sort());
    for (const id of ['payment-0', 'payment-1', 'payment-2']) {
      const sequences = payments.filter((e) => e.subject === id).map((e) => e.aggregatesequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    }
    // Once the processor has read every record, the order records were seen and left alone.
    await expect.poll(() => worker!.status().recordsProcessed, { timeout: 30_000, interval: 50 }).toBe(30);
    expect(stack.bodies(ORDERS)).toEqual([]);
    expect(worker.status().eventsPublished).toBe(30);

    const leases = new DynamoDbLeaseTable(stack.clients.document, leaseTableName);
    // Checkpoints follow publishing in the background.
    await expect.poll(async () => (await leases.list())[0]?.checkpoint, { timeout: 10_000 }).not.toBe(TRIM_HORIZON);
    const [lease] = await leases.list();
    expect(lease).toMatchObject({ leaseOwner: 'it-worker', parentShardIds: [] });

    runner = new StreamRunner({
      streams: stack.clients.streams,
      streamArn: stack.streamArn,
      settings: relayEventSourceSettings(config),
      handler: stack.handler(),
    });
    runner.start();
    await expect.poll(() => new Set(stack.envelopes(ORDERS).map((e) => e.id)).size, { timeout: 30_000, interval: 50 }).toBe(30);
    await runner.idle();
    // The Lambda path publishes no payment: each type has exactly one path.
    expect(stack.bodies(PAYMENTS)).toHaveLength(30);

    await worker.stop();
    const [released] = await leases.list();
    expect(released!.leaseOwner).toBeUndefined();
    expect(BigInt(released!.checkpoint)).toBeGreaterThanOrEqual(BigInt(lease!.checkpoint));
  });

  it('rejects a config without low-latency aggregate types, naming the setting', async () => {
    const none = defineConfig({ ...config, lowLatencyAggregateTypes: [] });
    await expect(startTestProcessor(stack, none, leaseTableName)).rejects.toThrow(
      /config\.lowLatencyAggregateTypes: got \[\]; allowed: at least one/,
    );
  });
});
