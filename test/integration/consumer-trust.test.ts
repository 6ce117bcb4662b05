import { PublishCommand } from '@aws-sdk/client-sns';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { inboxKey, legacyInboxKey } from '../../shared/consumer/inbox-keys.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';
import type { ConsumerMessage, ConsumerOptions, MessageOutcome } from '../../shared/consumer/types.js';
import { messageAttributes } from '../../shared/envelope.js';
import { anEnvelope, snsNotification, TEST_SOURCE, TEST_TOPIC_ARN } from '../helpers/envelopes.js';
import { queueWithDlq } from '../helpers/fauxqs.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const { server, clients } = await emulatorForFile();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-trust'));
});

const OTHER_SOURCE = 'urn:dynamodb-outbox:other-shop';

/** A consumer whose handler writes a marker item per event, so what it applied shows in the table. */
function consumerWith(name: string, extra: Partial<ConsumerOptions> = {}, idempotency: 'transaction' | 'claim' = 'transaction') {
  const handled: string[] = [];
  const telemetry = recordingTelemetry();
  const mark = (event: { id: string; source: string }): void => void handled.push(`${event.source} ${event.id}`);
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    inbox: { document: clients.document, tableName },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    handlers: {
      'order.placed':
        idempotency === 'claim'
          ? { idempotency: 'claim', handle: mark }
          : {
              handle: (event, ctx) => {
                mark(event);
                ctx.write({ Put: { TableName: tableName, Item: { pk: `MARK#${name}#${event.source}#${event.id}`, sk: 'MARK' } } });
              },
            },
    },
    ...extra,
  });
  return { consumer, handled, ...telemetry };
}

/** Every item in the table whose partition key names this consumer (inbox records and its handler's marks). */
async function itemsOf(consumer: string): Promise<string[]> {
  const { Items = [] } = await clients.document.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
  return Items.map((item) => String(item.pk)).filter((pk) => pk.startsWith(`INBOX#${consumer}#`) || pk.startsWith(`MARK#${consumer}#`));
}

const message = (body: string, messageId: string, messageAttributes?: ConsumerMessage['messageAttributes']): ConsumerMessage => ({
  messageId,
  body,
  ...(messageAttributes === undefined ? {} : { messageAttributes }),
});

const rejection = (outcome: MessageOutcome | undefined) =>
  outcome?.status === 'rejected' ? { code: outcome.error.code, reason: outcome.error.message } : { status: outcome?.status };

describe('consumer: sources', () => {
  it('rejects an event of a source it is not configured for, to the DLQ, running nothing and writing nothing', async () => {
    const { consumer, handled } = consumerWith('untrusted-source');
    const forged = anEnvelope({ source: 'urn:attacker' });
    const result = await consumer.process([message(forged.body, 'm1')]);
    expect(rejection(result.outcomes[0])).toEqual({
      code: 'UNTRUSTED_SOURCE',
      reason: `Event "${forged.id}" has source "urn:attacker", which this consumer does not accept; allowed: "${TEST_SOURCE}" (the consumer option sources)`,
    });
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(handled).toEqual([]);
    expect(await itemsOf('untrusted-source')).toEqual([]);
  });

  it('does not let a forged event that reuses a real event’s id suppress the real one', async () => {
    const { consumer, handled } = consumerWith('reused-id');
    const real = anEnvelope();
    const forged = anEnvelope({ id: real.id, source: 'urn:attacker' });
    const result = await consumer.process([message(forged.body, 'forged'), message(real.body, 'real')]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['rejected', 'processed']);
    expect(handled).toEqual([`${TEST_SOURCE} ${real.id}`]);
  });

  it('keeps the events of two sources with the same id apart: each is handled once, neither suppresses the other', async () => {
    const { consumer, handled } = consumerWith('two-sources', { sources: [TEST_SOURCE, OTHER_SOURCE] });
    const ours = anEnvelope();
    const theirs = anEnvelope({ id: ours.id, source: OTHER_SOURCE });
    const first = await consumer.process([message(ours.body, 'm1'), message(theirs.body, 'm2')]);
    const again = await consumer.process([message(theirs.body, 'm3'), message(ours.body, 'm4')]);
    expect(first.outcomes.map((o) => o.status)).toEqual(['processed', 'processed']);
    expect(again.outcomes.map((o) => o.status)).toEqual(['duplicate', 'duplicate']);
    expect(handled).toEqual([`${TEST_SOURCE} ${ours.id}`, `${OTHER_SOURCE} ${ours.id}`]);
    const inbox = inboxKey('two-sources', { source: OTHER_SOURCE, id: ours.id });
    expect(inbox).toEqual({ pk: `INBOX#two-sources#${ours.id}`, sk: `INBOX#${OTHER_SOURCE}` });
  });
});

