import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OutboxTable } from '../../infra/outbox-table.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { RelayFunction } from '../../infra/relay-function.js';
import { defineConfig } from '../../shared/config.js';
import { appWithoutBundling } from '../helpers/cdk.js';

/** One topic, one aggregate type, and `n` declared event types with a one-line description each. */
const catalogOf = (n: number) =>
  defineConfig({
    source: 'urn:example:shop',
    topics: [{ name: 'orders' }],
    routes: { order: 'orders' },
    eventTypes: Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `order.event-${String(i).padStart(2, '0')}`,
        { version: 1, schema: z.object({ orderId: z.string() }), aggregateType: 'order', description: `Order event number ${i}.` },
      ]),
    ),
  });

describe('the relay’s environment with an event catalog', () => {
  it('builds a relay for a config that declares 40 described event types, of which the relay gets the names only', () => {
    const config = catalogOf(40);
    const stack = new Stack(appWithoutBundling(), 'DynamoDbOutbox', { env: { account: '111111111111', region: 'eu-west-1' } });
    const table = new OutboxTable(stack, 'Table').table;
    const topics = new OutboxTopics(stack, 'Topics', { config });
    const relay = new RelayFunction(stack, 'Relay', { config, table, topics });
    const held = JSON.parse(relay.outboxFunction.environment.OUTBOX_CONFIG as string);
    // The names bound the relay's lagByEventType metric; schemas, descriptions and aggregate types stay behind.
    expect(held.eventTypes).toEqual(Object.fromEntries(Object.keys(config.eventTypes!).map((type) => [type, { version: 1 }])));
    expect(held).toMatchObject({ source: config.source, routes: config.routes });
  });
});
