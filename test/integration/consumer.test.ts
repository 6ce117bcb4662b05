import { PublishBatchCommand, PublishCommand } from '@aws-sdk/client-sns';
import { ReceiveMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { ClaimHeldError } from '../../shared/consumer/errors.js';
import { inboxKey } from '../../shared/consumer/inbox.js';
import { fromSqsMessage } from '../../shared/consumer/messages.js';
import { eventHandler } from '../../shared/consumer/options.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';
import type { ConsumerOptions, MessageOutcome, TransactionContext } from '../../shared/consumer/types.js';
import { messageAttributes, parseEnvelope } from '../../shared/envelope.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { queueDepth, queueWithDlq } from '../helpers/fauxqs.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const { server, clients } = await emulatorForFile();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer'));
});

const projectionKey = (orderId: string) => ({ pk: `PROJ#order#${orderId}`, sk: 'VIEW' });

async function applied(orderId: string): Promise<number | undefined> {
  const { Item } = await clients.document.send(new GetCommand({ TableName: tableName, Key: projectionKey(orderId), ConsistentRead: true }));
  return Item?.applied as number | undefined;
}

/** A projection write: counts how many times it was applied, so a double application shows. */
const project = (orderId: string, eventId: string, ctx: TransactionContext) =>
  ctx.write({
    Update: {
      TableName: tableName,
      Key: projectionKey(orderId),
      UpdateExpression: 'ADD applied :one SET lastEventId = :id',
      ExpressionAttributeValues: { ':one': 1, ':id': eventId },
    },
  });

function consumerWith(name: string, handlers: ConsumerOptions['handlers'], extra: Partial<ConsumerOptions> = {}) {
  const telemetry = recordingTelemetry();
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    handlers,
    inbox: { document: clients.document, tableName },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    ...extra,
  });
  return { consumer, ...telemetry };
}

/** An unexpired (for 30 s at `clock`) claim of the event by another worker, as `idempotency: 'claim'` writes it. */
const claimOf = (consumer: string, eventId: string, clock: number, claimToken: string) => ({
  ...inboxKey(consumer, { source: TEST_SOURCE, id: eventId }),
  kind: 'inbox',
  status: 'IN_PROGRESS',
  claimToken,
  claimExpiresAt: Math.floor(clock / 1000) + 30,
  expiresAt: Math.floor(clock / 1000) + 3600,
});

/** Asserts that the message failed because a claim of its event holds it back. */
function expectHeld(result: { outcomes: readonly MessageOutcome[] }): void {
  expect(result.outcomes[0]?.status).toBe('failed');
  expect((result.outcomes[0] as { error: Error }).error).toBeInstanceOf(ClaimHeldError);
}

/** Polls like an SQS event source mapping until the queue is empty, collecting every outcome. */
async function drain(
  queueName: string,
  queueUrl: string,
  consumer: ReturnType<typeof consumerWith>['consumer'],
): Promise<MessageOutcome[]> {
  const outcomes: MessageOutcome[] = [];
  await vi.waitFor(
    async () => {
      const { result } = await pollOnce({ sqs: clients.sqs, queueUrl, consumer, retryDelaySeconds: 0 });
      outcomes.push(...result.outcomes);
      expect(queueDepth(server, queueName)).toBe(0);
    },
    { timeout: 30_000, interval: 20 },
  );
  return outcomes;
}

function rawSubscription(topic: string, queue: string, raw = true): void {
  server.subscribe({ topic, queue, attributes: raw ? { RawMessageDelivery: 'true' } : {} });
}

