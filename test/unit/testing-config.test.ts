import { defineConfig, type OutboxConfig } from 'dynamodb-outbox';
import { LocalStackError, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { describe, expect, it } from 'vitest';

/* A config defineConfig refuses, and a subscriber filtering on a type the catalog refuses to write, fail before anything starts. */

const declared = defineConfig({
  source: 'urn:test:testing-config',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
  eventTypes: { 'order.placed': { version: 1, aggregateType: 'order' }, 'order.cancelled': { version: 1, aggregateType: 'order' } },
});

async function startError(options: Parameters<typeof startOutboxTestStack>[0]): Promise<LocalStackError> {
  const error = await startOutboxTestStack(options).then(
    async (stack) => {
      await stack.stop();
      throw new Error('the stack started');
    },
    (e: unknown) => e,
  );
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
      /^config is not a valid outbox config: .*"orders fifo".*; allowed: the outbox config defineConfig returns$/,
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
        "subscribers[0].eventTypes[1] is \"order.plcaed\", which the config's eventTypes do not declare, so no event of it can be written; allowed: a declared type (order.placed, order.cancelled), or undeclaredEventTypes: 'allow' in the config",
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
});
