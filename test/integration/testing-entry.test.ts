import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { defineConfig } from 'dynamodb-outbox';
import { createConsumer, inboxKey } from 'dynamodb-outbox/consumer';
import { LocalStackError, type OutboxTestStack, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/*
 * What a service's own test does with `dynamodb-outbox/testing`, through the package's names
 * only: its own config, its own consumer, the real pipeline in between.
 */

const config = defineConfig({
  source: 'urn:test:billing-service',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  // The payment path goes through the low-latency processor, which the stack runs by default.
  lowLatencyAggregateTypes: ['payment'],
});

const billKey = (orderId: string) => ({ pk: `BILL#${orderId}`, sk: 'BILL' });

let stack: OutboxTestStack;
const backgroundErrors: string[] = [];
/** Event ids a plain SQS handler (no consumer helper, answering nothing) was given. */
const shippedIds: string[] = [];

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  stack = await startOutboxTestStack({
    config,
    subscribers: [
      { name: 'audit', topic: 'orders.fifo', eventTypes: ['order.placed', 'order.cancelled'] },
      { name: 'payments-audit', topic: 'payments' },
      {
        name: 'shipping',
        topic: 'orders.fifo',
        eventTypes: ['order.shipped'],
        handler: () => async (event) => {
          for (const record of event.Records) shippedIds.push((JSON.parse(record.body) as { id: string }).id);
        },
      },
      {
        name: 'billing',
        topic: 'orders.fifo',
        eventTypes: ['order.placed'],
        handler: ({ document, tableName }) =>
          createConsumer({
            name: 'billing',
            sources: [config.source],
            inbox: { document, tableName },
            handlers: {
              'order.placed': {
                handle: (event, ctx) =>
                  ctx.write({ Put: { TableName: tableName, Item: { ...billKey(event.subject), eventId: event.id } } }),
              },
            },
          }).handler,
      },
    ],
    onError: (source, error) => backgroundErrors.push(`${source}: ${(error as Error).message}`),
  });
});

afterAll(async () => {
  await stack?.stop();
});

