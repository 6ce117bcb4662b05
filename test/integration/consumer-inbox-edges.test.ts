import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { InboxWriteError } from '../../shared/consumer/errors.js';
import { inboxKey } from '../../shared/consumer/inbox.js';
import type { ConsumerOptions, InboxOptions } from '../../shared/consumer/types.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { losingFirstAnswerOf } from '../helpers/lost-response.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-edges'));
});

afterAll(() => clients.destroy());

function consumerWith(
  name: string,
  handlers: ConsumerOptions['handlers'],
  extra: Omit<Partial<ConsumerOptions>, 'inbox'> & { document?: DynamoDBDocumentClient; inbox?: Partial<InboxOptions> } = {},
) {
  const { document = clients.document, inbox, ...rest } = extra;
  const telemetry = recordingTelemetry();
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    handlers,
    inbox: { document, tableName, ...inbox },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    ...rest,
  });
  return { consumer, ...telemetry };
}

const inboxRecord = async (consumer: string, eventId: string) =>
  (
    await clients.document.send(
      new GetCommand({ TableName: tableName, Key: inboxKey(consumer, { source: TEST_SOURCE, id: eventId }), ConsistentRead: true }),
    )
  ).Item;

describe('claim: an inbox write whose answer was lost and that the SDK sent again', () => {
  it('recognises its own claim in the retried Put, and runs the handler', async () => {
    const ran: string[] = [];
    const { consumer } = consumerWith(
      'lost-claim',
      { 'order.placed': { idempotency: 'claim', handle: (event) => void ran.push(event.id) } },
      { document: losingFirstAnswerOf('PutItemCommand') },
    );
    const event = anEnvelope({ aggregateId: 'lost-claim' });

    const { outcomes } = await consumer.process([{ messageId: 'm1', body: event.body }]);

    expect(outcomes[0]).toMatchObject({ status: 'processed' });
    expect(ran).toEqual([event.id]);
    expect(await inboxRecord('lost-claim', event.id)).toMatchObject({ status: 'COMPLETED' });
  });

  it('recognises its own completion in the retried update, and warns of nothing', async () => {
    const { consumer, logs } = consumerWith(
      'lost-complete',
      { 'order.placed': { idempotency: 'claim', handle: () => {} } },
      { document: losingFirstAnswerOf('UpdateItemCommand') },
    );
    const event = anEnvelope({ aggregateId: 'lost-complete' });

    const { outcomes } = await consumer.process([{ messageId: 'm1', body: event.body }]);

    expect(outcomes[0]).toMatchObject({ status: 'processed' });
    expect(await inboxRecord('lost-complete', event.id)).toMatchObject({ status: 'COMPLETED' });
    expect(logs.filter((log) => log.level !== 'info')).toEqual([]);
  });
});

// The SDK fills in TransactWriteItems' ClientRequestToken (an idempotency token) when it serializes
// the request, once: its retries carry the same token, and DynamoDB answers them with success.
describe('transaction: an inbox commit whose answer was lost and that the SDK sent again', () => {
  it.each(['event', 'batch'] as const)(
    "counts each event processed, not a duplicate of itself, under commit: '%s' (DynamoDB answers the request's token)",
    async (commit) => {
      const name = `lost-commit-${commit}`;
      const { consumer, counts } = consumerWith(
        name,
        { 'order.placed': { handle: () => {} } },
        { document: losingFirstAnswerOf('TransactWriteItemsCommand'), commit },
      );
      const events = [anEnvelope({ aggregateId: `${name}-0` }), anEnvelope({ aggregateId: `${name}-1` })];

      const { outcomes } = await consumer.process(events.map((event, i) => ({ messageId: `m${i}`, body: event.body })));

      expect(outcomes.map((o) => o.status)).toEqual(['processed', 'processed']);
      expect(await inboxRecord(name, events[0]?.id as string)).toMatchObject({ status: 'COMPLETED' });
      expect(counts.get('DuplicateEvents') ?? 0).toBe(0);
      expect(counts.get('EventsProcessed')).toBe(2);
    },
  );
});

