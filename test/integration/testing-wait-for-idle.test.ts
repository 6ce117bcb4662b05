import type { SQSEvent } from 'aws-lambda';
import { defineConfig, Outbox } from 'dynamodb-outbox';
import { LocalStackError, type OutboxTestStack, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';

/*
 * `stack.waitForIdle()` on the real pipeline: DynamoDB Local, the relay behind its local event
 * source, the low-latency processor, fauxqs, and handlers behind local SQS event sources.
 */

const config = defineConfig({
  source: 'urn:test:wait-for-idle',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  // The payment path goes through the low-latency processor, which waitForIdle waits for too.
  lowLatencyAggregateTypes: ['payment'],
});

/** Runs of each handler, by event id. */
const runs = { billing: [] as string[], receipts: [] as string[], payments: [] as string[], flaky: [] as string[], gated: [] as string[] };
const idsOf = (event: SQSEvent) => event.Records.map((record) => (JSON.parse(record.body) as { id: string }).id);

/** The gate the `gated` handler waits on, opened by its test. */
let openGate: () => void = () => {};
const gate = new Promise<void>((resolve) => {
  openGate = resolve;
});

let stack: OutboxTestStack;
const backgroundErrors: string[] = [];

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  stack = await startOutboxTestStack({
    config,
    visibilityTimeoutSeconds: 3,
    subscribers: [
      {
        name: 'billing',
        topic: 'orders.fifo',
        eventTypes: ['order.placed'],
        // Writes an event of its own for each one it handles: a write that lands while waitForIdle waits.
        handler: ({ document, tableName }) => {
          const outbox = new Outbox({ config, tableName, client: document });
          return async (event) => {
            for (const id of idsOf(event)) {
              runs.billing.push(id);
              await outbox.write({ events: [{ aggregate: { type: 'order', id: `bill-${id}` }, type: 'order.billed', data: { for: id } }] });
            }
          };
        },
      },
      {
        name: 'receipts',
        topic: 'orders.fifo',
        eventTypes: ['order.billed'],
        handler: () => async (event) => void runs.receipts.push(...idsOf(event)),
      },
      { name: 'payments', topic: 'payments', handler: () => async (event) => void runs.payments.push(...idsOf(event)) },
      {
        name: 'flaky',
        topic: 'orders.fifo',
        eventTypes: ['order.refused'],
        maxReceiveCount: 2,
        handler: () => async (event) => {
          runs.flaky.push(...idsOf(event));
          throw new Error('refused, on purpose');
        },
      },
      {
        name: 'gated',
        topic: 'orders.fifo',
        eventTypes: ['order.gated'],
        handler: () => async (event) => {
          runs.gated.push(...idsOf(event));
          await gate;
        },
      },
      { name: 'audit', topic: 'orders.fifo' },
    ],
    onError: (source, error) => backgroundErrors.push(`${source}: ${(error as Error).message}`),
  });
}, 120_000);

afterAll(async () => {
  openGate();
  await stack?.stop();
});