describe('consumer with inbox by transaction', () => {
  it('runs the handler once for an event delivered three times', async () => {
    const { topicArn } = server.createTopic('dup-orders');
    const { queueUrl } = queueWithDlq(server, 'dup-queue', 5);
    rawSubscription('dup-orders', 'dup-queue');
    const handle = vi.fn((event: { subject: string; id: string }, ctx: TransactionContext) => project(event.subject, event.id, ctx));
    const { consumer, counts } = consumerWith('dup-projection', { 'order.placed': { handle } });
    const event = anEnvelope({ aggregateId: 'dup-1' });
    for (let i = 0; i < 3; i++) {
      await clients.sns.send(
        new PublishCommand({ TopicArn: topicArn, Message: event.body, MessageAttributes: messageAttributes('order.placed', 'order') }),
      );
    }
    await server.spy.waitForMessages({ service: 'sqs', queueName: 'dup-queue' }, { count: 3, status: 'published', timeout: 5000 });

    const outcomes = await drain('dup-queue', queueUrl, consumer);

    expect(handle).toHaveBeenCalledTimes(1);
    expect(await applied('dup-1')).toBe(1);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['duplicate', 'duplicate', 'processed']);
    expect(counts.get('DuplicateEvents')).toBe(2);
  });

  it('does not apply twice when the worker crashes between the commit and the acknowledgement', async () => {
    const { topicArn } = server.createTopic('crash-orders');
    const { queueUrl } = queueWithDlq(server, 'crash-queue', 5);
    rawSubscription('crash-orders', 'crash-queue');
    const handle = vi.fn((event: { subject: string; id: string }, ctx: TransactionContext) => project(event.subject, event.id, ctx));
    const { consumer } = consumerWith('crash-projection', { 'order.placed': { handle } });
    await clients.sns.send(new PublishCommand({ TopicArn: topicArn, Message: anEnvelope({ aggregateId: 'crash-1' }).body }));

    // The side effect commits, then the worker dies before it deletes the message.
    const { Messages = [] } = await clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 5 }),
    );
    expect(Messages).toHaveLength(1);
    const first = await consumer.process(Messages.map(fromSqsMessage));
    expect(first.outcomes.map((o) => o.status)).toEqual(['processed']);
    expect(await applied('crash-1')).toBe(1);

    const redelivered = await drain('crash-queue', queueUrl, consumer);

    expect(redelivered.map((o) => o.status)).toEqual(['duplicate']);
    expect(await applied('crash-1')).toBe(1);
    expect(handle).toHaveBeenCalledTimes(1);
    const event = parseEnvelope(Messages[0]?.Body ?? '');
    const { Item } = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: inboxKey('crash-projection', { source: TEST_SOURCE, id: event.id }) }),
    );
    const fourteenDays = Math.floor(Date.now() / 1000) + 14 * 24 * 3600;
    expect(Item).toMatchObject({ status: 'COMPLETED', eventType: 'order.placed' });
    expect(Item?.expiresAt).toBeGreaterThan(fourteenDays - 120);
    expect(Item?.expiresAt).toBeLessThanOrEqual(fourteenDays);
  });

  it('handles the SNS-enveloped form like raw delivery', async () => {
    const { topicArn } = server.createTopic('enveloped-orders');
    const { queueUrl } = queueWithDlq(server, 'enveloped-queue', 5);
    rawSubscription('enveloped-orders', 'enveloped-queue', false);
    const seen: string[] = [];
    const { consumer } = consumerWith(
      'enveloped-projection',
      {
        'order.placed': {
          handle: (event, ctx) => {
            seen.push(event.id);
            project(event.subject, event.id, ctx);
          },
        },
      },
      { topicArns: [topicArn] },
    );
    const event = anEnvelope({ aggregateId: 'env-1' });
    await clients.sns.send(new PublishCommand({ TopicArn: topicArn, Message: event.body }));
    await server.spy.waitForMessage({ service: 'sqs', queueName: 'enveloped-queue' }, 'published', 5000);
    expect(JSON.parse(server.inspectQueue('enveloped-queue')?.messages.ready[0]?.body ?? '{}').Type).toBe('Notification');

    const outcomes = await drain('enveloped-queue', queueUrl, consumer);

    expect(outcomes.map((o) => o.status)).toEqual(['processed']);
    expect(seen).toEqual([event.id]);
    expect(await applied('env-1')).toBe(1);
  });

  it('fails the message and writes nothing when a handler condition cancels the transaction', async () => {
    const { consumer } = consumerWith('conditional-projection', {
      'order.placed': {
        handle: (event, ctx) => {
          project(event.subject, event.id, ctx);
          ctx.write({
            ConditionCheck: { TableName: tableName, Key: { pk: 'MISSING', sk: 'MISSING' }, ConditionExpression: 'attribute_exists(pk)' },
          });
        },
      },
    });
    const event = anEnvelope({ aggregateId: 'cond-1' });
    const result = await consumer.process([{ messageId: 'm-1', body: event.body }]);
    expect(result.outcomes[0]?.status).toBe('failed');
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    expect(await applied('cond-1')).toBeUndefined();
    const { Item } = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: inboxKey('conditional-projection', { source: TEST_SOURCE, id: event.id }) }),
    );
    expect(Item).toBeUndefined();
  });
});