describe('claim timeout', () => {
  it('lasts at least the timeout, however far into its second a claim was taken', async () => {
    let clock = Date.parse('2026-06-01T12:00:00.999Z');
    const ran: string[] = [];
    const handlers: ConsumerOptions['handlers'] = {
      'order.placed': { idempotency: 'claim', handle: () => new Promise<void>(() => {}) },
    };
    const options = { now: () => clock, inbox: { claimTimeoutSeconds: 2 } } as const;
    // A worker claims the event and hangs in its handler.
    const hung = consumerWith('claim-rounding', handlers, options).consumer;
    const event = anEnvelope({ aggregateId: 'rounding' });
    void hung.process([{ messageId: 'm1', body: event.body }]);
    await expect.poll(async () => (await inboxRecord('claim-rounding', event.id))?.status, { timeout: 10_000 }).toBe('IN_PROGRESS');

    const other = consumerWith(
      'claim-rounding',
      { 'order.placed': { idempotency: 'claim', handle: (e) => void ran.push(e.id) } },
      options,
    ).consumer;
    // 1.001 s later, and then 2.001 s later: the claim of 2 s still holds.
    clock = Date.parse('2026-06-01T12:00:02.000Z');
    expect((await other.process([{ messageId: 'm1', body: event.body }])).outcomes[0]).toMatchObject({
      status: 'failed',
      error: { code: 'CLAIM_HELD' },
    });
    clock = Date.parse('2026-06-01T12:00:03.000Z');
    expect((await other.process([{ messageId: 'm1', body: event.body }])).outcomes[0]).toMatchObject({ status: 'processed' });
    expect(ran).toEqual([event.id]);
  });

  it("keeps a claim's record until the claim lapses, even when the inbox retention is shorter", async () => {
    const clock = Date.parse('2026-06-01T12:00:00.000Z');
    const nowSeconds = clock / 1000;
    const hang: ConsumerOptions['handlers'] = { 'order.placed': { idempotency: 'claim', handle: () => new Promise<void>(() => {}) } };
    // A claim of the timeout, and one until a deadline passed to process: both outlast the 5 s retention.
    const byTimeout = consumerWith('claim-ttl-timeout', hang, {
      now: () => clock,
      inbox: { retentionSeconds: 5, claimTimeoutSeconds: 60 },
    });
    const byDeadline = consumerWith('claim-ttl-deadline', hang, { now: () => clock, inbox: { retentionSeconds: 5 } });
    const event = anEnvelope({ aggregateId: 'claim-ttl' });
    void byTimeout.consumer.process([{ messageId: 'm1', body: event.body }]);
    void byDeadline.consumer.process([{ messageId: 'm1', body: event.body }], { claimExpiresAt: nowSeconds + 600 });

    for (const [name, lapsesAt] of [
      ['claim-ttl-timeout', nowSeconds + 60],
      ['claim-ttl-deadline', nowSeconds + 600],
    ] as const) {
      await expect.poll(async () => (await inboxRecord(name, event.id))?.status, { timeout: 10_000 }).toBe('IN_PROGRESS');
      // TTL may delete a record any time after its expiresAt: a claim deleted while its handler runs lets another delivery claim the event.
      expect(await inboxRecord(name, event.id)).toMatchObject({ claimExpiresAt: lapsesAt, expiresAt: lapsesAt });
    }
  });
});

describe('transaction: writes DynamoDB refuses', () => {
  it('fails the message with INVALID_INBOX_WRITE naming the event and what is allowed, and writes nothing', async () => {
    const { consumer } = consumerWith('refused-writes', {
      'order.placed': {
        handle: (event, ctx) => {
          const Key = { pk: `VIEW#${event.subject}`, sk: 'VIEW' };
          ctx.write({ Put: { TableName: tableName, Item: { ...Key, n: 1 } } });
          ctx.write({ Update: { TableName: tableName, Key, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 2 } } });
        },
      },
    });
    const event = anEnvelope({ aggregateId: 'twice' });

    const { outcomes } = await consumer.process([{ messageId: 'm1', body: event.body }]);

    expect(outcomes[0]).toMatchObject({ status: 'failed' });
    const { error } = outcomes[0] as { error: Error };
    expect(error).toBeInstanceOf(InboxWriteError);
    expect(error).toMatchObject({ code: 'INVALID_INBOX_WRITE' });
    expect(error.message).toContain(`DynamoDB refused the transaction of event ${event.id} (order.placed)`);
    expect(error.message).toContain('allowed: one action per item, the inbox record included');
    expect(await inboxRecord('refused-writes', event.id)).toBeUndefined();
  });

  it('refuses a write added after the handler returned, loudly, instead of losing it silently', async () => {
    let late: unknown;
    const { consumer, logs } = consumerWith('late-write', {
      'order.placed': {
        handle: (event, ctx) => {
          // Not awaited: the write comes after the handler has returned.
          void Promise.resolve()
            .then(() => new Promise((resolve) => setImmediate(resolve)))
            .then(() => {
              try {
                ctx.write({ Put: { TableName: tableName, Item: { pk: `LATE#${event.id}`, sk: 'LATE' } } });
              } catch (error) {
                late = error;
              }
            });
        },
      },
    });
    const event = anEnvelope({ aggregateId: 'late' });

    await consumer.process([{ messageId: 'm1', body: event.body }]);
    await expect.poll(() => late, { timeout: 10_000 }).toBeInstanceOf(InboxWriteError);

    expect((late as Error).message).toContain(`ctx.write was called after the handler of event ${event.id} (order.placed) had returned`);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'A write was added after the handler returned; it is lost' }),
    );
  });
});

