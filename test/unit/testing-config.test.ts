import { defineConfig, type OutboxConfig } from 'dynamodb-outbox';
import { LocalStackError, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { describe, expect, it } from 'vitest';
import { startRefusal } from '../helpers/start-refusal.js';

/* A config defineConfig refuses, and a subscriber filtering on a value no event published to its topic carries, fail before anything starts. */

const declared = defineConfig({
  source: 'urn:test:testing-config',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
  eventTypes: { 'order.placed': { version: 1, aggregateType: 'order' }, 'order.cancelled': { version: 1, aggregateType: 'order' } },
});

async function startError(options: Parameters<typeof startOutboxTestStack>[0]): Promise<LocalStackError> {
  const error = await startRefusal(startOutboxTestStack(options));
  expect(error).toBeInstanceOf(LocalStackError);
  return error as LocalStackError;
}

describe('startOutboxTestStack: the config and the subscribers against its catalog', () => {
  it('refuses an object literal config that defineConfig refuses (a topic SNS cannot name), with the ConfigError as cause', async () => {
    const literal = {
      source: 'urn:test:x',
      topics: [{ name: 'orders fifo' }],
      routes: { order: 'orders fifo' },
    } as unknown as OutboxConfig;
    const error = await startError({ config: literal });

    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toMatch(
      /^config is not a valid outbox config \(at topics\[0\]\.name: got "orders fifo" .*\); allowed: the outbox config defineConfig returns \(or an object defineConfig accepts\)$/,
    );
    expect(error.cause).toMatchObject({ name: 'ConfigError' });
  });

  it('refuses a subscriber filtering on an event type the catalog does not declare, naming it and the declared ones', async () => {
    const error = await startError({
      config: declared,
      subscribers: [{ name: 'audit', topic: 'orders.fifo', eventTypes: ['order.placed', 'order.plcaed'] }],
    });

    expect(error).toMatchObject({
      code: 'INVALID_SUBSCRIPTION',
      message:
        'subscribers[0].eventTypes[1] (subscriber "audit") is "order.plcaed", which the config\'s eventTypes do not declare, so no event of it can be written and the subscriber would receive nothing; allowed: a declared type (order.placed, order.cancelled), or undeclaredEventTypes: \'allow\' in the config',
    });
  });

  it("lets a subscriber filter on an undeclared type under undeclaredEventTypes: 'allow' (refused then only for a bad port)", async () => {
    const allowing = defineConfig({ ...declared, eventTypes: { 'order.placed': { version: 1 } }, undeclaredEventTypes: 'allow' });
    const error = await startError({
      config: allowing,
      subscribers: [{ name: 'audit', topic: 'orders.fifo', eventTypes: ['order.shipped'] }],
      dynamoDbPort: 70_000,
    });

    expect(error).toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^dynamoDbPort is 70000/) });
  });

  describe('a filter against the topics the config routes to, in the words of Outbox.addSubscriber', () => {
    const routed = defineConfig({
      source: 'urn:test:testing-config',
      topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
      routes: { order: 'orders.fifo', payment: 'payments' },
      eventTypes: {
        'order.placed': { version: 1, aggregateType: 'order' },
        'payment.captured': [
          { version: 1, aggregateType: 'payment' },
          { version: 2, aggregateType: 'payment' },
        ],
        'note.added': [{ version: 1, aggregateType: 'payment' }, { version: 2 }],
      },
    });

    it('refuses a declared type whose every version is on an aggregate type routed to another topic', async () => {
      const error = await startError({
        config: routed,
        subscribers: [
          { name: 'audit', topic: 'payments', eventTypes: ['payment.captured'] },
          { name: 'shipping', topic: 'orders.fifo', eventTypes: ['order.placed', 'payment.captured'] },
        ],
      });

      expect(error).toMatchObject({
        code: 'INVALID_SUBSCRIPTION',
        message:
          'subscribers[1].eventTypes[1] (subscriber "shipping") is "payment.captured", declared on aggregate type "payment" → "payments", not on one routed to "orders.fifo", so the subscriber would receive nothing; allowed: a type published to "orders.fifo", or subscribe to the topic its aggregate type routes to',
      });
    });

    it('refuses an aggregate type routed to another topic, or to none', async () => {
      const elsewhere = await startError({
        config: routed,
        subscribers: [{ name: 'shipping', topic: 'orders.fifo', aggregateTypes: ['order', 'payment'] }],
      });
      expect(elsewhere).toMatchObject({
        code: 'INVALID_SUBSCRIPTION',
        message:
          'subscribers[0].aggregateTypes[1] (subscriber "shipping") is "payment", which the config routes to "payments", not to "orders.fifo", so the subscriber would receive nothing; allowed: an aggregate type routed to "orders.fifo" (order), or subscribe to the topic it routes to',
      });

      const unrouted = await startError({
        config: routed,
        subscribers: [{ name: 'shipping', topic: 'orders.fifo', aggregateTypes: ['ordr'] }],
      });
      expect(unrouted.message).toContain(
        'aggregateTypes[0] (subscriber "shipping") is "ordr", which the config does not route (no event of it can be written)',
      );
    });

    it('takes a type on an aggregate type routed to the topic, or on any (refused then only for a bad port)', async () => {
      const error = await startError({
        config: routed,
        subscribers: [{ name: 'shipping', topic: 'orders.fifo', eventTypes: ['order.placed', 'note.added'], aggregateTypes: ['order'] }],
        dynamoDbPort: 70_000,
      });

      expect(error).toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^dynamoDbPort is 70000/) });
    });
  });
});
