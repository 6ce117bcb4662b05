import { defineConfig } from 'dynamodb-outbox';
import { LocalStackError, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { describe, expect, it } from 'vitest';
import { VISIBILITY_TIMEOUT_ALLOWED } from '../../shared/local/stack/options.js';
import { startRefusal } from '../helpers/start-refusal.js';

/* Options that cannot be fail before anything starts (no Java, no emulator), naming the field and the value. */

const config = defineConfig({
  source: 'urn:test:options',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
});

async function startError(options: Omit<Parameters<typeof startOutboxTestStack>[0], 'config'>): Promise<LocalStackError> {
  const error = await startRefusal(startOutboxTestStack({ config, ...options }));
  expect(error).toBeInstanceOf(LocalStackError);
  return error as LocalStackError;
}

describe('startOutboxTestStack options', () => {
  it('rejects a subscriber on a topic the config does not have, naming it and the topics allowed', async () => {
    const error = await startError({ subscribers: [{ name: 'billing', topic: 'order.fifo' }] });

    expect(error).toMatchObject({
      code: 'INVALID_SUBSCRIPTION',
      message: 'subscribers[0].topic is "order.fifo"; allowed: a topic of the config (orders.fifo, payments)',
    });
  });

  it('rejects filtering on an aggregate type the config does not route to the subscribed topic', async () => {
    const error = await startError({ subscribers: [{ name: 'billing', topic: 'orders.fifo', aggregateTypes: ['payment'] }] });

    expect(error).toMatchObject({
      code: 'INVALID_SUBSCRIPTION',
      message:
        'subscribers[0].aggregateTypes[0] (subscriber "billing") is "payment", which the config routes to "payments", not to "orders.fifo", so the subscriber would receive nothing; allowed: an aggregate type routed to "orders.fifo" (order), or subscribe to the topic it routes to',
    });
  });

  it('rejects an empty event type filter, which would deliver nothing', async () => {
    const error = await startError({ subscribers: [{ name: 'billing', topic: 'payments', eventTypes: [] }] });

    expect(error).toMatchObject({ code: 'INVALID_SUBSCRIPTION', message: expect.stringContaining('subscribers[0].eventTypes is []') });
  });

  it('shows an event type filter given as a string once quoted, as given', async () => {
    const error = await startError({ subscribers: [{ name: 'billing', topic: 'payments', eventTypes: 'payment.captured' as never }] });

    expect(error.message).toBe('subscribers[0].eventTypes is "payment.captured"; allowed: a non-empty list of CloudEvents types');
  });

  /*
   * Options of the wrong shape, as a test in JavaScript (or one that builds its options in a
   * variable) can pass them: a misspelt option would be ignored, and the stack run without the
   * filter or the subscribers it was asked for; the rest failed as a bare TypeError.
   */
  it.each([
    [
      undefined,
      'options is undefined; allowed: an object with config, subscribers, tableName, dynamoDbPort, emulatorPort, visibilityTimeoutSeconds, onError',
    ],
    [
      { config, subscriber: [{ name: 'billing', topic: 'payments' }] },
      'options has unknown key "subscriber"; allowed: config, subscribers,',
    ],
    [{}, 'config got undefined; allowed: the outbox config defineConfig returns (or an object defineConfig accepts)'],
    // What is wrong in the object, not the whole object: a config's JSON is long.
    [
      { config: { topics: 'orders.fifo' } },
      'config is not a valid outbox config (at source: got undefined; allowed: a non-empty RFC 3986 URI',
    ],
    [
      { config, subscribers: { name: 'billing', topic: 'payments' } },
      'subscribers is {"name":"billing","topic":"payments"}; allowed: a list of subscribers',
    ],
    [{ config, subscribers: [null] }, 'subscribers[0] is null; allowed: an object with name, topic, eventTypes,'],
    [
      { config, subscribers: [{ name: 'billing', topic: 'payments', eventType: ['payment.captured'] }] },
      'subscribers[0] has unknown key "eventType"; allowed: name, topic, eventTypes, aggregateTypes, maxReceiveCount, handler, concurrency',
    ],
    [{ config, onError: 'console' }, 'onError is "console"; allowed: a function (source, error) => void'],
  ])('rejects options of the wrong shape with INVALID_OPTION before anything starts (%#)', async (options, message) => {
    const error = await startOutboxTestStack(options as never).then(
      async (stack) => {
        await stack.stop();
        throw new Error('the stack started');
      },
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining(message) });
  });

  it.each([
    [
      [
        { name: 'billing', topic: 'payments' },
        { name: 'billing', topic: 'orders.fifo' },
      ],
      'subscribers[1].name is "billing"',
    ],
    [
      [
        { name: 'billing', topic: 'payments' },
        { name: 'billing-dlq', topic: 'payments' },
      ],
      'subscribers[1].name is "billing-dlq"',
    ],
    [[{ name: 'outbox-relay', topic: 'payments' }], "queue outbox-relay-dlq is already the relay DLQ's"],
    [[{ name: 'bill ing', topic: 'payments' }], 'subscribers[0].name is "bill ing"; allowed: a name of 1–70 letters, digits, "-" or "_"'],
  ])('rejects subscriber names whose queues cannot be or clash (%#)', async (subscribers, message) => {
    const error = await startError({ subscribers });

    expect(error.code).toBe('INVALID_SUBSCRIPTION');
    expect(error.message).toContain(message);
  });

  it.each([
    [{ dynamoDbPort: 70_000 }, 'dynamoDbPort is 70000; allowed: a whole number from 0 (a free port) to 65535'],
    [{ emulatorPort: -1 }, 'emulatorPort is -1; allowed: a whole number from 0 (a free port) to 65535'],
    // Both would be bound, the emulator's only once Java had started, failing then as "already in use".
    [
      { dynamoDbPort: 5555, emulatorPort: 5555 },
      'dynamoDbPort and emulatorPort are both 5555; allowed: a port of its own for each (0, or leaving either out, picks a free one)',
    ],
    [{ tableName: 'x' }, 'tableName is "x"; allowed: a DynamoDB table name of 3–255 letters, digits, "_", "-" or "."'],
    [{ visibilityTimeoutSeconds: 3.5 }, `visibilityTimeoutSeconds is 3.5; allowed: ${VISIBILITY_TIMEOUT_ALLOWED}`],
    // At 2 s or less a handler's context (which ends 2 s before its batch comes back) starts with no time: the archiver aborts every write.
    [{ visibilityTimeoutSeconds: 2 }, `visibilityTimeoutSeconds is 2; allowed: ${VISIBILITY_TIMEOUT_ALLOWED}`],
    [{ visibilityTimeoutSeconds: 0 }, `visibilityTimeoutSeconds is 0; allowed: ${VISIBILITY_TIMEOUT_ALLOWED}`],
    [
      { subscribers: [{ name: 'b', topic: 'payments', concurrency: 0 }] },
      'subscribers[0].concurrency is 0; allowed: a whole number from 1 to 10',
    ],
    [
      { subscribers: [{ name: 'b', topic: 'payments', maxReceiveCount: 0 }] },
      'subscribers[0].maxReceiveCount is 0; allowed: a whole number from 1 to 1000',
    ],
    // A number JSON has no form for shows as written (a port read from an unset variable is NaN), anything else as JSON.
    [{ dynamoDbPort: Number.NaN }, 'dynamoDbPort is NaN; allowed: a whole number from 0 (a free port) to 65535'],
    [
      { visibilityTimeoutSeconds: Number.POSITIVE_INFINITY },
      `visibilityTimeoutSeconds is Infinity; allowed: ${VISIBILITY_TIMEOUT_ALLOWED}`,
    ],
    [{ emulatorPort: { port: 4566 } as never }, 'emulatorPort is {"port":4566}; allowed: a whole number from 0 (a free port) to 65535'],
    [
      { tableName: ['orders'] as never },
      'tableName is ["orders"]; allowed: a DynamoDB table name of 3–255 letters, digits, "_", "-" or "."',
    ],
    // A handler that is no function shows as every other refusal's value does: what was given, not its type.
    [
      { subscribers: [{ name: 'b', topic: 'payments', handler: 42 as never }] },
      'subscribers[0].handler is 42; allowed: a function that builds an SQS Lambda handler (deps) => handler, or leave it out',
    ],
    [
      { subscribers: [{ name: 'b', topic: 'payments', handler: { handler: 'index.handler' } as never }] },
      'subscribers[0].handler is {"handler":"index.handler"}; allowed: a function that builds an SQS Lambda handler (deps) => handler, or leave it out',
    ],
  ])('rejects %j with INVALID_OPTION naming it', async (options, message) => {
    const error = await startError(options);

    expect(error).toMatchObject({ code: 'INVALID_OPTION', message });
  });
});

describe('startOutboxTestStack tableName, with the low-latency processor', () => {
  // The processor's lease table is outbox-leases: an outbox table of that name was taken for it (CreateTable's "in use" is how a persisted lease table is found).
  it('rejects the lease table name for the outbox table, before anything starts', async () => {
    const withProcessor = defineConfig({ ...config, lowLatencyAggregateTypes: ['payment'] });

    const error = await startOutboxTestStack({ config: withProcessor, tableName: 'outbox-leases' }).then(
      async (stack) => {
        await stack.stop();
        throw new Error('the stack started');
      },
      (e: unknown) => e,
    );

    expect(error).toMatchObject({
      name: 'LocalStackError',
      code: 'INVALID_OPTION',
      message:
        'tableName is "outbox-leases"; allowed: a DynamoDB table name other than outbox-leases, the low-latency processor\'s lease table (the config names low-latency or handed-over aggregate types)',
    });
  });
});