describe('transaction: ctx.write given what is no transact item', () => {
  it.each<[string, unknown, string]>([
    ['null', null, 'got null'],
    ['a Put without its Item', { Put: { TableName: 't', Item: null } }, 'got a Put whose Item is null'],
    ['an Update without its Key', { Update: { TableName: 't', UpdateExpression: 'SET n = :n' } }, 'got an Update whose Key is undefined'],
    [
      'two actions in one item',
      { Put: { Item: {} }, Delete: { Key: {} } },
      'got Put and Delete in one item ({"Put":{"Item":{}},"Delete":{"Key":{}}})',
    ],
    ['no action', { put: { Item: {} } }, 'got no action ({"put":{"Item":{}}})'],
  ])('fails the message with INVALID_INBOX_WRITE, saying what it got, for %s, and writes nothing', async (_, item, got) => {
    const name = `bad-write-${Math.random().toString(36).slice(2, 8)}`;
    const { consumer } = consumerWith(name, {
      'order.placed': {
        handle: (event, ctx) => {
          ctx.write({ Put: { TableName: tableName, Item: { pk: `VIEW#${event.id}`, sk: 'VIEW' } } });
          ctx.write(item as never);
        },
      },
    });
    const event = anEnvelope({ aggregateId: name });

    const { outcomes } = await consumer.process([{ messageId: 'm1', body: event.body }]);

    const { error } = outcomes[0] as { error: Error };
    expect(outcomes[0]).toMatchObject({ status: 'failed' });
    expect(error).toBeInstanceOf(InboxWriteError);
    expect(error.message).toContain(`ctx.write for event ${event.id} (order.placed) ${got}; allowed: one transact item`);
    expect(await inboxRecord(name, event.id)).toBeUndefined();
  });
});

describe('transaction: a write holding a value the DocumentClient cannot marshal', () => {
  it.each(['event', 'batch'] as const)(
    'fails that message with INVALID_INBOX_WRITE naming the value, writes nothing of it, and commits the others (commit: %s)',
    async (commit) => {
      const name = `date-write-${commit}`;
      const { consumer } = consumerWith(
        name,
        {
          'order.placed': {
            handle: (event, ctx) => {
              const at = event.subject.endsWith('bad') ? new Date() : 'now';
              ctx.write({ Put: { TableName: tableName, Item: { pk: `VIEW#${event.id}`, sk: 'VIEW', at } } });
            },
          },
        },
        { commit },
      );
      const bad = anEnvelope({ aggregateId: `${name}-bad` });
      const good = anEnvelope({ aggregateId: `${name}-good` });

      const { outcomes } = await consumer.process([
        { messageId: 'm1', body: bad.body },
        { messageId: 'm2', body: good.body },
      ]);

      expect(outcomes.map((o) => o.status)).toEqual(['failed', 'processed']);
      const { error } = outcomes[0] as { error: Error };
      expect(error).toBeInstanceOf(InboxWriteError);
      expect(error.message).toContain(
        `The writes of event ${bad.id} (order.placed) hold a value the DynamoDB DocumentClient cannot marshal (write 0 (Put).Item.at: Unsupported type passed`,
      );
      expect(error.message).toContain('convert a Date to an ISO string or epoch number first');
      expect(await inboxRecord(name, bad.id)).toBeUndefined();
      expect(await inboxRecord(name, good.id)).toMatchObject({ status: 'COMPLETED' });
    },
  );
});
