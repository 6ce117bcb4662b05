import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localApp } from '../../examples/orders/local-app.js';
import { config as appConfig } from '../../examples/orders/outbox.config.js';
import { defineConfig } from '../../shared/config.js';
import { type LocalStack, startLocalStack } from '../../shared/local/stack/local-stack.js';
import { localRelayHandler } from '../../shared/local/stack/relay.js';
import { PROCESSOR_METRICS } from '../../shared/processor/index.js';
import { captureLogs, isMetricsLine } from '../helpers/logs.js';
import { waitFor } from '../helpers/wait.js';

const config = defineConfig({ ...appConfig, lowLatencyAggregateTypes: ['payment'] });
let stack: LocalStack;
const delivered = new Set<string>();
const relayedTypes: string[] = [];
const processorEventIds: string[] = [];
let metricsLines: ReturnType<typeof captureLogs>;

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  metricsLines = captureLogs(isMetricsLine);
  const app = localApp();
  stack = await startLocalStack({
    config,
    ...app,
    // Metrics on for the processor only (Powertools reads the switch when its Metrics is made).
    processor: async (deps) => {
      process.env.POWERTOOLS_METRICS_DISABLED = 'false';
      try {
        return await app.processor!(deps);
      } finally {
        process.env.POWERTOOLS_METRICS_DISABLED = 'true';
      }
    },
    // The real relay handler, watched: which aggregate types does the Lambda path get?
    relay: (deps) => {
      const handler = localRelayHandler(deps);
      return (event: DynamoDBStreamEvent, context) => {
        for (const record of event.Records) relayedTypes.push(record.dynamodb?.NewImage?.aggregateType?.S ?? '?');
        return handler(event, context);
      };
    },
    apiPort: 0,
    onDelivery: ({ body }) => delivered.add((JSON.parse(body) as { id: string }).id),
  });
});

afterAll(async () => {
  await stack?.stop();
  metricsLines?.stop();
});

const post = async (path: string, body?: unknown) => {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as {
    order: { orderId: string };
    events: { id: string; type: string; aggregate: { type: string } }[];
  };
};

describe('npm start stack with low-latency aggregate types', () => {
  it('runs the stream processor for them and the relay for the others, and the consumers receive every event', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const placed = await post('/orders', { total: 20 + i, currency: 'EUR' });
      const paid = await post(`/orders/${placed.order.orderId}/pay`);
      ids.push(...placed.events.map((e) => e.id), ...paid.events.map((e) => e.id));
      processorEventIds.push(...paid.events.filter((e) => e.aggregate.type === 'payment').map((e) => e.id));
    }

    await waitFor(() => ids.every((id) => delivered.has(id)), { timeoutMs: 45_000, what: 'every event delivered' });

    expect(stack.processorRunning).toBe(true);
    expect(stack.stats.published).toBe(ids.length);
    expect(relayedTypes.length).toBeGreaterThan(0);
    expect(new Set(relayedTypes)).toEqual(new Set(['order']));
  });

  it('writes out the processor metrics gathered since their last periodic flush when the stack stops', async () => {
    expect(processorEventIds.length).toBeGreaterThan(0);

    await stack.stop();

    const published = metricsLines.lines
      // The batch lines: a per-aggregate-type lag line carries no counts.
      .filter((line) => line.service === PROCESSOR_METRICS.service && !(PROCESSOR_METRICS.aggregateTypeDimension in line))
      .reduce((sum, line) => sum + Number(line.published), 0);
    expect(published).toBe(processorEventIds.length);
  });
});
