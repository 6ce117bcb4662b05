import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionFailedError, WriteValidationError } from '../../shared/errors.js';
import { Outbox } from '../../shared/write/index.js';
import { newId, orderEvent, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';
import { readStream } from '../helpers/stream.js';

const clients = testClients();
const config = testConfig({ outboxRetentionSeconds: 3600 });
let tableName: string;
let streamArn: string;
let outbox: Outbox;

beforeAll(async () => {
  ({ tableName, streamArn } = await freshTable(clients, 'write'));
  outbox = new Outbox({ config, tableName, client: clients.dynamodb });
});
afterAll(() => clients.destroy());

/** Stream records of one slot (by key), as unmarshalled new images. */
async function slotRecords(aggregateType: string, id: string) {
  const records = await readStream(clients.streams, streamArn);
  return records
    .filter((r) => r.dynamodb?.Keys?.pk?.S === `OUTBOX#${aggregateType}#${id}`)
    .map((r) => ({ eventName: r.eventName, image: unmarshall(r.dynamodb?.NewImage as Record<string, AttributeValue>) }));
}

async function streamRecordsFor(pkPrefix: string) {
  const records = await readStream(clients.streams, streamArn);
  return records.filter((r) => (r.dynamodb?.Keys?.pk?.S ?? '').includes(pkPrefix));
}

const getItem = async (pk: string, sk: string) =>
  (await clients.document.send(new GetCommand({ TableName: tableName, Key: { pk, sk }, ConsistentRead: true }))).Item;

describe('write helper against DynamoDB Local', () => {
  it('commits the business item and the outbox slot together, one stream record per aggregate', async () => {
    const order = newId('order');
    const payment = newId('payment');
    const result = await outbox.write({
      operations: [{ Put: { Item: { pk: `ORDER#${order}`, sk: 'ORDER', status: 'placed' } } }],
      events: [
        orderEvent(order, 'order.placed', { total: 10 }),
        { aggregate: { type: 'payment', id: payment }, type: 'payment.requested', data: { amount: 10 } },
        orderEvent(order, 'order.priced', { total: 12 }),
      ],
    });
    expect(result.events.map((e) => [e.type, e.sequence])).toEqual([
      ['order.placed', 1],
      ['payment.requested', 1],
      ['order.priced', 2],
    ]);
    expect(await getItem(`ORDER#${order}`, 'ORDER')).toMatchObject({ status: 'placed' });

    const orderRecords = await slotRecords('order', order);
    expect(orderRecords).toHaveLength(1);
    const image = orderRecords[0]?.image;
    expect(image?.seq).toBe(2);
    expect(image?.events.map((e: { id: string; type: string; data: string }) => [e.id, e.type, JSON.parse(e.data)])).toEqual([
      [result.events[0]?.id, 'order.placed', { total: 10 }],
      [result.events[2]?.id, 'order.priced', { total: 12 }],
    ]);
    expect(await slotRecords('payment', payment)).toHaveLength(1);
  });

  it('follows the slot counter across calls: each record holds only its own call’s events', async () => {
    const order = newId('order');
    const first = await outbox.write({ events: [orderEvent(order, 'a'), orderEvent(order, 'b')] });
    // A fresh helper has no memory of the slot: its first guess is wrong and it must recover,
    // without counting that as a race with another writer (none is allowed here).
    const other = new Outbox({ config, tableName, client: clients.dynamodb, retry: { maxSequenceRaces: 0 } });
    const second = await other.write({ events: [orderEvent(order, 'c')] });
    const third = await outbox.write({ events: [orderEvent(order, 'd'), orderEvent(order, 'e')] });
    expect([...first.events, ...second.events, ...third.events].map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);

    const records = await slotRecords('order', order);
    expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'MODIFY']);
    expect(records.map((r) => [r.image.seq, r.image.events.map((e: { type: string }) => e.type)])).toEqual([
      [2, ['a', 'b']],
      [3, ['c']],
      [5, ['d', 'e']],
    ]);
    const createdAt = new Set(records.map((r) => r.image.createdAt));
    expect(createdAt.size).toBe(1);
  });

  it('fails atomically: a failed condition writes neither the business item nor the slot, and no stream record', async () => {
    const order = newId('order');
    await clients.document.send(
      new (await import('@aws-sdk/lib-dynamodb')).PutCommand({
        TableName: tableName,
        Item: { pk: `ORDER#${order}`, sk: 'ORDER', status: 'paid' },
      }),
    );
    const before = (await streamRecordsFor(order)).length;
    const error = await outbox
      .write({
        operations: [
          { Put: { Item: { pk: `LINE#${order}`, sk: 'LINE#1', qty: 1 } } },
          {
            Update: {
              Key: { pk: `ORDER#${order}`, sk: 'ORDER' },
              UpdateExpression: 'SET #s = :cancelled',
              ConditionExpression: '#s = :placed',
              ExpressionAttributeNames: { '#s': 'status' },
              ExpressionAttributeValues: { ':cancelled': 'cancelled', ':placed': 'placed' },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
        events: [orderEvent(order, 'order.cancelled')],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionFailedError);
    const failure = (error as TransactionFailedError).failures;
    expect(failure).toEqual([
      expect.objectContaining({
        index: 1,
        kind: 'Update',
        reason: 'ConditionalCheckFailed',
        item: expect.objectContaining({ status: 'paid' }),
      }),
    ]);
    expect((error as Error).message).toContain('operations[1] (Update): ConditionalCheckFailed');
    expect(await getItem(`LINE#${order}`, 'LINE#1')).toBeUndefined();
    expect(await getItem(`OUTBOX#order#${order}`, 'OUTBOX')).toBeUndefined();
    expect(await getItem(`ORDER#${order}`, 'ORDER')).toMatchObject({ status: 'paid' });
    expect((await streamRecordsFor(order)).length).toBe(before);
  });

  it('gives 50 concurrent writes on one aggregate the sequences 1..50, each event once in the stream', async () => {
    const order = newId('order');
    // Five independent instances stand for five processes racing on one aggregate.
    const writers = Array.from({ length: 5 }, () => new Outbox({ config, tableName, client: clients.dynamodb }));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (writers[i % writers.length] as Outbox).write({ events: [orderEvent(order, 'order.touched', { i })] }),
      ),
    );
    const sequences = results.map((r) => r.events[0]?.sequence).sort((a, b) => (a as number) - (b as number));
    expect(sequences).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));

    const records = await slotRecords('order', order);
    const streamed = records.flatMap((r) =>
      r.image.events.map((e: { id: string }, i: number) => [e.id, r.image.seq - r.image.events.length + 1 + i]),
    );
    expect(streamed).toHaveLength(50);
    expect(new Set(streamed.map(([id]: [string]) => id)).size).toBe(50);
    const byId = new Map(results.map((r) => [r.events[0]?.id, r.events[0]?.sequence]));
    for (const [id, sequence] of streamed) expect(byId.get(id)).toBe(sequence);
    expect(records.map((r) => r.image.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('writes once for the same idempotency key, and returns the first result again', async () => {
    const order = newId('order');
    const key = `key-${order}`.slice(0, 36);
    const input = {
      operations: [{ Put: { Item: { pk: `ORDER#${order}`, sk: 'ORDER', status: 'placed' } } }],
      events: [orderEvent(order)],
      idempotencyKey: key,
    };
    const first = await outbox.write(input);
    const again = await outbox.write(input);
    const fresh = await new Outbox({ config, tableName, client: clients.dynamodb }).write(input);
    expect(first.replayed).toBe(false);
    expect(again).toEqual({ events: first.events, replayed: true });
    expect(fresh).toEqual({ events: first.events, replayed: true });
    const records = await slotRecords('order', order);
    expect(records).toHaveLength(1);
    expect(records[0]?.image.seq).toBe(1);
  });

  it('rejects an idempotency key reused for a different write', async () => {
    const order = newId('order');
    const key = `reuse-${order}`.slice(0, 36);
    await outbox.write({ events: [orderEvent(order, 'order.placed')], idempotencyKey: key });
    await expect(outbox.write({ events: [orderEvent(order, 'order.cancelled')], idempotencyKey: key })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect((await slotRecords('order', order)).length).toBe(1);
  });

  it('sets the TTL attribute from the configured retention', async () => {
    const now = new Date('2030-01-02T03:04:05.000Z');
    const timed = new Outbox({ config, tableName, client: clients.dynamodb, clock: () => now });
    const order = newId('order');
    await timed.write({ events: [orderEvent(order)] });
    const slot = await getItem(`OUTBOX#order#${order}`, 'OUTBOX');
    expect(slot?.expiresAt).toBe(Math.floor(now.getTime() / 1000) + 3600);
    expect(slot?.createdAt).toBe(now.toISOString());
  });

  it('rejects a keyed write whose idempotency record would pass 400 KB, and commits the same events unkeyed or fewer keyed', async () => {
    const id = `${newId('order')}-`.padEnd(1000, 'i');
    const events = Array.from({ length: 400 }, () => orderEvent(id, 'order.placed', null));
    const key = `big-${newId()}`.slice(0, 36);
    const error = await outbox.write({ events, idempotencyKey: key }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'IDEMPOTENCY_RECORD_TOO_LARGE' });
    expect((error as Error).message).toMatch(/idempotency record .* is about \d+ bytes; allowed: at most 409600 bytes/);
    expect(await getItem(`OUTBOX#order#${id}`, 'OUTBOX')).toBeUndefined();
    expect(await getItem(`IDEMPOTENCY#${key}`, 'IDEMPOTENCY')).toBeUndefined();

    // The bound is not far off: 340 such events still fit, and their record replays.
    const fewer = { events: events.slice(0, 340), idempotencyKey: key };
    const first = await outbox.write(fewer);
    expect(first.events.map((e) => e.sequence)).toEqual(Array.from({ length: 340 }, (_, i) => i + 1));
    expect(await outbox.write(fewer)).toEqual({ events: first.events, replayed: true });
    const unkeyed = await outbox.write({ events });
    expect(unkeyed.events.at(-1)?.sequence).toBe(740);
  });

  it('counts the idempotency record in the 4 MB transaction limit', async () => {
    const prefix = newId('big');
    const operations = Array.from({ length: 10 }, (_, i) => ({
      Put: { Item: { pk: `${prefix}#${i}`, sk: 'A', blob: 'b'.repeat(385_000) } },
    }));
    const id = `${newId('order')}-`.padEnd(1000, 'i');
    const events = Array.from({ length: 340 }, () => orderEvent(id, 'order.placed', null));
    const error = await outbox.write({ operations, events, idempotencyKey: `req-${prefix}`.slice(0, 36) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'REQUEST_TOO_LARGE' });
    expect(await getItem(`${prefix}#0`, 'A')).toBeUndefined();
    // Without the record, the same write fits.
    await outbox.write({ operations, events });
    expect(await getItem(`${prefix}#0`, 'A')).toMatchObject({ sk: 'A' });
  });

  it('rejects two operations on the same item before sending anything', async () => {
    const order = newId('order');
    const error = await outbox
      .write({
        operations: [{ Put: { Item: { pk: `ORDER#${order}`, sk: 'ORDER' } } }, { Delete: { Key: { pk: `ORDER#${order}`, sk: 'ORDER' } } }],
        events: [orderEvent(order)],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'DUPLICATE_ITEM' });
    expect(await getItem(`OUTBOX#order#${order}`, 'OUTBOX')).toBeUndefined();
  });
});
