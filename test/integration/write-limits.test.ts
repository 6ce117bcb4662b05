import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { newId, orderEvent, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';

/**
 * The write helper's limits at their exact boundaries, against DynamoDB Local: the largest write
 * the helper lets through must commit there, and the smallest it refuses must be refused before
 * anything is sent, with the value and the limit in the message.
 */

const clients = testClients();
const config = testConfig({ outboxRetentionSeconds: 3600 });
const clock = () => new Date('2030-05-06T07:08:09.010Z');
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'write-limits'));
});
afterAll(() => clients.destroy());

const getItem = async (pk: string, sk: string) =>
  (await clients.document.send(new GetCommand({ TableName: tableName, Key: { pk, sk }, ConsistentRead: true }))).Item;

const refusal = (write: Promise<unknown>) =>
  write.then(
    () => expect.unreachable('the write was let through'),
    (error: unknown) => error as WriteValidationError,
  );

/** Ten business items of 400,000 bytes and an eleventh of `fill` bytes of `blob`, beside `input`'s events. */
function fourMegabytes(prefix: string, fill: number, input: Omit<WriteInput, 'operations'>): WriteInput {
  const operations = Array.from({ length: 11 }, (_, i) => {
    const pk = `${prefix}#${i}`;
    const blob = 'b'.repeat(i < 10 ? 400_000 - Buffer.byteLength(`pk${pk}skAblob`) : fill);
    return { Put: { Item: { pk, sk: 'A', blob } } };
  });
  return { operations, ...input };
}

/**
 * The largest `fill` the helper lets through, found against a client that answers every request
 * with success and sends nothing: planning, where the size is checked, is the same for any client.
 */
async function largestFill(make: (fill: number) => WriteInput, code = 'REQUEST_TOO_LARGE', [from, to] = [100_000, 200_000]) {
  const probe = new Outbox({ config, tableName, client: capturingClient().document, clock });
  const passes = (fill: number) =>
    probe.write(make(fill)).then(
      () => true,
      (error: { code?: string }) => {
        if (error.code === code) return false;
        throw error;
      },
    );
  let [low, high] = [from, to];
  expect(await passes(low)).toBe(true);
  expect(await passes(high)).toBe(false);
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await passes(mid)) low = mid;
    else high = mid;
  }
  return low;
}

describe('the 4 MB transaction limit, at its boundary on DynamoDB Local', () => {
  const cases: [string, (outbox: Outbox, ids: string[]) => Promise<Omit<WriteInput, 'operations'>>][] = [
    ['new slots', async (_, ids) => ({ events: ids.map((id) => orderEvent(id, 'order.placed', null)) })],
    [
      'a keyed write, its idempotency record counted',
      async (_, ids) => ({ events: [orderEvent(ids[0] as string)], idempotencyKey: ids[0] }),
    ],
    [
      'slots this outbox wrote before (a put under their sequence and creation time)',
      async (outbox, ids) => {
        await outbox.write({ events: ids.map((id) => orderEvent(id)) });
        return { events: ids.map((id) => orderEvent(id, 'order.priced', null)) };
      },
    ],
    [
      'slots stored without a creation time (an update)',
      async (_, ids) => {
        for (const id of ids) {
          const Item = { pk: `OUTBOX#order#${id}`, sk: 'OUTBOX', kind: 'outbox-slot', aggregateType: 'order', aggregateId: id, seq: 7 };
          await clients.document.send(new PutCommand({ TableName: tableName, Item: { ...Item, source: config.source, events: [] } }));
        }
        return { events: ids.map((id) => orderEvent(id, 'order.priced', null)) };
      },
    ],
  ];

  it.each(cases)('commits the largest write the helper lets through, and refuses one byte more before sending: %s', async (_, setUp) => {
    const prefix = newId('limit');
    const ids = [0, 1, 2].map((i) => `${prefix}-${i}`.slice(0, 36));
    const outbox = new Outbox({ config, tableName, client: clients.dynamodb, clock });
    const rest = await setUp(outbox, ids);
    const fill = await largestFill((size) => fourMegabytes(prefix, size, rest));

    const over = await refusal(outbox.write(fourMegabytes(prefix, fill + 1, rest)));
    expect(over.code).toBe('REQUEST_TOO_LARGE');
    expect(over.message).toBe('This write is about 4194305 bytes; allowed: at most 4194304 bytes per transaction');
    expect(await getItem(`${prefix}#10`, 'A')).toBeUndefined();

    const { events } = await outbox.write(fourMegabytes(prefix, fill, rest));
    expect((await getItem(`${prefix}#10`, 'A'))?.blob).toHaveLength(fill);
    const slot = await getItem(`OUTBOX#order#${ids[0]}`, 'OUTBOX');
    expect(slot?.seq).toBe(events.find((event) => event.aggregate.id === ids[0])?.sequence);
  });
});