describe('consumer with inbox by claim', () => {
  it('releases the claim when the side effect fails, and runs it once when delivered again', async () => {
    const sent: string[] = [];
    let failNext = true;
    const { consumer } = consumerWith('mailer', {
      'order.placed': {
        idempotency: 'claim',
        handle: (event) => {
          if (failNext) {
            failNext = false;
            throw new Error('mail server unavailable');
          }
          sent.push(event.id);
        },
      },
    });
    const event = anEnvelope({ aggregateId: 'mail-1' });
    const message = { messageId: 'mail-m1', body: event.body };

    const first = await consumer.process([message]);
    expect(first.outcomes[0]).toMatchObject({ status: 'failed', error: { message: 'mail server unavailable' } });
    const released = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: inboxKey('mailer', { source: TEST_SOURCE, id: event.id }), ConsistentRead: true }),
    );
    expect(released.Item).toBeUndefined();

    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) statuses.push(...(await consumer.process([message])).outcomes.map((o) => o.status));

    expect(statuses).toEqual(['processed', 'duplicate', 'duplicate']);
    expect(sent).toEqual([event.id]);
    const done = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: inboxKey('mailer', { source: TEST_SOURCE, id: event.id }), ConsistentRead: true }),
    );
    expect(done.Item?.status).toBe('COMPLETED');
  });

  it('fails the message while another worker holds an unexpired claim, and takes over an expired one', async () => {
    let clock = Date.parse('2026-06-01T12:00:00Z');
    const sent: string[] = [];
    const { consumer, logs } = consumerWith(
      'pager',
      { 'order.placed': { idempotency: 'claim', handle: (event) => void sent.push(event.id) } },
      { now: () => clock, inbox: { document: clients.document, tableName, claimTimeoutSeconds: 60 } },
    );
    const event = anEnvelope({ aggregateId: 'page-1' });
    await clients.document.send(new PutCommand({ TableName: tableName, Item: claimOf('pager', event.id, clock, 'other-worker') }));

    expectHeld(await consumer.process([{ messageId: 'p-1', body: event.body }]));
    expect(sent).toEqual([]);

    clock += 31_000;
    const taken = await consumer.process([{ messageId: 'p-1', body: event.body }]);
    expect(taken.outcomes[0]?.status).toBe('processed');
    expect(sent).toEqual([event.id]);
    expect(logs.some((l) => l.message === 'Took over an expired claim')).toBe(true);
  });

  it('does not take an event claimed in claim mode for done after its type moves to transaction mode: held while the claim lasts, then committed', async () => {
    let clock = Date.parse('2026-06-01T12:00:00Z');
    const event = anEnvelope({ aggregateId: 'switched-1' });
    // A worker of the claim-mode version claimed the event and died (or is still running) before completing it.
    await clients.document.send(new PutCommand({ TableName: tableName, Item: claimOf('switched', event.id, clock, 'claim-mode-worker') }));
    const { consumer, logs } = consumerWith(
      'switched',
      { 'order.placed': { idempotency: 'transaction', handle: (e, ctx) => project('switched-1', e.id, ctx) } },
      { now: () => clock },
    );

    expectHeld(await consumer.process([{ messageId: 's-1', body: event.body }]));
    expect(await applied('switched-1')).toBeUndefined();

    clock += 31_000;
    const taken = await consumer.process([{ messageId: 's-1', body: event.body }]);
    expect(taken.outcomes[0]?.status).toBe('processed');
    expect(await applied('switched-1')).toBe(1);
    expect(logs.filter((l) => l.message === 'Took over an expired claim').map((l) => l.attributes)).toEqual([
      expect.objectContaining({ consumer: 'switched', eventId: event.id }),
    ]);
    const { Item } = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: inboxKey('switched', { source: TEST_SOURCE, id: event.id }), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ status: 'COMPLETED', eventId: event.id });
    expect(Item?.claimExpiresAt).toBeUndefined();

    const again = await consumer.process([{ messageId: 's-1', body: event.body }]);
    expect(again.outcomes[0]?.status).toBe('duplicate');
    expect(await applied('switched-1')).toBe(1);
  });

  it('holds a transaction-mode commit back when a claim is taken between its inbox check and its commit', async () => {
    const clock = Date.parse('2026-06-01T12:00:00Z');
    const event = anEnvelope({ aggregateId: 'switched-2' });
    const claimed = claimOf('switched-race', event.id, clock, 'claim-mode-worker');
    const { consumer } = consumerWith(
      'switched-race',
      {
        'order.placed': {
          idempotency: 'transaction',
          // The claim lands while the handler runs: after the inbox check, before the commit.
          handle: async (e, ctx) => {
            await clients.document.send(new PutCommand({ TableName: tableName, Item: claimed }));
            project('switched-2', e.id, ctx);
          },
        },
      },
      { now: () => clock },
    );

    const result = await consumer.process([{ messageId: 's-2', body: event.body }]);

    expectHeld(result);
    expect(((result.outcomes[0] as { error: Error }).error as ClaimHeldError).claimExpiresAt).toBe(claimed.claimExpiresAt);
    expect(await applied('switched-2')).toBeUndefined();
  });
});

