import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localApp } from '../../functions/local/app.js';
import { config as appConfig } from '../../outbox.config.js';
import { defineConfig } from '../../shared/config.js';
import { type LocalStack, startLocalStack } from '../../shared/local/local-stack.js';
import { waitFor } from '../helpers/wait.js';

const config = defineConfig({ ...appConfig, lowLatencyAggregateTypes: ['payment'] });
let stack: LocalStack;
const delivered = new Set<string>();
const relayedTypes: string[] = [];

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const app = localApp();
  stack = await startLocalStack({
    config,
    ...app,
    // The real relay handler, watched: which aggregate types does the Lambda path get?
    relay: (deps) => {
      const handler = app.relay(deps);
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
});

const post = async (path: string, body?: unknown) => {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as { order: { orderId: string }; events: { id: string; type: string }[] };
};

describe('npm start stack with low-latency aggregate types', () => {
  it('runs the stream processor for them and the relay for the others, and the consumers receive every event', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const placed = await post('/orders', { total: 20 + i, currency: 'EUR' });
      const paid = await post(`/orders/${placed.order.orderId}/pay`);
      ids.push(...placed.events.map((e) => e.id), ...paid.events.map((e) => e.id));
    }

    await waitFor(() => ids.every((id) => delivered.has(id)), { timeoutMs: 45_000, what: 'every event delivered' });

    expect(stack.processorRunning).toBe(true);
    expect(stack.stats.published).toBe(ids.length);
    expect(relayedTypes.length).toBeGreaterThan(0);
    expect(new Set(relayedTypes)).toEqual(new Set(['order']));
  });

  it('fails to start when low-latency types are configured and no processor is given', async () => {
    const { relay, subscribers, api } = localApp();

    await expect(startLocalStack({ config, relay, subscribers, api, apiPort: 0 })).rejects.toMatchObject({
      code: 'LOW_LATENCY_PROCESSOR_MISSING',
      message: expect.stringContaining('routes payment through the low-latency processor'),
    });
  });
});