describe('consumer: SNS notifications (non-raw delivery)', () => {
  it('accepts them only from its configured topics, by their TopicArn', async () => {
    const { consumer, handled } = consumerWith('topics', { topicArns: [TEST_TOPIC_ARN] });
    const trusted = anEnvelope();
    const forged = anEnvelope();
    const result = await consumer.process([
      message(snsNotification(trusted.body), 'm1'),
      message(snsNotification(forged.body, 'arn:aws:sns:us-east-1:000000000000:elsewhere'), 'm2'),
      message(JSON.stringify({ Type: 'Notification', Message: forged.body }), 'm3'),
    ]);
    expect(result.outcomes.map(rejection)).toEqual([
      { status: 'processed' },
      {
        code: 'UNTRUSTED_TOPIC',
        reason: `The message is an SNS notification with TopicArn "arn:aws:sns:us-east-1:000000000000:elsewhere"; allowed: SNS notifications of "${TEST_TOPIC_ARN}" (the consumer option topicArns), or raw message delivery`,
      },
      { code: 'UNTRUSTED_TOPIC', reason: expect.stringContaining('with no TopicArn') },
    ]);
    expect(handled).toEqual([`${TEST_SOURCE} ${trusted.id}`]);
  });

  it('rejects every SNS notification when no topic is configured, saying how to accept them', async () => {
    const { consumer, handled } = consumerWith('no-topics');
    const result = await consumer.process([message(snsNotification(anEnvelope().body), 'm1')]);
    expect(rejection(result.outcomes[0])).toEqual({
      code: 'UNTRUSTED_TOPIC',
      reason: `The message is an SNS notification with TopicArn "${TEST_TOPIC_ARN}"; allowed: raw message delivery, or SNS notifications of the topics named in the consumer option topicArns (none is named)`,
    });
    expect(handled).toEqual([]);
    expect(await itemsOf('no-topics')).toEqual([]);
  });
});

describe('consumer: message attributes against the envelope', () => {
  const attribute = (value: string) => ({ dataType: 'String', stringValue: value });

  it('rejects a raw message whose type or aggregatetype attribute says otherwise than its envelope', async () => {
    const { consumer, handled } = consumerWith('attributes', { topicArns: [TEST_TOPIC_ARN] });
    const event = anEnvelope();
    const result = await consumer.process([
      message(event.body, 'm1', { type: attribute('order.cancelled'), aggregatetype: attribute('order') }),
      message(event.body, 'm2', { type: attribute('order.placed'), aggregatetype: attribute('payment') }),
      message(event.body, 'm3', { type: { dataType: 'Binary' } }),
      message(snsNotification(event.body, TEST_TOPIC_ARN, { type: 'order.cancelled' }), 'm4'),
    ]);
    expect(result.outcomes.map(rejection)).toEqual([
      {
        code: 'ATTRIBUTE_MISMATCH',
        reason: `The message attribute type of event "${event.id}" is "order.cancelled", but the envelope's type is "order.placed"; allowed: the envelope's own value (subscription filters decide on the attribute), or no such attribute`,
      },
      { code: 'ATTRIBUTE_MISMATCH', reason: expect.stringContaining(`attribute aggregatetype of event "${event.id}" is "payment"`) },
      { code: 'ATTRIBUTE_MISMATCH', reason: expect.stringContaining('attribute type of event') },
      { code: 'ATTRIBUTE_MISMATCH', reason: expect.stringContaining('The SNS notification attribute type') },
    ]);
    expect(handled).toEqual([]);
    expect(await itemsOf('attributes')).toEqual([]);
  });

  it('handles a message whose attributes match its envelope, or that has none, once', async () => {
    const { consumer, handled } = consumerWith('attributes-match');
    const event = anEnvelope();
    const result = await consumer.process([
      message(event.body, 'm1', { type: attribute('order.placed'), aggregatetype: attribute('order'), other: attribute('x') }),
      message(event.body, 'm2'),
    ]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['processed', 'duplicate']);
    expect(handled).toEqual([`${TEST_SOURCE} ${event.id}`]);
  });

  it('rejects, through SNS and SQS, a message that passed a filter policy by an attribute its envelope contradicts', async () => {
    const { topicArn } = server.createTopic('filtered-orders');
    const { queueUrl } = queueWithDlq(server, 'filtered-queue', 5);
    server.subscribe({
      topic: 'filtered-orders',
      queue: 'filtered-queue',
      attributes: { RawMessageDelivery: 'true', FilterPolicy: JSON.stringify({ type: ['order.placed'] }) },
    });
    const { consumer, handled } = consumerWith('filtered', {
      handlers: { 'order.placed': { handle: vi.fn() }, 'order.cancelled': { handle: vi.fn() } },
    });
    const disguised = anEnvelope({ type: 'order.cancelled' });
    await clients.sns.send(
      new PublishCommand({ TopicArn: topicArn, Message: disguised.body, MessageAttributes: messageAttributes('order.placed', 'order') }),
    );
    await server.spy.waitForMessage({ service: 'sqs', queueName: 'filtered-queue' }, 'published', 5000);

    const { result } = await pollOnce({ sqs: clients.sqs, queueUrl, consumer, visibilityTimeoutSeconds: 30 });

    expect(result.outcomes.map(rejection)).toEqual([
      { code: 'ATTRIBUTE_MISMATCH', reason: expect.stringContaining('is "order.placed", but the envelope\'s type is "order.cancelled"') },
    ]);
    expect(handled).toEqual([]);
  });
});

