import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { UNDECLARED_EVENT_TYPE } from '../../shared/lag-by-event-type.js';
import type { ProcessorWorker } from '../../shared/processor/index.js';
import type { BatchReport } from '../../shared/processor/worker-observer.js';
import { Outbox } from '../../shared/write/index.js';
import { freshLeaseTable, startTestProcessor } from '../helpers/processor-stack.js';
import { type RelayTestStack, startRelayStack } from '../helpers/relay-stack.js';

const config = defineConfig({
  source: 'urn:test:processor-lag-by-event-type',
  topics: [{ name: 'orders' }, { name: 'payments' }],
  routes: { order: 'orders', payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
  eventTypes: { 'payment.placed': { version: 1, aggregateType: 'payment' } },
  undeclaredEventTypes: 'allow',
});

let stack: RelayTestStack;
let leaseTableName: string;
let worker: ProcessorWorker | undefined;

beforeAll(async () => {
  stack = await startRelayStack(config);
  leaseTableName = await freshLeaseTable(stack);
});

afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
});

describe('the stream processor and its config’s event catalog', () => {
  it('reports the lag per event type of what it publishes, a declared type by name and any other as the undeclared bucket', async () => {
    const reports: BatchReport[] = [];
    const outbox = new Outbox({ config, tableName: stack.tableName, client: stack.clients.dynamodb });
    await outbox.write({
      events: [
        { aggregate: { type: 'payment', id: 'P1' }, type: 'payment.placed', data: { n: 1 } },
        { aggregate: { type: 'payment', id: 'P1' }, type: 'payment.audited', data: { n: 2 } },
      ],
    });
    worker = await startTestProcessor(stack, config, leaseTableName, {
      workerId: 'lag-by-event-type-worker',
      settings: { failoverMs: 3000 },
      observer: { batch: (report) => reports.push(report) },
    });

    await expect
      .poll(() => reports.find((r) => r.published > 0)?.lagByEventType, { timeout: 30_000, interval: 100 })
      .toEqual({ payment: { 'payment.placed': expect.any(Number), [UNDECLARED_EVENT_TYPE]: expect.any(Number) } });
  });
});
