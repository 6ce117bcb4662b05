import type { Context, SQSEvent, SQSHandler } from 'aws-lambda';
import { defineConfig } from 'dynamodb-outbox';
import { type OutboxTestStack, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

/*
 * A service's existing consumer, typed as aws-lambda's SQSHandler, given to the test stack as it
 * is: it gets Lambda's whole context, and one written with the callback ends when it calls it.
 */

const config = defineConfig({
  source: 'urn:test:lambda-handler',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
});

const contexts: Context[] = [];
const timeLeft: number[] = [];
const typed: SQSHandler = async (_event, context) => {
  contexts.push(context);
  timeLeft.push(context.getRemainingTimeInMillis());
};
// The callback answers after the handler has returned, as a callback handler's I/O would.
const refusing: SQSHandler = (event, _context, callback) => {
  setImmediate(() => callback(null, { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) }));
};

// A plain-JavaScript handler that answers without a promise (no type allows it): its answer is taken as it is.
const refusingAtOnce = ((event: SQSEvent) => ({
  batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })),
})) as unknown as SQSHandler;

let stack: OutboxTestStack;
beforeAll(async () => {
  stack = await startOutboxTestStack({
    config,
    subscribers: [
      { name: 'typed', topic: 'orders.fifo', handler: () => typed },
      { name: 'refusing', topic: 'orders.fifo', maxReceiveCount: 1, handler: () => refusing },
      { name: 'refusing-at-once', topic: 'orders.fifo', maxReceiveCount: 1, handler: () => refusingAtOnce },
    ],
    onError: () => {},
  });
}, 120_000);
afterAll(() => stack?.stop());

it("runs an SQSHandler with Lambda's whole context, waits for a callback handler's answer and takes one returned without a promise", async () => {
  await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: {} }] });
  await stack.waitForIdle({ timeoutMs: 30_000 });

  const [context] = contexts;
  const queue = stack.queues.typed!;
  const [, partition, , region, account] = queue.arn.split(':');
  expect(contexts).toHaveLength(1);
  expect(context).toMatchObject({
    functionName: 'typed.fifo-consumer-local',
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:${partition}:lambda:${region}:${account}:function:typed.fifo-consumer-local`,
    memoryLimitInMB: '128',
    logGroupName: '/aws/lambda/typed.fifo-consumer-local',
    callbackWaitsForEmptyEventLoop: true,
  });
  expect(context?.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(context?.logStreamName).toMatch(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/);
  expect(timeLeft[0]).toBeGreaterThan(0);
  // Its callback failed the message, which went to its DLQ (maxReceiveCount 1), rather than being acknowledged.
  const dead = await stack.receive('refusing', { deadLetters: true, count: 1, timeoutMs: 10_000 });
  expect(dead.map((m) => m.envelope?.subject)).toEqual(['o-1']);
  const refused = await stack.receive('refusing-at-once', { deadLetters: true, count: 1, timeoutMs: 10_000 });
  expect(refused.map((m) => m.envelope?.subject)).toEqual(['o-1']);
}, 60_000);
