import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { newId, orderEvent, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';

const clients = testClients();
let tableName: string;
let outbox: Outbox;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'idempotency'));
  outbox = new Outbox({ config: testConfig(), tableName, client: clients.dynamodb });
});
afterAll(() => clients.destroy());

const getItem = async (pk: string, sk: string) =>
  (await clients.document.send(new GetCommand({ TableName: tableName, Key: { pk, sk }, ConsistentRead: true }))).Item;

/** A keyed write on a fresh order, built by `input` from the order id and its item's key. */
function keyedWrite(input: (order: string, key: { pk: string; sk: string }) => Omit<WriteInput, 'idempotencyKey'>) {
  const order = newId('order');
  const idempotencyKey = `k-${order}`.slice(0, 36);
  return { order, write: (): Promise<unknown> => outbox.write({ ...input(order, { pk: `ORDER#${order}`, sk: 'ORDER' }), idempotencyKey }) };
}

describe('idempotency keys: what counts as the same write', () => {
  it('rejects a reused key whose write differs only inside a Map, and keeps the first write', async () => {
    let lines = new Map([['sku-1', 1]]);
    const { order, write } = keyedWrite((o, key) => ({ operations: [{ Put: { Item: { ...key, lines } } }], events: [orderEvent(o)] }));
    await write();
    lines = new Map([['sku-2', 99]]);

    await expect(write()).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: expect.stringContaining('already holds the committed result of a different write'),
    });
    expect((await getItem(`ORDER#${order}`, 'ORDER'))?.lines).toEqual({ 'sku-1': 1 });
  });

  it('rejects a reused key whose events differ only in their data', async () => {
    let total = 42;
    const { write } = keyedWrite((o) => ({ events: [orderEvent(o, 'order.placed', { total })] }));
    await write();
    total = 43;

    await expect(write()).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('rejects a reused key whose event data differs only in the order of a list that happens to be named like a DynamoDB set', async () => {
    let podium = ['first', 'second'];
    const { write } = keyedWrite((o) => ({ events: [orderEvent(o, 'order.placed', { SS: podium, nested: { NS: podium } })] }));
    await write();
    podium = ['second', 'first'];

    await expect(write()).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('replays the same write written another way: fields in another order, the outbox table named, set members and data keys reordered', async () => {
    let second = false;
    const { write } = keyedWrite((o, key) =>
      second
        ? {
            operations: [
              {
                Put: { TableName: tableName, ConditionExpression: 'attribute_not_exists(pk)', Item: { tags: new Set(['b', 'a']), ...key } },
              },
            ],
            events: [orderEvent(o, 'order.placed', { currency: 'EUR', total: 42 })],
          }
        : {
            operations: [{ Put: { Item: { ...key, tags: new Set(['a', 'b']) }, ConditionExpression: 'attribute_not_exists(pk)' } }],
            events: [orderEvent(o, 'order.placed', { total: 42, currency: 'EUR' })],
          },
    );
    const first = (await write()) as { events: unknown[] };
    second = true;

    await expect(write()).resolves.toEqual({ events: first.events, replayed: true });
  });

  it('replays a retry whose traceparent carries a new parent id, as each retried request does', async () => {
    let parent = 'b7ad6b7169203331';
    const { write } = keyedWrite((o) => ({
      events: [{ ...orderEvent(o), traceparent: `00-0af7651916cd43dd8448eb211c80319c-${parent}-01` }],
    }));
    const first = (await write()) as { events: unknown[] };
    parent = '00f067aa0ba902b7';

    await expect(write()).resolves.toEqual({ events: first.events, replayed: true });
  });

  it('replays the version each event was written as, the one named and the newest, as the first write returned them', async () => {
    const eventTypes = { 'order.placed': [{ version: 1 }, { version: 2 }] };
    const versioned = new Outbox({ config: testConfig({ eventTypes }), tableName, client: clients.dynamodb });
    const order = newId('order');
    const input: WriteInput = {
      events: [orderEvent(order), { ...orderEvent(order), version: 1 }],
      idempotencyKey: `v-${order}`.slice(0, 36),
    };
    const first = await versioned.write(input);
    expect(first.events.map((event) => event.version)).toEqual([2, 1]);

    await expect(versioned.write(input)).resolves.toEqual({ events: first.events, replayed: true });
  });
});

describe('a keyed write sent again by another call', () => {
  it('is replayed, not reported written, when its request is the very one DynamoDB already committed under the key', async () => {
    // Operations only, planned in one same millisecond: nothing random in the request. DynamoDB
    // answers a request it committed under a token with success, writing nothing.
    const now = new Date();
    const sameInstant = new Outbox({ config: testConfig(), tableName, client: clients.dynamodb, clock: () => now });
    const account = newId('account');
    const input: WriteInput = {
      operations: [
        {
          Update: {
            Key: { pk: `ACCOUNT#${account}`, sk: 'A' },
            UpdateExpression: 'ADD balance :d',
            ExpressionAttributeValues: { ':d': 10 },
          },
        },
      ],
      events: [],
      idempotencyKey: `k-${account}`.slice(0, 36),
    };

    expect(await sameInstant.write(input)).toEqual({ events: [], replayed: false });
    expect(await sameInstant.write(input)).toEqual({ events: [], replayed: true });
    expect((await getItem(`ACCOUNT#${account}`, 'A'))?.balance).toBe(10);
  });
});

describe('an attempt DynamoDB reports still running', () => {
  it('is asked about again under its token, so a write without a key is applied once', async () => {
    // The first transaction is applied, but the helper is told it is still in progress, as after
    // a client timeout whose SDK retries kept finding the original attempt running.
    const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
    let told = false;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'TransactWriteItemsCommand' && !told) {
          told = true;
          throw Object.assign(new Error('Transaction is in progress'), { name: 'TransactionInProgressException' });
        }
        return result;
      },
      { step: 'initialize', name: 'reportInProgress' },
    );
    const inProgress = new Outbox({ config: testConfig(), tableName, client, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    const order = newId('order');

    const { events } = await inProgress.write({
      operations: [
        {
          Update: { Key: { pk: `ACCOUNT#${order}`, sk: 'A' }, UpdateExpression: 'ADD balance :d', ExpressionAttributeValues: { ':d': 10 } },
        },
      ],
      events: [orderEvent(order)],
    });

    expect(told).toBe(true);
    expect(events.map((e) => e.sequence)).toEqual([1]);
    expect((await getItem(`ACCOUNT#${order}`, 'A'))?.balance).toBe(10);
    expect(await getItem(`OUTBOX#order#${order}`, 'OUTBOX')).toMatchObject({ seq: 1 });
    client.destroy();
  });
});

describe('an idempotency record past its expiry', () => {
  it('lets its key write anew at once, no retry spent, though DynamoDB still holds the key as a token of another request', async () => {
    // Within DynamoDB's 10 minutes, the key as ClientRequestToken is refused for a request with
    // other parameters (IdempotentParameterMismatchException), which is no conflict to back off from.
    let now = Date.now();
    const noRetries = new Outbox({
      config: testConfig(),
      tableName,
      client: clients.dynamodb,
      idempotencyTtlSeconds: 60,
      retry: { maxAttempts: 1 },
      clock: () => new Date(now),
    });
    const order = newId('order');
    const idempotencyKey = `k-${order}`.slice(0, 36);
    await noRetries.write({ events: [orderEvent(order, 'order.placed', { total: 1 })], idempotencyKey });

    now += 61_000;
    const again = await noRetries.write({ events: [orderEvent(order, 'order.placed', { total: 2 })], idempotencyKey });
    expect(again).toMatchObject({ replayed: false, events: [{ sequence: 2 }] });
  });

  it.each([
    ['a DynamoDBClient', () => clients.dynamodb],
    // Its numbers come back as NumberValue objects, the record's expiry among them.
    [
      'a DocumentClient that wraps numbers',
      // A client of its own: DocumentClient.from sets its translation on the client it wraps.
      () =>
        DynamoDBDocumentClient.from(
          new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') }),
          { unmarshallOptions: { wrapNumbers: true } },
        ),
    ],
  ])('no longer holds its key, even before TTL deletes it: the key writes anew, with the same input or another (%s)', async (_, client) => {
    // Near the real time: DynamoDB Local's TTL deletes, from time to time, items past their expiry by its own clock.
    let now = Date.now();
    const expiring = new Outbox({
      config: testConfig(),
      tableName,
      client: client(),
      idempotencyTtlSeconds: 60,
      clock: () => new Date(now),
    });
    const order = newId('order');
    const idempotencyKey = `k-${order}`.slice(0, 36);
    const first = await expiring.write({ events: [orderEvent(order, 'order.placed', { total: 1 })], idempotencyKey });

    // Within its 60 s, the key holds: another input is refused, the same one replayed.
    now += 59_000;
    await expect(expiring.write({ events: [orderEvent(order, 'order.placed', { total: 2 })], idempotencyKey })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(await expiring.write({ events: [orderEvent(order, 'order.placed', { total: 1 })], idempotencyKey })).toMatchObject({
      replayed: true,
      events: first.events,
    });

    // Past it, the record is still in the table (TTL deletes it later) but no longer counts.
    now += 2_000;
    expect(await getItem(`IDEMPOTENCY#${idempotencyKey}`, 'IDEMPOTENCY')).toBeDefined();
    const other = await expiring.write({ events: [orderEvent(order, 'order.placed', { total: 2 })], idempotencyKey });
    expect(other).toMatchObject({ replayed: false, events: [{ sequence: 2 }] });
    expect(await getItem(`IDEMPOTENCY#${idempotencyKey}`, 'IDEMPOTENCY')).toMatchObject({ expiresAt: Math.floor(now / 1000) + 60 });
  });
});
