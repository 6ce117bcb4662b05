import { describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { distinctIds } from '../../infra/private/construct-ids.js';
import { defineConfig } from '../../shared/config.js';
import { appWithoutBundling, CONSUMER_ENTRY } from '../helpers/cdk.js';

const alphanumeric = (name: string) => name.replace(/[^A-Za-z0-9]/g, '');

describe('distinctIds', () => {
  it('keeps the plain id of every name that collides with no other', () => {
    expect(distinctIds(['orders.fifo', 'payments'], alphanumeric)).toEqual(['ordersfifo', 'payments']);
  });

  it('keeps the plain id for the first of colliding names and makes the later ones distinct', () => {
    const ids = distinctIds(['orders.fifo', 'orders_fifo', 'orders-fifo', 'ordersfifo'], alphanumeric);
    expect(ids[0]).toBe('ordersfifo');
    expect(ids.slice(1).every((id) => /^ordersfifo[0-9A-F]{8}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(4);
  });

  it('leaves the ids of earlier names alone when a colliding name is appended', () => {
    const before = distinctIds(['orders.fifo', 'payments'], alphanumeric);
    expect(distinctIds(['orders.fifo', 'payments', 'orders_fifo'], alphanumeric).slice(0, 2)).toEqual(before);
  });

  it('stays distinct when a name happens to equal a suffixed id, or names repeat', () => {
    const [, suffixed] = distinctIds(['a.b', 'a_b'], alphanumeric);
    expect(new Set(distinctIds(['a.b', suffixed!, 'a_b'], alphanumeric)).size).toBe(3);
    expect(new Set(distinctIds(['x', 'x', 'x'], alphanumeric)).size).toBe(3);
  });
});

// Built, not synthesized: a colliding construct id fails while the stack is being built.
describe('OutboxStack with topic names that differ only in punctuation or case', () => {
  const config = defineConfig({
    source: 'urn:test:ids',
    topics: [{ name: 'orders.fifo', fifo: true }, { name: 'orders_fifo' }, { name: 'Orders-Fifo' }, { name: 'payments' }],
    routes: { order: 'orders.fifo', audit: 'orders_fifo', shipment: 'Orders-Fifo', payment: 'payments' },
  });
  it('builds one topic output, subscriber and delivery alarm per topic, keeping the ids of names without a collision', () => {
    const stack = new OutboxStack(appWithoutBundling(), 'Ids', { config, consumerEntry: CONSUMER_ENTRY });
    const outputIds = (prefix: string) => stack.node.children.map((c) => c.node.id).filter((id) => id.startsWith(prefix));
    const topicOutputs = outputIds('TopicArn');
    expect(topicOutputs).toHaveLength(4);
    expect(topicOutputs).toEqual(expect.arrayContaining(['TopicArnOrdersFifo', 'TopicArnPayments']));
    expect(new Set(topicOutputs).size).toBe(4);
    expect(outputIds('ExampleConsumerQueueUrl')).toHaveLength(4);
    expect([...stack.outbox.subscribers.keys()]).toEqual(expect.arrayContaining(['ExampleConsumerOrdersFifo', 'ExampleConsumerPayments']));
    expect(stack.outbox.subscribers.size).toBe(4);
    const deliveryAlarms = stack.outbox.alarms.alarms.map((a) => a.node.id).filter((id) => id.startsWith('DeliveryFailures'));
    expect(deliveryAlarms).toHaveLength(4);
    expect(deliveryAlarms).toEqual(expect.arrayContaining(['DeliveryFailuresordersfifo', 'DeliveryFailurespayments']));
  });
});
