import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../infra/outbox.js';
import { OutboxSubscriber } from '../../infra/outbox-subscriber.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { defineConfig, type OutboxConfig } from '../../shared/config.js';
import { appWithoutBundling, expectPropsError } from '../helpers/cdk.js';

const config = defineConfig({
  source: 'urn:test:infra',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  eventTypes: { 'order.placed': { version: 1, aggregateType: 'order' }, 'payment.captured': { version: 1, aggregateType: 'payment' } },
});

/** A stack with the config's topics, as a standalone subscriber's app makes them. */
function topicsOf(given: OutboxConfig = config) {
  const stack = new Stack(appWithoutBundling(), 'Subscribers');
  return { stack, topics: new OutboxTopics(stack, 'Topics', { config: given }) };
}

const subscriptions = (stack: Stack) => Template.fromStack(stack).findResources('AWS::SNS::Subscription');

describe('OutboxSubscriber given the config: its filter checked as Outbox.addSubscriber checks it', () => {
  it('refuses an event type the catalog does not declare, naming the subscriber, the type and the declared types, and adds nothing', () => {
    const { stack, topics } = topicsOf();
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Billing', { topic: topics.topic('orders.fifo'), config, eventTypes: ['order.plcaed'] }),
      'eventTypes[0]',
      'Invalid props for Subscribers/Billing: eventTypes[0] is "order.plcaed"',
      "which the config's eventTypes do not declare",
      'allowed: a declared type (order.placed, payment.captured)',
    );
    expect(stack.node.tryFindChild('Billing')).toBeUndefined();
    expect(subscriptions(stack)).toEqual({});
  });

  it("refuses an event type published to another topic, and an aggregate type routed to another, on an Outbox's topic too", () => {
    const stack = new Stack(appWithoutBundling(), 'Subscribers');
    const outbox = new Outbox(stack, 'Outbox', { config });
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Billing', { topic: outbox.topics.topic('orders.fifo'), config, eventTypes: ['payment.captured'] }),
      'eventTypes[0]',
      'is "payment.captured", declared on aggregate type "payment" → "payments", not on one routed to "orders.fifo"',
    );
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Ledger', { topic: outbox.topics.topic('payments'), config, aggregateTypes: ['order'] }),
      'aggregateTypes[0]',
      'Invalid props for Subscribers/Ledger: aggregateTypes[0] is "order", which the config routes to "orders.fifo", not to "payments"',
      'allowed: an aggregate type routed to "payments" (payment)',
    );
  });

  it('takes a filter the config lets through, and any filter without the config, as before', () => {
    const { stack, topics } = topicsOf();
    new OutboxSubscriber(stack, 'Billing', { topic: topics.topic('payments'), config, eventTypes: ['payment.captured'] });
    new OutboxSubscriber(stack, 'Audit', { topic: topics.topic('payments'), eventTypes: ['order.plcaed'], aggregateTypes: ['order'] });
    const policies = Object.values(subscriptions(stack)).map((s) => s.Properties.FilterPolicy);
    expect(policies).toEqual([{ type: ['payment.captured'] }, { type: ['order.plcaed'], aggregatetype: ['order'] }]);
  });

  it('refuses the config with a topic that is no OutboxTopics topic, whose config name cannot be told', () => {
    const stack = new Stack(appWithoutBundling(), 'Subscribers');
    const topic = Topic.fromTopicArn(stack, 'Orders', 'arn:aws:sns:eu-west-1:123456789012:orders.fifo');
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Billing', { topic, config, eventTypes: ['order.placed'] }),
      'config',
      'Invalid props for Subscribers/Billing: config is given with the topic Subscribers/Orders, which is no topic of an OutboxTopics',
      'allowed: a topic from outbox.topics.topic(name) or an OutboxTopics',
    );
  });

  it('refuses a config that does not name the topic, and one defineConfig would refuse', () => {
    const { stack, topics } = topicsOf(
      defineConfig({ source: 'urn:test:other', topics: [{ name: 'invoices' }], routes: { invoice: 'invoices' } }),
    );
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Billing', { topic: topics.topic('invoices'), config }),
      'config',
      'names no topic "invoices"',
      'allowed: the config the topics were made from (its topics: "orders.fifo", "payments")',
    );
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Ledger', { topic: topics.topic('invoices'), config: { source: '' } as unknown as OutboxConfig }),
      'config',
      'is not a valid outbox config (at ',
      'allowed: the outbox config defineConfig returns',
    );
  });

  it('leaves addSubscriber on the outbox config: a config among its options is not the one checked', () => {
    const stack = new Stack(appWithoutBundling(), 'Subscribers');
    const outbox = new Outbox(stack, 'Outbox', { config });
    const loose = defineConfig({ ...config, undeclaredEventTypes: 'allow' });
    const options = { topic: 'orders.fifo', config: loose, eventTypes: ['order.plcaed'] };
    expectPropsError(() => outbox.addSubscriber('Billing', options), 'eventTypes[0]', 'Invalid props for Subscribers/Outbox/Billing');
    expect(outbox.subscribers.size).toBe(0);
  });
});