describe('consumer: inbox records of releases before the source was part of the key', () => {
  const legacyRecord = (consumer: string, eventId: string, fields: Record<string, unknown>) =>
    clients.document.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...legacyInboxKey(consumer, eventId),
          kind: 'inbox',
          consumer,
          eventId,
          eventType: 'order.placed',
          expiresAt: 4_000_000_000,
          ...fields,
        },
      }),
    );

  it('takes an event handled under the old key for a duplicate, in both idempotency modes, writing nothing', async () => {
    for (const mode of ['transaction', 'claim'] as const) {
      const name = `legacy-done-${mode}`;
      const { consumer, handled } = consumerWith(name, {}, mode);
      const event = anEnvelope();
      await legacyRecord(name, event.id, { status: 'COMPLETED', processedAt: '2026-01-01T00:00:00.000Z' });
      const result = await consumer.process([message(event.body, 'm1')]);
      expect(result.outcomes.map((o) => o.status)).toEqual(['duplicate']);
      expect(handled).toEqual([]);
      expect(await itemsOf(name)).toEqual([`INBOX#${name}#${event.id}`]);
    }
  });

  it('retries an event an earlier release holds an unexpired claim of, and takes over an expired one', async () => {
    const { consumer, handled } = consumerWith('legacy-claim');
    const held = anEnvelope();
    const lapsed = anEnvelope();
    const now = Math.floor(Date.now() / 1000);
    await legacyRecord('legacy-claim', held.id, { status: 'IN_PROGRESS', claimToken: 't', claimExpiresAt: now + 300 });
    await legacyRecord('legacy-claim', lapsed.id, { status: 'IN_PROGRESS', claimToken: 't', claimExpiresAt: now - 1 });
    const result = await consumer.process([message(held.body, 'm1'), message(lapsed.body, 'm2')]);
    expect(result.outcomes.map((o) => (o.status === 'failed' ? (o.error as { code?: string }).code : o.status))).toEqual([
      'CLAIM_HELD',
      'processed',
    ]);
    expect(handled).toEqual([`${TEST_SOURCE} ${lapsed.id}`]);
  });

  it('looks no more under the old key with inbox.legacyKeyCheck off', async () => {
    const { consumer, handled } = consumerWith('legacy-off', { inbox: { document: clients.document, tableName, legacyKeyCheck: false } });
    const event = anEnvelope();
    await legacyRecord('legacy-off', event.id, { status: 'COMPLETED' });
    const result = await consumer.process([message(event.body, 'm1')]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['processed']);
    expect(handled).toEqual([`${TEST_SOURCE} ${event.id}`]);
  });
});
