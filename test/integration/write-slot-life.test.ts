import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outbox } from '../../shared/write/index.js';
import { newId, orderEvent, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';

const clients = testClients();
const config = testConfig({ outboxRetentionSeconds: 3600 });
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'slot-life'));
});
afterAll(() => clients.destroy());

const slotOf = async (id: string) =>
  (
    await clients.document.send(
      new GetCommand({ TableName: tableName, Key: { pk: `OUTBOX#order#${id}`, sk: 'OUTBOX' }, ConsistentRead: true }),
    )
  ).Item;
const clock = (iso: string) => () => new Date(iso);

describe('the slot across its lives, against DynamoDB Local', () => {
  it('writes on the slot another writer made anew after a removal, keeping the new creation time, not the remembered one', async () => {
    const order = newId('order');
    const first = new Outbox({ config, tableName, client: clients.dynamodb, clock: clock('2030-01-01T00:00:00.000Z') });
    const other = new Outbox({ config, tableName, client: clients.dynamodb, clock: clock('2030-02-01T00:00:00.000Z') });
    await first.write({ events: [orderEvent(order)] });
    // TTL removes the quiet slot; another process starts it again at the sequence the first one remembers.
    await clients.document.send(new DeleteCommand({ TableName: tableName, Key: { pk: `OUTBOX#order#${order}`, sk: 'OUTBOX' } }));
    await other.write({ events: [orderEvent(order)] });

    const result = await first.write({ events: [orderEvent(order, 'order.priced')] });
    expect(result.events[0]?.sequence).toBe(2);
    expect(await slotOf(order)).toMatchObject({ seq: 2, createdAt: '2030-02-01T00:00:00.000Z' });
  });

  it('writes on a slot stored without a creation time, which gets one and keeps it', async () => {
    const order = newId('order');
    await clients.document.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: `OUTBOX#order#${order}`,
          sk: 'OUTBOX',
          kind: 'outbox-slot',
          aggregateType: 'order',
          aggregateId: order,
          source: config.source,
          seq: 4,
          events: [],
          expiresAt: 1_900_000_000,
        },
      }),
    );
    const outbox = new Outbox({ config, tableName, client: clients.dynamodb, clock: clock('2030-03-01T00:00:00.000Z') });
    const later = new Outbox({ config, tableName, client: clients.dynamodb, clock: clock('2030-04-01T00:00:00.000Z') });
    expect((await outbox.write({ events: [orderEvent(order)] })).events[0]?.sequence).toBe(5);
    expect((await outbox.write({ events: [orderEvent(order)] })).events[0]?.sequence).toBe(6);
    expect((await later.write({ events: [orderEvent(order)] })).events[0]?.sequence).toBe(7);
    expect(await slotOf(order)).toMatchObject({ seq: 7, createdAt: '2030-03-01T00:00:00.000Z' });
  });
});