describe('stack.waitForIdle()', () => {
  it('resolves once a write is handled, and the write its handler made in turn, each exactly once', async () => {
    const { events } = await stack.outbox.write({
      events: [
        { aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: {} },
        { aggregate: { type: 'payment', id: 'p-1' }, type: 'payment.captured', data: {} },
      ],
    });
    const [placed, captured] = events;

    await stack.waitForIdle({ timeoutMs: 30_000 });

    // No poll for the runs: waitForIdle alone has waited for them, the receipt two hops on included.
    expect(runs.billing).toEqual([placed?.id]);
    expect(runs.payments).toEqual([captured?.id]);
    expect(runs.receipts).toHaveLength(1);
    // A queue without a handler is not waited for: the audit queue keeps its messages.
    expect((await stack.receive('audit', { count: 2, timeoutMs: 10_000 })).map((m) => m.envelope?.type)).toEqual([
      'order.placed',
      'order.billed',
    ]);
  }, 60_000);

  it('waits while a failing handler keeps its message coming back, and resolves once it is in the DLQ', async () => {
    const { events } = await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-2' }, type: 'order.refused', data: {} }] });
    const eventId = events[0]?.id as string;
    await vi.waitFor(
      () => {
        if (runs.flaky.length === 0) throw new Error('the flaky handler has not run yet');
      },
      { timeout: 30_000, interval: 20 },
    );

    // Failed once, hidden for the visibility timeout (3 s) before it comes back, or running again: busy.
    const busy = await stack.waitForIdle({ timeoutMs: 2_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(busy).toBeInstanceOf(LocalStackError);
    expect(busy).toMatchObject({
      code: 'NOT_IDLE',
      message: expect.stringContaining('queue "flaky": '),
    });

    await stack.waitForIdle({ timeoutMs: 30_000 });

    // maxReceiveCount 2: two runs, then SQS moved it to the DLQ.
    expect(runs.flaky).toEqual([eventId, eventId]);
    const deadLetters = await stack.receive('flaky', { deadLetters: true, timeoutMs: 0 });
    expect(deadLetters.map((m) => m.envelope?.id)).toEqual([eventId]);
  }, 60_000);

  it('times out naming a handler that is still running and its message, then resolves once it returns', async () => {
    // Opened however the test ends: a handler left waiting would hold stop() up.
    onTestFinished(() => openGate());
    const { events } = await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-3' }, type: 'order.gated', data: {} }] });
    await vi.waitFor(
      () => {
        if (runs.gated.length === 0) throw new Error('the gated handler has not been invoked yet');
      },
      { timeout: 30_000, interval: 20 },
    );

    // Long enough for the relay to list the shards and read them to their end again: only the handler is busy.
    const timedOut = stack.waitForIdle({ timeoutMs: 2_000 });
    await expect(timedOut).rejects.toThrow(
      new LocalStackError(
        'NOT_IDLE',
        'waitForIdle() timed out after 2000 ms; still busy: queue "gated": 0 messages visible, 1 in flight, 0 delayed, 1 handler invocation running; allowed: a longer timeoutMs, once what is busy can end (a handler that fails until its messages reach the DLQ takes maxReceiveCount × the visibility timeout)',
      ),
    );

    openGate();
    await stack.waitForIdle();
    expect(runs.gated).toEqual([events[0]?.id]);
    // The handler ran on while waitForIdle was timing out: the message stayed hidden, never delivered twice.
    expect(await stack.receive('gated', { deadLetters: true, timeoutMs: 0 })).toEqual([]);
  }, 60_000);

  it('refuses options it does not take before waiting', async () => {
    const at = Date.now();
    await expect(stack.waitForIdle({ timeout: 5 } as never)).rejects.toThrow(
      new LocalStackError('INVALID_OPTION', 'waitForIdle() options has unknown key "timeout"; allowed: timeoutMs'),
    );
    // Below two looks' time a wait could not end but in NOT_IDLE, 0 never.
    for (const timeoutMs of [0, 1_999, -1, 900_001])
      await expect(stack.waitForIdle({ timeoutMs })).rejects.toThrow(
        new LocalStackError(
          'INVALID_OPTION',
          `waitForIdle() timeoutMs is ${timeoutMs}; allowed: a whole number from 2000 (two idle looks, each after the relay lists the stream's shards again, which it does every second) to 900000`,
        ),
      );
    await expect(stack.waitForIdle({ timeoutMs: '5s' } as never)).rejects.toThrow(
      new LocalStackError(
        'INVALID_OPTION',
        'waitForIdle() timeoutMs is "5s"; allowed: a whole number from 2000 (two idle looks, each after the relay lists the stream\'s shards again, which it does every second) to 900000',
      ),
    );
    await expect(stack.waitForIdle(null as never)).rejects.toThrow(
      new LocalStackError('INVALID_OPTION', 'waitForIdle() options is null; allowed: an object with timeoutMs'),
    );
    expect(Date.now() - at).toBeLessThan(1_000);
  });

  it('ends a wait at stop(), and refuses to wait on a stopped stack', async () => {
    // But the flaky handler's failures and the gated handler's run past its time (the event source says so).
    const expected = /refused, on purpose|consumer gated: .* past the time its context gave it/;
    expect(backgroundErrors.filter((line) => !expected.test(line))).toEqual([]);
    // A message the flaky handler fails on keeps the pipeline busy for seconds: the wait is still on at stop().
    await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-4' }, type: 'order.refused', data: {} }] });
    const waiting = stack.waitForIdle({ timeoutMs: 60_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await stack.stop();
    expect(await waiting).toEqual(
      new LocalStackError(
        'STACK_STOPPED',
        'waitForIdle() was still waiting when stop() was called; allowed: stop() once waitForIdle() has ended',
      ),
    );
    await expect(stack.waitForIdle()).rejects.toThrow(
      new LocalStackError('STACK_STOPPED', 'waitForIdle() was called after stop(); allowed: waitForIdle before stop()'),
    );
  });
});