describe('bad messages', () => {
  it('rejects each kind of bad message with its reason and lets the redrive policy move it to the DLQ', async () => {
    const { queueUrl } = queueWithDlq(server, 'bad-queue', 2);
    const handle = vi.fn((event: { subject: string; id: string }, ctx: TransactionContext) => project(event.subject, event.id, ctx));
    const { consumer, logs, counts } = consumerWith('strict-projection', {
      'order.placed': eventHandler({ schema: z.object({ total: z.number() }), handle }),
    });
    const good = anEnvelope({ aggregateId: 'bad-good' });
    const bodies = {
      INVALID_JSON: 'this is not json',
      INVALID_ENVELOPE: JSON.stringify({ hello: 'world' }),
      UNKNOWN_EVENT_TYPE: anEnvelope({ type: 'order.teleported' }).body,
      SCHEMA_VALIDATION_FAILED: anEnvelope({ data: { total: 'ten' } }).body,
    };
    const sentBodies = [...Object.values(bodies), good.body];
    const sent = await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: sentBodies.map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );
    const messageIdOf = (body: string) => sent.Successful?.find((s) => s.Id === String(sentBodies.indexOf(body)))?.MessageId;

    const outcomes = await drain('bad-queue', queueUrl, consumer);

    const dlq = await server.spy.waitForMessages({ service: 'sqs', queueName: 'bad-queue', status: 'dlq' }, { count: 4, timeout: 10_000 });
    expect(dlq.map((m) => (m.service === 'sqs' ? m.body : '')).sort()).toEqual(Object.values(bodies).sort());
    expect(queueDepth(server, 'bad-queue-dlq')).toBe(4);
    for (const [code, body] of Object.entries(bodies)) {
      const rejection = outcomes.find(
        (o): o is Extract<MessageOutcome, { status: 'rejected' }> => o.status === 'rejected' && o.error.code === code,
      );
      // Rejected for the message that carried this body, not for another bad one.
      expect(rejection?.messageId, code).toBe(messageIdOf(body));
      expect(rejection?.messageId, code).toEqual(expect.any(String));
      const logged = logs.find((l) => l.level === 'error' && l.attributes.code === code);
      expect(logged?.attributes.reason, code).toEqual(expect.any(String));
    }
    expect(String(logs.find((l) => l.attributes.code === 'SCHEMA_VALIDATION_FAILED')?.attributes.reason)).toContain('total');
    expect(String(logs.find((l) => l.attributes.code === 'UNKNOWN_EVENT_TYPE')?.attributes.reason)).toContain('order.teleported');
    expect(handle).toHaveBeenCalledTimes(1);
    expect(await applied('bad-good')).toBe(1);
    expect(counts.get('RejectedMessages')).toBe(8);
  });
});

describe('FIFO', () => {
  it('keeps per-group order end to end through a failing message', async () => {
    const { topicArn } = server.createTopic('orders-e2e.fifo', { attributes: { FifoTopic: 'true' } });
    const { queueUrl } = queueWithDlq(server, 'orders-e2e.fifo', 5);
    rawSubscription('orders-e2e.fifo', 'orders-e2e.fifo');
    const order: string[] = [];
    let failures = 0;
    const { consumer } = consumerWith('fifo-e2e', {
      'order.placed': {
        handle: (event, ctx) => {
          if (event.subject === 'A' && event.aggregatesequence === 2 && failures++ === 0) throw new Error('transient');
          order.push(`${event.subject}${event.aggregatesequence}`);
          project(event.subject, event.id, ctx);
        },
      },
    });
    const events = ['A1', 'A2', 'A3', 'B1', 'B2'].map((key) =>
      anEnvelope({ aggregateId: key.slice(0, 1), sequence: Number(key.slice(1)), id: undefined }),
    );
    await clients.sns.send(
      new PublishBatchCommand({
        TopicArn: topicArn,
        PublishBatchRequestEntries: events.map((e, i) => {
          const parsed = JSON.parse(e.body);
          return { Id: String(i), Message: e.body, MessageGroupId: `order#${parsed.subject}`, MessageDeduplicationId: e.id };
        }),
      }),
    );
    await server.spy.waitForMessages({ service: 'sqs', queueName: 'orders-e2e.fifo' }, { count: 5, status: 'published', timeout: 5000 });

    await drain('orders-e2e.fifo', queueUrl, consumer);

    expect(order.filter((k) => k.startsWith('A'))).toEqual(['A1', 'A2', 'A3']);
    expect(order.filter((k) => k.startsWith('B'))).toEqual(['B1', 'B2']);
    expect(failures).toBe(2);
  });
});
