import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkedRunOf } from '../../shared/consumer/checked-process.js';
import { type Consumer, createConsumer } from '../../shared/consumer/consumer.js';
import { ClaimDeadlinePassedError, ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { inboxKey } from '../../shared/consumer/inbox.js';
import { PollError } from '../../shared/consumer/poll-errors.js';
import { HAND_OUT_MARGIN_MS, pollOnce } from '../../shared/consumer/sqs-poller.js';
import type { ConsumerOptions, InboxOptions } from '../../shared/consumer/types.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile, freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';
import { settlesWithin } from '../helpers/wait.js';

const { server, clients } = await emulatorForFile();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-poll'));
});

function consumerWith(name: string, handlers: ConsumerOptions['handlers'], inbox: Partial<InboxOptions> = {}) {
  const telemetry = recordingTelemetry();
  const consumer = createConsumer({
    sources: [TEST_SOURCE],
    name,
    handlers,
    inbox: { document: clients.document, tableName, ...inbox },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
  });
  return { consumer, ...telemetry };
}

const inboxRecord = async (consumer: string, eventId: string) =>
  (
    await clients.document.send(
      new GetCommand({ TableName: tableName, Key: inboxKey(consumer, { source: TEST_SOURCE, id: eventId }), ConsistentRead: true }),
    )
  ).Item;

/** A queue whose DLQ takes a message at its third receive, holding one event. */
async function queueWithEvent(name: string, visibilityTimeout: string) {
  const dlq = server.createQueue(`${name}-dlq`);
  const { queueUrl } = server.createQueue(name, {
    attributes: {
      VisibilityTimeout: visibilityTimeout,
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '2' }),
    },
  });
  const event = anEnvelope({ aggregateId: name });
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: event.body }));
  return { queueUrl, event };
}

interface Crash {
  /** Sent with the receives. */
  readonly visibilityTimeoutSeconds?: number;
  /** The stopped clock, when the dying worker receives (epoch ms). @default the time now */
  readonly startAt?: number;
  /** How far the clock moves between SQS handing the message out and the dying worker reading the answer. */
  readonly answerMs?: number;
}

/**
 * A worker receives the event and dies in its side effect (its handler never settles), leaving its
 * claim; a second worker polls at the moment SQS may deliver the event again. `Date` is stopped
 * (SQS's visibility and the inbox's clock alike) and moved by the test only, so no load on the
 * machine moves a claim or a visibility timeout.
 */
async function crashThenRedeliver(name: string, visibilityTimeout: string, crash: Crash = {}) {
  vi.useFakeTimers({ toFake: ['Date'], now: crash.startAt ?? Date.now() });
  const { queueUrl, event } = await queueWithEvent(name, visibilityTimeout);
  const poll = crash.visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds: crash.visibilityTimeoutSeconds };
  const dyingClients = testClients(server.address);
  dyingClients.sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      if (context.commandName === 'ReceiveMessageCommand') vi.setSystemTime(Date.now() + (crash.answerMs ?? 0));
      return output;
    },
    { step: 'initialize' },
  );
  let claimed: () => void = () => {};
  const handling = new Promise<void>((resolve) => {
    claimed = resolve;
  });
  const dying = consumerWith(name, {
    'order.placed': {
      idempotency: 'claim',
      handle: () => {
        claimed();
        return new Promise<void>(() => {});
      },
    },
  });
  const receivedBefore = Math.floor(Date.now() / 1000);
  void pollOnce({ sqs: dyingClients.sqs, queueUrl, consumer: dying.consumer, ...poll });
  await settlesWithin(handling, 10_000, 'claim by the dying worker');
  const claim = await inboxRecord(name, event.id);
  const inFlight = server.inspectQueue(name)?.messages.inflight ?? [];
  expect(inFlight).toHaveLength(1);
  const visibleAgainAt = inFlight[0]?.visibilityDeadline as number;
  dyingClients.destroy();

  vi.setSystemTime(visibleAgainAt);
  const sent: string[] = [];
  const survivor = consumerWith(name, { 'order.placed': { idempotency: 'claim', handle: (e) => void sent.push(e.id) } });
  const redelivered = await settlesWithin(
    pollOnce({ sqs: clients.sqs, queueUrl, consumer: survivor.consumer, ...poll }),
    10_000,
    'redelivery',
  );
  return { event, claim, visibleAgainAt, receivedBefore, sent, redelivered, survivor };
}

