import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../infra/outbox.js';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { appWithoutBundling, expectPropsError } from '../helpers/cdk.js';

const baseConfig: OutboxConfigInput = {
  source: 'urn:test:infra',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
};
const catalog = { 'order.placed': { version: 1 }, 'order.paid': { version: 1 } };

function outboxOf(config: OutboxConfigInput): Outbox {
  return new Outbox(new Stack(appWithoutBundling(), 'Subscribers'), 'Outbox', { config: defineConfig(config) });
}

/** The values of `attribute` in the one subscription's filter policy. */
function filtered(outbox: Outbox, attribute = 'type'): unknown {
  const subscriptions = Template.fromStack(Stack.of(outbox)).findResources('AWS::SNS::Subscription');
  const [subscription] = Object.values(subscriptions);
  return subscription?.Properties.FilterPolicy[attribute];
}

describe('Outbox.addSubscriber: eventTypes against the config catalog', () => {
  it('refuses a type the catalog does not declare, naming the subscriber, the type and the declared types, and adds nothing', () => {
    const outbox = outboxOf({ ...baseConfig, eventTypes: catalog });
    expectPropsError(
      () => outbox.addSubscriber('Billing', { topic: 'orders.fifo', eventTypes: ['order.placed', 'order.plcaed'] }),
      'eventTypes[1]',
      'Invalid props for Subscribers/Outbox/Billing: eventTypes[1] is "order.plcaed"',
      "which the config's eventTypes do not declare",
      'allowed: a declared type (order.placed, order.paid)',
    );
    expect(outbox.subscribers.size).toBe(0);
    expect(outbox.node.tryFindChild('Billing')).toBeUndefined();
  });

  it('takes the declared types, filtering on them', () => {
    const outbox = outboxOf({ ...baseConfig, eventTypes: catalog });
    outbox.addSubscriber('Billing', { topic: 'orders.fifo', eventTypes: ['order.paid'] });
    expect(filtered(outbox)).toEqual(['order.paid']);
  });

  it('takes any type without a catalog, or with undeclaredEventTypes: allow, where such events can be written', () => {
    const free = outboxOf(baseConfig);
    free.addSubscriber('Billing', { topic: 'orders.fifo', eventTypes: ['order.anything'] });
    expect(filtered(free)).toEqual(['order.anything']);

    const allowing = outboxOf({ ...baseConfig, eventTypes: catalog, undeclaredEventTypes: 'allow' });
    allowing.addSubscriber('Billing', { topic: 'orders.fifo', eventTypes: ['order.anything'] });
    expect(filtered(allowing)).toEqual(['order.anything']);
  });
});

describe('Outbox.addSubscriber: eventTypes against the topics their aggregate types route to', () => {
  const routedCatalog = {
    'order.placed': { version: 1, aggregateType: 'order' },
    'payment.captured': [
      { version: 1, aggregateType: 'payment' },
      { version: 2, aggregateType: 'payment' },
    ],
    'note.added': [{ version: 1, aggregateType: 'payment' }, { version: 2 }],
  };

  it('refuses a type declared only on aggregate types routed to another topic, under reject or allow', () => {
    for (const undeclaredEventTypes of ['reject', 'allow'] as const) {
      const outbox = outboxOf({ ...baseConfig, eventTypes: routedCatalog, undeclaredEventTypes });
      expectPropsError(
        () => outbox.addSubscriber('Billing', { topic: 'orders.fifo', eventTypes: ['order.placed', 'payment.captured'] }),
        'eventTypes[1]',
        'eventTypes[1] is "payment.captured", declared on aggregate type "payment" → "payments", not on one routed to "orders.fifo"',
        'allowed: a type published to "orders.fifo"',
      );
      expect(outbox.subscribers.size).toBe(0);
    }
  });

  it('takes a type with a version on any aggregate type, or on one routed to the topic', () => {
    const outbox = outboxOf({ ...baseConfig, eventTypes: routedCatalog });
    outbox.addSubscriber('Billing', { topic: 'orders.fifo', eventTypes: ['order.placed', 'note.added'] });
    expect(filtered(outbox)).toEqual(['order.placed', 'note.added']);
  });
});

describe('Outbox.addSubscriber: aggregateTypes against the config routes', () => {
  it('refuses an aggregate type routed to another topic, or to none, naming the subscriber, the type and the routed ones', () => {
    const outbox = outboxOf(baseConfig);
    expectPropsError(
      () => outbox.addSubscriber('Billing', { topic: 'orders.fifo', aggregateTypes: ['order', 'payment'] }),
      'aggregateTypes[1]',
      'Invalid props for Subscribers/Outbox/Billing: aggregateTypes[1] is "payment", which the config routes to "payments", not to "orders.fifo"',
      'allowed: an aggregate type routed to "orders.fifo" (order)',
    );
    expectPropsError(
      () => outbox.addSubscriber('Shipping', { topic: 'orders.fifo', aggregateTypes: ['ordr'] }),
      'aggregateTypes[0]',
      'is "ordr", which the config does not route (no event of it can be written)',
    );
    expect(outbox.subscribers.size).toBe(0);
  });

  it('takes the aggregate types routed to the topic, filtering on them', () => {
    const outbox = outboxOf(baseConfig);
    outbox.addSubscriber('Billing', { topic: 'payments', aggregateTypes: ['payment'] });
    expect(filtered(outbox, 'aggregatetype')).toEqual(['payment']);
  });

  it('refuses before anything is added: the template has no queue and no subscription of the refused subscriber', () => {
    const outbox = outboxOf({ ...baseConfig, eventTypes: { 'order.placed': { version: 1, aggregateType: 'order' } } });
    expectPropsError(() => outbox.addSubscriber('Billing', { topic: 'payments', eventTypes: ['order.placed'] }), 'eventTypes[0]');
    expectPropsError(() => outbox.addSubscriber('Billing', { topic: 'payments', aggregateTypes: ['order'] }), 'aggregateTypes[0]');
    const template = Template.fromStack(Stack.of(outbox));
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    expect(Object.keys(template.toJSON().Resources).filter((id) => id.includes('Billing'))).toEqual([]);
  });

  it("leaves a list of no strings to the subscriber's own check, which names it", () => {
    expectPropsError(
      () => outboxOf(baseConfig).addSubscriber('Billing', { topic: 'orders.fifo', aggregateTypes: [7 as never] }),
      'aggregateTypes',
      'is [7]; allowed: a non-empty list of non-empty strings',
    );
  });

  it('leaves a topic the config does not name to the topic lookup', () => {
    expectPropsError(() => outboxOf(baseConfig).addSubscriber('Billing', { topic: 'invoices', aggregateTypes: ['order'] }), 'topic');
  });
});