describe('the 100 actions of a transaction, at their boundary on DynamoDB Local', () => {
  const operations = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({ Put: { Item: { pk: `${prefix}#${i}`, sk: 'A' } } }));

  it.each([
    ['99 operations and one slot', 99, undefined],
    ['98 operations, one slot and the idempotency record', 98, 'key'],
  ] as const)('commits %s, and refuses one operation more before sending', async (_, count, keyed) => {
    const prefix = newId('actions');
    const outbox = new Outbox({ config, tableName, client: clients.dynamodb, clock });
    const input = (n: number): WriteInput => ({
      operations: operations(prefix, n),
      events: [orderEvent(prefix)],
      ...(keyed === undefined ? {} : { idempotencyKey: `${keyed}-${prefix}`.slice(0, 36) }),
    });

    const over = await refusal(outbox.write(input(count + 1)));
    expect(over.code).toBe('TOO_MANY_ACTIONS');
    expect(over.message).toContain(
      `This write needs 101 actions (${count + 1} operations, 1 aggregate slot${keyed === undefined ? '' : ', 1 idempotency record'});`,
    );
    expect(over.message).toContain('allowed: at most 100 per transaction');
    expect(await getItem(`${prefix}#0`, 'A')).toBeUndefined();

    await outbox.write(input(count));
    expect(await getItem(`${prefix}#${count - 1}`, 'A')).toMatchObject({ sk: 'A' });
    expect(await getItem(`OUTBOX#order#${prefix}`, 'OUTBOX')).toMatchObject({ seq: 1 });
  });
});

describe('the 400 KB item limit on a slot, at its boundary on DynamoDB Local', () => {
  it.each([
    ['a new slot', false],
    ['a slot stored without a creation time (an update)', true],
  ])(
    'commits the largest events of one aggregate the helper lets through, and refuses one byte more before sending: %s',
    async (_, stored) => {
      const id = newId('slot-limit');
      const outbox = new Outbox({ config, tableName, client: clients.dynamodb, clock });
      const input = (fill: number): WriteInput => ({
        events: [orderEvent(id, 'order.placed', 'd'.repeat(200_000)), orderEvent(id, 'order.priced', 'd'.repeat(fill))],
      });
      if (stored) {
        const Item = { pk: `OUTBOX#order#${id}`, sk: 'OUTBOX', kind: 'outbox-slot', aggregateType: 'order', aggregateId: id, seq: 7 };
        await clients.document.send(new PutCommand({ TableName: tableName, Item: { ...Item, source: config.source, events: [] } }));
      }
      const fill = await largestFill(input, 'SLOT_TOO_LARGE', [150_000, 250_000]);

      const over = await refusal(outbox.write(input(fill + 1)));
      expect(over.code).toBe('SLOT_TOO_LARGE');
      expect(over.message).toContain('make a slot item of 409601 bytes; allowed: at most 409600 bytes');

      const { events } = await outbox.write(input(fill));
      expect((await getItem(`OUTBOX#order#${id}`, 'OUTBOX'))?.seq).toBe(events[1]?.sequence);
    },
  );
});

describe('numbers in an item, counted as DynamoDB Local counts them', () => {
  it.each([-1, 1.5, 123.456, 11000, 1.5e-7, -98765.4321, 7])(
    "commits the largest item of 1,000 copies of %s the helper lets through, which is DynamoDB's largest too",
    async (number) => {
      const prefix = newId('numbers');
      const item = (fill: number) => ({ pk: prefix, sk: 'A', numbers: Array.from({ length: 1000 }, () => number), blob: 'b'.repeat(fill) });
      const input = (fill: number): WriteInput => ({ operations: [{ Put: { Item: item(fill) } }], events: [orderEvent(prefix)] });
      const fill = await largestFill(input, 'ITEM_TOO_LARGE', [300_000, 409_600]);

      const over = await refusal(new Outbox({ config, tableName, client: clients.dynamodb, clock }).write(input(fill + 1)));
      expect(over.code).toBe('ITEM_TOO_LARGE');
      await expect(clients.document.send(new PutCommand({ TableName: tableName, Item: item(fill + 1) }))).rejects.toThrow(
        /Item size has exceeded the maximum allowed size/,
      );

      await new Outbox({ config, tableName, client: clients.dynamodb, clock }).write(input(fill));
      expect((await getItem(prefix, 'A'))?.blob).toHaveLength(fill);
    },
  );
});