describe('pollOnce: claims lapse with the visibility timeout', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("takes over a dead worker's claim at the first redelivery, at the queue's own visibility timeout", async () => {
    const { event, claim, receivedBefore, sent, redelivered, survivor } = await crashThenRedeliver('poll-queue-visibility', '3');

    // The claim lapses when SQS may deliver the message again, not 300 s later.
    expect(claim?.claimExpiresAt).toBeGreaterThanOrEqual(receivedBefore + 3);
    expect(claim?.claimExpiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(redelivered.received).toBe(1);
    expect(redelivered.result.outcomes).toMatchObject([{ status: 'processed', eventId: event.id }]);
    expect(redelivered.acknowledged).toBe(1);
    expect(sent).toEqual([event.id]);
    expect(survivor.logs.map((l) => l.message)).toContain('Took over an expired claim');
    expect(queueDepth(server, 'poll-queue-visibility')).toBe(0);
    expect(queueDepth(server, 'poll-queue-visibility-dlq')).toBe(0);
    expect(await inboxRecord('poll-queue-visibility', event.id)).toMatchObject({ status: 'COMPLETED' });
  });

  it('lapses no later than the visibility timeout when the answer reaches the worker in the next second', async () => {
    // SQS hands the message out at .900 of a second; the answer is read 300 ms later, in the next second.
    const startAt = (Math.floor(Date.now() / 1000) + 1) * 1000 + 900;
    const { event, claim, visibleAgainAt, redelivered, survivor } = await crashThenRedeliver('poll-answer-late', '3', {
      startAt,
      answerMs: 300,
    });

    expect(visibleAgainAt).toBe(startAt + 3000);
    // Not CLAIM_HELD, a receive used up on the way to the DLQ.
    expect(redelivered.result.outcomes).toMatchObject([{ status: 'processed', eventId: event.id }]);
    expect(survivor.logs.map((l) => l.message)).toContain('Took over an expired claim');
    expect((claim?.claimExpiresAt as number) * 1000).toBeLessThanOrEqual(visibleAgainAt);
  });

  it('sends visibilityTimeoutSeconds with the receive and lets claims lapse when it ends', async () => {
    const { event, claim, receivedBefore, redelivered } = await crashThenRedeliver('poll-given-visibility', '600', {
      visibilityTimeoutSeconds: 3,
    });

    // The queue's own 600 s would have held the message (and the claim) for ten minutes.
    expect(claim?.claimExpiresAt).toBeGreaterThanOrEqual(receivedBefore + 3);
    expect(claim?.claimExpiresAt).toBeLessThanOrEqual(receivedBefore + 5);
    expect(redelivered.result.outcomes).toMatchObject([{ status: 'processed', eventId: event.id }]);
  });

  it('keeps the claim for the visibility timeout after a long poll that waited for the message', async () => {
    const startAt = (Math.floor(Date.now() / 1000) + 1) * 1000 + 100;
    vi.useFakeTimers({ toFake: ['Date'], now: startAt });
    const { queueUrl } = server.createQueue('poll-long-wait');
    const seen: { claimExpiresAt: number; visibleAgainAt: number }[] = [];
    const { consumer } = consumerWith('poll-long-wait', {
      'order.placed': {
        idempotency: 'claim',
        handle: (_e, ctx) => {
          const visibleAgainAt = server.inspectQueue('poll-long-wait')?.messages.inflight[0]?.visibilityDeadline as number;
          seen.push({ claimExpiresAt: ctx.claimExpiresAt, visibleAgainAt });
        },
      },
    });
    // Sent at once (the visibility timeout given, not read first): the receive goes out at startAt.
    const polling = pollOnce({ sqs: clients.sqs, queueUrl, consumer, waitTimeSeconds: 20, visibilityTimeoutSeconds: 30 });

    // The message arrives 5 s into the receive's wait, and SQS hands it out then.
    vi.setSystemTime(startAt + 5000);
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: anEnvelope({ aggregateId: 'poll-long-wait' }).body }));
    const { acknowledged } = await settlesWithin(polling, 10_000, 'batch');

    expect(acknowledged).toBe(1);
    expect(seen).toHaveLength(1);
    const [{ claimExpiresAt, visibleAgainAt }] = seen as [{ claimExpiresAt: number; visibleAgainAt: number }];
    expect(visibleAgainAt).toBe(startAt + 35_000);
    expect(claimExpiresAt).toBeLessThanOrEqual(visibleAgainAt);
    // Not the 5 s the receive waited: at most the margin for the answer's way back and the rounding to the second.
    expect(claimExpiresAt).toBeGreaterThan(visibleAgainAt - HAND_OUT_MARGIN_MS - 1000);
  });

  it('reads the queue attribute once per client and queue, not at every poll', async () => {
    const { queueUrl } = await queueWithEvent('poll-attribute-reads', '30');
    const own = testClients(server.address);
    const { sqs } = own;
    const commands: string[] = [];
    sqs.middlewareStack.add(
      (next, context) => (args) => {
        commands.push(context.commandName ?? '');
        return next(args);
      },
      { step: 'initialize' },
    );
    const { consumer } = consumerWith('poll-attribute-reads', { 'order.placed': { handle: () => {} } });
    const polls = [];
    for (let i = 0; i < 3; i++) polls.push(await pollOnce({ sqs, queueUrl, consumer }));

    expect(polls.map((p) => p.acknowledged)).toEqual([1, 0, 0]);
    expect(commands.filter((c) => c === 'GetQueueAttributesCommand')).toHaveLength(1);
    expect(commands.filter((c) => c === 'ReceiveMessageCommand')).toHaveLength(3);
    own.destroy();
  });
});

