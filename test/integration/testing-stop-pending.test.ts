import { defineConfig } from 'dynamodb-outbox';
import { LocalStackError, type OutboxTestStack, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';

/*
 * A wait of `dynamodb-outbox/testing` still pending when the test calls stop() (an assertion
 * failed first, say) ends then, with STACK_STOPPED, instead of at its own timeout: up to 15
 * minutes in which its timer or its long poll would hold the test process open.
 */

const config = defineConfig({
  source: 'urn:test:stop-pending',
  topics: [{ name: 'orders' }],
  routes: { order: 'orders' },
  archive: { retentionDays: 1 },
});

const LONG_MS = 15 * 60_000;

const stacks: OutboxTestStack[] = [];

beforeAll(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.stop()));
});

async function startStack(): Promise<OutboxTestStack> {
  const stack = await startOutboxTestStack({ config, subscribers: [{ name: 'audit', topic: 'orders' }], onError: () => {} });
  stacks.push(stack);
  return stack;
}

/** How a pending promise settled, once it has. */
function track<T>(promise: Promise<T>): { settled: () => boolean; error: () => unknown } {
  let settled = false;
  let error: unknown;
  promise.then(
    () => {
      settled = true;
    },
    (e: unknown) => {
      error = e;
      settled = true;
    },
  );
  return { settled: () => settled, error: () => error };
}

/** How many ReceiveMessage requests on `queueUrl` the stack's SQS client has in flight (sent, not yet answered). */
function longPolls(stack: OutboxTestStack, queueUrl: string): () => number {
  let inFlight = 0;
  stack.clients.sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const polls = context.commandName === 'ReceiveMessageCommand' && (args.input as { QueueUrl?: string }).QueueUrl === queueUrl;
      if (polls) inFlight++;
      try {
        return await next(args);
      } finally {
        if (polls) inFlight--;
      }
    },
    { step: 'deserialize', name: 'countLongPolls' },
  );
  return () => inFlight;
}

/** Calls stop() with `pending` still waiting, and checks both end: stop() well, the wait with STACK_STOPPED and `message`. */
async function stopWhilePending(stack: OutboxTestStack, pending: ReturnType<typeof track>, message: RegExp): Promise<void> {
  expect(pending.settled()).toBe(false);
  const stopped = track(stack.stop());
  await waitFor(() => pending.settled() && stopped.settled(), { timeoutMs: 20_000, what: 'the wait and stop() to end' });
  expect(stopped.error()).toBeUndefined();
  expect(pending.error()).toBeInstanceOf(LocalStackError);
  expect(pending.error()).toMatchObject({ code: 'STACK_STOPPED' });
  expect((pending.error() as Error).message).toMatch(message);
}

/** Timers of this process (`setTimeout`, `setInterval`) still pending. */
const pendingTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('stop() with a wait of the test stack pending', { timeout: 60_000 }, () => {
  it('ends a pending waitForArchived at once with STACK_STOPPED, and clears its timer', async () => {
    const stack = await startStack();
    // Options of the wrong shape are refused, not read as the defaults (or as a bare TypeError).
    await expect(stack.archive!.waitForArchived(1, { timeout: 5 } as never)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: 'archive.waitForArchived() options has unknown key "timeout"; allowed: timeoutMs',
    });
    await expect(stack.archive!.waitForArchived(1, null as never)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: 'archive.waitForArchived() options is null; allowed: an object with timeoutMs',
    });
    const archived = track(stack.archive!.waitForArchived(1_000, { timeoutMs: LONG_MS }));
    await stopWhilePending(
      stack,
      archived,
      /^archive\.waitForArchived\(1000\) was still waiting when stop\(\) was called \(0 of 1000 events archived\); allowed: /,
    );
    // The wait's timer is not left to run out: nothing of the stack holds the process open.
    expect(pendingTimers()).toBe(0);
  });

  it('ends a receive() in flight at once with STACK_STOPPED, its long poll aborted', async () => {
    const stack = await startStack();
    const polling = longPolls(stack, stack.queues.audit!.url);
    const received = track(stack.receive('audit', { count: 5, timeoutMs: LONG_MS }));
    await waitFor(() => polling() > 0, { what: "receive()'s long poll to be sent" });
    await stopWhilePending(
      stack,
      received,
      /^receive\("audit"\) was still waiting when stop\(\) was called \(0 of 5 messages received\); allowed: /,
    );
    expect(pendingTimers()).toBe(0);
  });
});
