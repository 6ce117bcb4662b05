import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_VIEW_LEADING_KEYS, orderViewKey } from '../../examples/orders/consumer/keys.js';
import { orderProjection } from '../../examples/orders/consumer/projection.js';
import { config } from '../../examples/orders/outbox.config.js';
import type { LocalClients } from '../../shared/local/clients.js';
import { anSqsEvent, anSqsRecord, anEnvelope as anyEnvelope, type EnvelopeSpec, snsNotification } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

let clients: LocalClients;
let tableName: string;

beforeAll(async () => {
  clients = testClients();
  ({ tableName } = await freshTable(clients, 'example-consumer'));
});

afterAll(() => clients.destroy());

/** An envelope of the example app: the source of its config, which the example consumer accepts. */
const anEnvelope = (spec: EnvelopeSpec = {}) => anyEnvelope({ source: config.source, ...spec });

describe('example consumer', () => {
  it('projects orders and payments once each, and rejects a payment without an order id', async () => {
    const { logger, metrics, logs } = recordingTelemetry();
    const { handler } = orderProjection({ inbox: { document: clients.document, tableName }, logger, metrics });
    const placed = anEnvelope({ type: 'order.placed', aggregateId: 'ex-1', data: { total: 30, currency: 'EUR' } });
    const paid = anEnvelope({
      type: 'payment.captured',
      aggregateType: 'payment',
      aggregateId: 'pay-1',
      data: { orderId: 'ex-1', amount: 30 },
    });
    const broken = anEnvelope({ type: 'payment.captured', aggregateType: 'payment', aggregateId: 'pay-2', data: { amount: 5 } });

    const first = await handler(
      anSqsEvent([
        anSqsRecord(placed.body, undefined, 'm1'),
        anSqsRecord(paid.body, undefined, 'm2'),
        anSqsRecord(broken.body, undefined, 'm3'),
      ]),
    );
    const again = await handler(anSqsEvent([anSqsRecord(paid.body, undefined, 'm4')]));

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm3' }]);
    expect(again.batchItemFailures).toEqual([]);
    const { Item } = await clients.document.send(new GetCommand({ TableName: tableName, Key: orderViewKey('ex-1'), ConsistentRead: true }));
    expect(Item).toMatchObject({ status: 'PAID', total: 30, currency: 'EUR', paid: 30 });
    expect(logs.find((l) => l.attributes.code === 'SCHEMA_VALIDATION_FAILED')?.attributes.reason).toContain(
      'orderId: Invalid input: expected string',
    );
  });

  it('builds the same view whichever topic delivers first', async () => {
    const { handler } = orderProjection({ inbox: { document: clients.document, tableName } });
    const views = [];
    for (const [orderId, paymentFirst] of [
      ['ex-order-first', false],
      ['ex-payment-first', true],
    ] as const) {
      const placed = anEnvelope({ type: 'order.placed', aggregateId: orderId, data: { total: 12, currency: 'EUR' } });
      const paid = anEnvelope({
        type: 'payment.captured',
        aggregateType: 'payment',
        aggregateId: `pay-${orderId}`,
        data: { orderId, amount: 12 },
      });
      const [first, second] = paymentFirst ? [paid, placed] : [placed, paid];
      expect((await handler(anSqsEvent([anSqsRecord(first.body, undefined, `${orderId}-1`)]))).batchItemFailures).toEqual([]);
      expect((await handler(anSqsEvent([anSqsRecord(second.body, undefined, `${orderId}-2`)]))).batchItemFailures).toEqual([]);
      const { Item } = await clients.document.send(
        new GetCommand({ TableName: tableName, Key: orderViewKey(orderId), ConsistentRead: true }),
      );
      views.push(Item);
    }
    for (const view of views) expect(view).toMatchObject({ status: 'PAID', total: 12, currency: 'EUR', paid: 12 });
  });

  it('keeps a cancellation that arrives before the placement', async () => {
    const { handler } = orderProjection({ inbox: { document: clients.document, tableName } });
    const cancelled = anEnvelope({ type: 'order.cancelled', aggregateId: 'ex-cancel', data: { reason: 'r' } });
    const placed = anEnvelope({ type: 'order.placed', aggregateId: 'ex-cancel', data: { total: 5, currency: 'EUR' } });
    await handler(anSqsEvent([anSqsRecord(cancelled.body, undefined, 'c1')]));
    await handler(anSqsEvent([anSqsRecord(placed.body, undefined, 'c2')]));
    const { Item } = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: orderViewKey('ex-cancel'), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ status: 'CANCELLED', total: 5, paid: 0 });
  });

  it('rejects an event of another source, and an SNS notification: its subscriptions deliver raw', async () => {
    const { logger, metrics, logs } = recordingTelemetry();
    const { handler } = orderProjection({ inbox: { document: clients.document, tableName }, logger, metrics });
    const forged = anEnvelope({ source: 'urn:attacker', type: 'order.cancelled', aggregateId: 'ex-forged' });
    const placed = anEnvelope({ type: 'order.placed', aggregateId: 'ex-forged', data: { total: 7, currency: 'EUR' } });
    const result = await handler(
      anSqsEvent([
        anSqsRecord(forged.body, undefined, 'f1'),
        anSqsRecord(snsNotification(placed.body), undefined, 'f2'),
        anSqsRecord(placed.body, undefined, 'f3'),
      ]),
    );
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'f1' }, { itemIdentifier: 'f2' }]);
    expect(logs.map((l) => l.attributes.code).filter(Boolean)).toEqual(['UNTRUSTED_SOURCE', 'UNTRUSTED_TOPIC']);
    const { Item } = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: orderViewKey('ex-forged'), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ status: 'PLACED', total: 7 });
  });

  // Runs last: the items of every test above are in the table.
  it('writes only under the partition keys its deployed role is limited to (dynamodb:LeadingKeys)', async () => {
    const { Items = [] } = await clients.document.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
    const patterns = ORDER_VIEW_LEADING_KEYS.map((p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace('*', '.*')}$`));
    const kinds = new Set(Items.map((item) => String(item.pk).split('#')[0]));
    expect([...kinds].sort()).toEqual(['INBOX', 'SEQ', 'VIEW']);
    for (const item of Items)
      expect(
        patterns.some((p) => p.test(String(item.pk))),
        String(item.pk),
      ).toBe(true);
  });
});