describe('pollOnce: a received message is checked once, as fromSqsMessage reads it', () => {
  /** A client whose receives answer the queue's messages without their Body, as SQS never sends them. */
  function bodilessClient() {
    const own = testClients(server.address);
    own.sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const output = await next(args);
        if (context.commandName === 'ReceiveMessageCommand') {
          for (const message of (output.output as { Messages?: { Body?: string }[] }).Messages ?? []) delete message.Body;
        }
        return output;
      },
      { step: 'initialize' },
    );
    return own;
  }

  it.each([
    ['the consumer createConsumer gave', (consumer: Consumer) => consumer],
    [
      "a consumer's process of one's own",
      (consumer: Consumer) => ({ process: (...args: Parameters<Consumer['process']>) => consumer.process(...args) }),
    ],
  ])('refuses one without a Body before any is handled or deleted, with %s', async (label, given) => {
    const name = `poll-bodiless-${label.startsWith('the consumer') ? 'created' : 'own'}`;
    const { queueUrl } = await queueWithEvent(name, '30');
    const own = bodilessClient();
    const handle = vi.fn();
    const { consumer } = consumerWith(name, { 'order.placed': { handle } });

    const error = await pollOnce({ sqs: own.sqs, queueUrl, consumer: given(consumer) }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    own.destroy();

    expect(error).toBeInstanceOf(PollError);
    expect(error).toMatchObject({ phase: 'process', batch: undefined });
    expect((error as PollError).message).toBe(
      `Polling ${queueUrl} failed at process: ConsumerOptionsError (Invalid consumer option fromSqsMessage.message.Body: got undefined; allowed: a string (the message body as text: JSON.stringify an envelope object)); the consumer threw on the batch of 1, so none was deleted: they come back after their visibility timeout, and any it had handled are acknowledged then as duplicates`,
    );
    expect((error as PollError).cause).toBeInstanceOf(ConsumerOptionsError);
    expect((error as PollError).cause).toMatchObject({ field: 'fromSqsMessage.message.Body', code: 'INVALID_CONSUMER_OPTIONS' });
    expect(handle).not.toHaveBeenCalled();
    expect(server.inspectQueue(name)?.messages.inflight).toHaveLength(1);
  });

  it("hands the messages of the consumer createConsumer gave to its run without process's check, and calls any other process as given", async () => {
    const { consumer } = consumerWith('poll-checked-run', { 'order.placed': { handle: () => {} } });
    expect(checkedRunOf(consumer.process)).toBeTypeOf('function');
    const seen: unknown[] = [];
    const wrapper = {
      process: (...args: Parameters<Consumer['process']>) => {
        seen.push(args);
        return consumer.process(...args);
      },
    };
    expect(checkedRunOf(wrapper.process)).toBeUndefined();

    const { queueUrl, event } = await queueWithEvent('poll-checked-run', '30');
    const direct = await pollOnce({ sqs: clients.sqs, queueUrl, consumer });
    expect(direct.result.outcomes).toMatchObject([{ status: 'processed', eventId: event.id }]);
    expect(direct.acknowledged).toBe(1);

    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: anEnvelope({ aggregateId: 'again' }).body }));
    const wrapped = await pollOnce({ sqs: clients.sqs, queueUrl, consumer: wrapper });
    expect(wrapped.acknowledged).toBe(1);
    expect(seen).toEqual([[[expect.objectContaining({ queueName: 'poll-checked-run' })], { claimExpiresAt: expect.any(Number) }]]);
  });
});

