import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EventSchemaError } from '../../shared/catalog/errors.js';
import { defineConfig } from '../../shared/config.js';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import type { ConsumerMessage } from '../../shared/consumer/types.js';
import { slotMessages } from '../../shared/envelope.js';
import { isOutboxSlot } from '../../shared/slot.js';
import { Outbox } from '../../shared/write/index.js';
import { freshTable, testClients } from '../helpers/local.js';

/**
 * The event catalog end to end on DynamoDB Local: the write helper refuses data its schema
 * refuses and writes nothing (the table is scanned), stores the version it checked (the newest,
 * or the one an event names), and a consumer given the same config checks the published envelope
 * against that version's schema.
 */

const clients = testClients();
let tableName: string;

const placedV1 = z.object({ total: z.number() });
const placedV2 = z.object({ total: z.object({ amount: z.number(), currency: z.string() }) });
const config = defineConfig({
  source: 'urn:test:catalog-shop',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
  eventTypes: {
    'order.placed': [
      { version: 1, schema: placedV1, aggregateType: 'order' },
      { version: 2, schema: placedV2, aggregateType: 'order' },
    ],
  },
});

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'catalog'));
});
afterAll(() => clients.destroy());

const scan = async () => (await clients.document.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }))).Items ?? [];
const placed = (id: string, data: unknown) => ({ aggregate: { type: 'order', id }, type: 'order.placed', data });

/** The envelopes the relay would publish from the slots in the table. */
async function publishedBodies(): Promise<string[]> {
  return (await scan()).filter(isOutboxSlot).flatMap((slot) => slotMessages(slot).map((m) => m.body));
}

function projection() {
  const seen: unknown[] = [];
  const consumer = createConsumer({
    name: 'catalog-view',
    sources: [config.source],
    catalog: config,
    inbox: { document: clients.document, tableName },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    metrics: { addMetric: () => {} },
    handlers: { 'order.placed': { handle: (event) => void seen.push(event.data) } },
  });
  return { consumer, seen };
}

const message = (body: string, messageId: string): ConsumerMessage => ({ messageId, body });

describe('event catalog on DynamoDB Local', () => {
  it('refuses an event whose data fails its schema and writes nothing, not even the business operation', async () => {
    const outbox = new Outbox({ config, tableName, client: clients.document });
    const error = await outbox
      .write({
        operations: [{ Put: { Item: { pk: 'ORDER#o-bad', sk: 'ORDER' } } }],
        events: [placed('o-bad', { total: 42 })],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventSchemaError);
    expect(error).toMatchObject({ code: 'EVENT_DATA_INVALID', eventType: 'order.placed', version: 2 });
    expect(await scan()).toEqual([]);
  });

  it('writes a valid event with the dataschema of the version it checked, and the consumer accepts it by that version', async () => {
    const outbox = new Outbox({ config, tableName, client: clients.document });
    await outbox.write({ events: [placed('o-1', { total: { amount: 42, currency: 'EUR' } })] });
    const [body] = await publishedBodies();
    expect(JSON.parse(body as string)).toMatchObject({
      dataschema: 'urn:test:catalog-shop#order.placed:2',
      data: { total: { amount: 42 } },
    });
    const { consumer, seen } = projection();
    const result = await consumer.process([message(body as string, 'm-1')]);
    expect(result.outcomes).toEqual([expect.objectContaining({ status: 'processed' })]);
    expect(seen).toEqual([{ total: { amount: 42, currency: 'EUR' } }]);
  });

  it('writes v1 and v2 events of one type in one write as each names, and the consumer checks each by its own version', async () => {
    const outbox = new Outbox({ config, tableName, client: clients.document });
    await outbox.write({
      events: [
        { ...placed('o-2', { total: 7 }), version: 1 },
        { ...placed('o-2', { total: { amount: 8, currency: 'EUR' } }), version: 2 },
      ],
    });
    const bodies = (await publishedBodies()).filter((body) => JSON.parse(body).subject === 'o-2');
    expect(bodies.map((body) => JSON.parse(body).dataschema)).toEqual([
      'urn:test:catalog-shop#order.placed:1',
      'urn:test:catalog-shop#order.placed:2',
    ]);
    const [v1, v2] = bodies as [string, string];
    // The same v1 envelope with data only version 2 accepts: the consumer goes by the version named.
    const v1WithV2Data = JSON.stringify({ ...JSON.parse(v1), id: crypto.randomUUID(), data: { total: { amount: 9, currency: 'EUR' } } });
    const { consumer, seen } = projection();
    const result = await consumer.process([message(v1, 'm-2'), message(v2, 'm-3'), message(v1WithV2Data, 'm-7')]);
    expect(result.outcomes.map((outcome) => outcome.status)).toEqual(['processed', 'processed', 'rejected']);
    expect(result.outcomes[2]).toMatchObject({ error: { code: 'SCHEMA_VALIDATION_FAILED' } });
    expect(seen).toEqual([{ total: 7 }, { total: { amount: 8, currency: 'EUR' } }]);
  });

  it('checks an envelope without dataschema (written before the catalog) against the oldest version', async () => {
    const [written] = await publishedBodies();
    const { dataschema: _, ...rest } = JSON.parse(written as string);
    const old = (data: unknown) => JSON.stringify({ ...rest, id: crypto.randomUUID(), data });
    const { consumer } = projection();
    const result = await consumer.process([
      message(old({ total: 1 }), 'm-4'),
      message(old({ total: { amount: 1, currency: 'EUR' } }), 'm-5'),
    ]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['processed', 'rejected']);
  });

  it('rejects an envelope naming a version the catalog does not declare, listing the declared ones', async () => {
    const [written] = await publishedBodies();
    const body = JSON.stringify({
      ...JSON.parse(written as string),
      id: crypto.randomUUID(),
      dataschema: 'urn:test:catalog-shop#order.placed:3',
    });
    const { consumer } = projection();
    const [outcome] = (await consumer.process([message(body, 'm-6')])).outcomes;
    expect(outcome).toMatchObject({ status: 'rejected', error: { code: 'SCHEMA_VALIDATION_FAILED' } });
    expect((outcome as { error: Error }).error.message).toMatch(
      /a version the consumer's catalog does not declare; allowed: version 1 .*, version 2/,
    );
  });

  it('fails a consumer given a catalog without schemas (a config read back from JSON) or of a source it does not accept', () => {
    const options = { name: 'c', handlers: { 'order.placed': { handle: () => {} } }, inbox: { document: clients.document, tableName } };
    const fromJson = defineConfig(JSON.parse(JSON.stringify(config)));
    expect(() => createConsumer({ ...options, sources: [config.source], catalog: fromJson })).toThrow(ConsumerOptionsError);
    expect(() => createConsumer({ ...options, sources: [config.source], catalog: fromJson })).toThrow(/declares no schema/);
    expect(() => createConsumer({ ...options, sources: ['urn:other'], catalog: config })).toThrow(/not in sources/);
  });
});