describe('dynamodb-outbox/testing, from a service’s own config', () => {
  it('delivers events written with the write helper to a subscriber queue as envelopes, filtered by type and in order', async () => {
    const first = await stack.outbox.write({
      events: [
        { aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: { total: 42 } },
        { aggregate: { type: 'order', id: 'o-1' }, type: 'order.shipped', data: {} },
      ],
    });
    const second = await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.cancelled', data: {} }] });
    const [placed, shipped] = first.events;
    const [cancelled] = second.events;

    const messages = await stack.receive<{ total?: number }>('audit', { count: 2, timeoutMs: 30_000 });

    // order.shipped is not in the audit queue's filter policy; the other two come in their aggregate's order.
    expect(messages.map((m) => m.envelope)).toMatchObject([
      {
        id: placed?.id,
        type: 'order.placed',
        subject: 'o-1',
        source: 'urn:test:billing-service',
        aggregatetype: 'order',
        aggregatesequence: 1,
        data: { total: 42 },
      },
      { id: cancelled?.id, type: 'order.cancelled', subject: 'o-1', aggregatesequence: 3 },
    ]);
    expect(shipped?.sequence).toBe(2);
    expect(messages[0]).toMatchObject({
      attributes: { type: 'order.placed', aggregatetype: 'order' },
      messageGroupId: 'order#o-1',
      deduplicationId: placed?.id,
      receiveCount: 1,
    });
    expect(JSON.parse(messages[0]?.body ?? '')).toEqual(messages[0]?.envelope);
    // Taken off the queue: the audit queue has nothing left.
    expect(await stack.receive('audit', { timeoutMs: 0 })).toEqual([]);
  });

  it('runs a subscriber’s createConsumer handler behind the local SQS event source: its write commits with the inbox record', async () => {
    const { events } = await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-2' }, type: 'order.placed', data: {} }] });
    const eventId = events[0]?.id as string;

    const get = (Key: Record<string, string>) => stack.clients.document.send(new GetCommand({ TableName: stack.tableName, Key }));
    await vi.waitFor(
      async () => {
        if ((await get(billKey('o-2'))).Item === undefined) throw new Error('the billing consumer has not written BILL#o-2 yet');
      },
      { timeout: 30_000, interval: 50 },
    );

    expect((await get(billKey('o-2'))).Item).toMatchObject({ eventId });
    expect((await get(inboxKey('billing', { source: config.source, id: eventId }))).Item).toBeDefined();
    expect(await stack.receive('billing', { deadLetters: true, timeoutMs: 0 })).toEqual([]);
  });

  it('runs a plain SQS handler that answers nothing, which acknowledges its batch', async () => {
    const { events } = await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-3' }, type: 'order.shipped', data: {} }] });
    const eventId = events[0]?.id as string;

    await vi.waitFor(
      () => {
        if (!shippedIds.includes(eventId)) throw new Error('the shipping handler has not been given the event yet');
      },
      { timeout: 30_000, interval: 50 },
    );

    expect(await stack.receive('shipping', { deadLetters: true, timeoutMs: 0 })).toEqual([]);
  });

  it('publishes low-latency aggregate types through the real stream processor', async () => {
    const { events } = await stack.outbox.write({
      events: [{ aggregate: { type: 'payment', id: 'p-1' }, type: 'payment.captured', data: { amount: 42 } }],
    });

    const [message] = await stack.receive('payments-audit', { timeoutMs: 30_000 });

    expect(message?.envelope).toMatchObject({ id: events[0]?.id, type: 'payment.captured', subject: 'p-1', aggregatesequence: 1 });
    expect(message?.messageGroupId).toBeUndefined();
  });

  it('rejects receiving from an unknown subscriber, one a handler reads, and with a count out of range', async () => {
    await expect(stack.receive('audti')).rejects.toThrow(
      new LocalStackError(
        'INVALID_OPTION',
        'receive() subscriber is "audti"; allowed: a subscriber of this stack (audit, payments-audit, shipping, billing)',
      ),
    );
    await expect(stack.receive('billing')).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringContaining('"billing" has a handler'),
    });
    await expect(stack.receive('audit', { count: 0 })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: 'receive() count is 0; allowed: a whole number from 1 to 1000',
    });
    // From JavaScript: a subscriber that is no string is shown as given, not a TypeError of JSON.stringify.
    await expect(stack.receive(3n as never)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: 'receive() subscriber is 3n; allowed: a subscriber of this stack (audit, payments-audit, shipping, billing)',
    });
  });

  it('rejects receive() options of the wrong shape at once, instead of ignoring a misspelt one or reading a DLQ for "no"', async () => {
    const at = Date.now();
    await expect(stack.receive('audit', { cout: 2 } as never)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: 'receive() options has unknown key "cout"; allowed: count, timeoutMs, deadLetters',
    });
    await expect(stack.receive('audit', { deadLetters: 'no' } as never)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: 'receive() deadLetters is "no"; allowed: true (its DLQ) or false (its queue)',
    });
    await expect(stack.receive('audit', null as never)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: 'receive() options is null; allowed: an object with count, timeoutMs, deadLetters',
    });
    // Refused, not waited on: each would otherwise have polled for the default 10 s.
    expect(Date.now() - at).toBeLessThan(5_000);
  });

  it('stops everything, DynamoDB Local’s Java process included, and refuses to receive afterwards', async () => {
    expect(backgroundErrors).toEqual([]);
    const pid = stack.dynamoDbPid;
    expect(() => process.kill(pid, 0)).not.toThrow();

    // Two stops at once (a test's own and its afterAll, say): the second too resolves only once all has stopped.
    const first = stack.stop();
    await stack.stop();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    await first;
    await expect(fetch(stack.endpoints.dynamoDb)).rejects.toThrow();
    await expect(stack.receive('audit')).rejects.toMatchObject({ code: 'STACK_STOPPED' });
    await expect(stack.receive(Symbol('audit') as never)).rejects.toMatchObject({
      code: 'STACK_STOPPED',
      message: 'receive(Symbol(audit)) was called after stop(); allowed: receive before stop()',
    });
    // A second stop does nothing.
    await expect(stack.stop()).resolves.toBeUndefined();
  });
});