describe('process: the claim deadline', () => {
  it('does not run a claim handler whose deadline has passed, and writes nothing', async () => {
    const handle = vi.fn();
    const { consumer } = consumerWith('late-claim', { 'order.placed': { idempotency: 'claim', handle } });
    const event = anEnvelope({ aggregateId: 'late-claim' });
    const passed = Math.floor(Date.now() / 1000);

    const { outcomes, batchItemFailures } = await consumer.process([{ messageId: 'm1', body: event.body }], { claimExpiresAt: passed });

    expect(outcomes[0]).toMatchObject({ status: 'failed', error: { code: 'CLAIM_DEADLINE_PASSED', claimExpiresAt: passed } });
    expect((outcomes[0] as { error: Error }).error).toBeInstanceOf(ClaimDeadlinePassedError);
    expect((outcomes[0] as { error: Error }).error.message).toContain(`Event ${event.id} was not handled`);
    expect(batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(handle).not.toHaveBeenCalled();
    expect(await inboxRecord('late-claim', event.id)).toBeUndefined();
  });

  it('leaves a transaction handler alone: its commit needs no claim', async () => {
    const { consumer } = consumerWith('late-transaction', { 'order.placed': { handle: () => {} } });
    const event = anEnvelope({ aggregateId: 'late-transaction' });
    const passed = Math.floor(Date.now() / 1000) - 60;

    const { outcomes } = await consumer.process([{ messageId: 'm1', body: event.body }], { claimExpiresAt: passed });

    expect(outcomes[0]).toMatchObject({ status: 'processed' });
  });

  it('keeps a configured claim timeout over the deadline given', async () => {
    const event = anEnvelope({ aggregateId: 'timeout-wins' });
    const expiries: number[] = [];
    const watching = consumerWith(
      'timeout-wins',
      { 'order.placed': { idempotency: 'claim', handle: (_e, ctx) => void expiries.push(ctx.claimExpiresAt) } },
      { claimTimeoutSeconds: 120 },
    ).consumer;
    const before = Date.now();

    await watching.process([{ messageId: 'm1', body: event.body }], { claimExpiresAt: Math.floor(before / 1000) + 5 });

    expect(expiries).toHaveLength(1);
    expect(expiries[0]).toBeGreaterThanOrEqual(before + 120_000);
  });
});
