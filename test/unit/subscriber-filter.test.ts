import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { subscriberFilterProblem } from '../../shared/subscriber-filter.js';

/* The one reading of a subscriber's filter that Outbox.addSubscriber and startOutboxTestStack both refuse by. */

const config = defineConfig({
  source: 'urn:test:subscriber-filter',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments', refund: 'payments' },
  eventTypes: {
    'order.placed': { version: 1, aggregateType: 'order' },
    'payment.captured': [
      { version: 1, aggregateType: 'payment' },
      { version: 2, aggregateType: 'refund' },
    ],
    'note.added': { version: 1 },
  },
});

describe('subscriberFilterProblem', () => {
  it('answers undefined for a filter whose every entry can reach the topic', () => {
    expect(subscriberFilterProblem(config, 'orders.fifo', {})).toBeUndefined();
    expect(
      subscriberFilterProblem(config, 'orders.fifo', { eventTypes: ['order.placed', 'note.added'], aggregateTypes: ['order'] }),
    ).toBeUndefined();
    expect(subscriberFilterProblem(config, 'payments', { eventTypes: ['payment.captured'], aggregateTypes: ['refund'] })).toBeUndefined();
  });

  it('names every aggregate type and its topic of a type declared only elsewhere', () => {
    expect(subscriberFilterProblem(config, 'orders.fifo', { eventTypes: ['payment.captured'] })).toEqual({
      entry: 'eventTypes[0]',
      message:
        'is "payment.captured", declared on aggregate type "payment" → "payments", "refund" → "payments", not on one routed to "orders.fifo", so the subscriber would receive nothing; allowed: a type published to "orders.fifo", or subscribe to the topic its aggregate type routes to',
    });
  });

  it('answers the first entry that lets nothing through, the event types before the aggregate types', () => {
    const problem = subscriberFilterProblem(config, 'payments', {
      eventTypes: ['payment.captured', 'order.placed', 'payment.capturd'],
      aggregateTypes: ['order'],
    });
    expect(problem?.entry).toBe('eventTypes[1]');
    expect(subscriberFilterProblem(config, 'payments', { aggregateTypes: ['payment', 'order'] })).toMatchObject({
      entry: 'aggregateTypes[1]',
      message: expect.stringContaining('allowed: an aggregate type routed to "payments" (payment, refund)'),
    });
  });

  it('takes an undeclared type under undeclaredEventTypes: allow, or without a catalog, but not one declared only elsewhere', () => {
    const allowing = defineConfig({ ...config, undeclaredEventTypes: 'allow' });
    expect(subscriberFilterProblem(allowing, 'orders.fifo', { eventTypes: ['order.shipped'] })).toBeUndefined();
    expect(subscriberFilterProblem(allowing, 'orders.fifo', { eventTypes: ['payment.captured'] })?.entry).toBe('eventTypes[0]');
    const { eventTypes: _, undeclaredEventTypes: __, ...rest } = config;
    expect(subscriberFilterProblem(defineConfig(rest), 'orders.fifo', { eventTypes: ['order.shipped'] })).toBeUndefined();
  });

  it("leaves to the caller's own checks a topic the config does not name, a filter that is no list, an entry that is no string", () => {
    expect(subscriberFilterProblem(config, 'invoices', { eventTypes: ['order.plcaed'] })).toBeUndefined();
    expect(subscriberFilterProblem(config, 42, { aggregateTypes: ['ordr'] })).toBeUndefined();
    expect(subscriberFilterProblem(config, 'orders.fifo', { eventTypes: 'order.plcaed' as never })).toBeUndefined();
    expect(subscriberFilterProblem(config, 'orders.fifo', { eventTypes: [7, null], aggregateTypes: [{}] })).toBeUndefined();
  });
});
