import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderProjection, orderViewKey } from '../../functions/example-consumer/projection.js';
import type { LocalClients } from '../../shared/local/clients.js';
import { anEnvelope, anSqsEvent, anSqsRecord, snsNotification } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

let clients: LocalClients;
let tableName: string;

beforeAll(async () => {
  clients = testClients();
  ({ tableName } = await freshTable(clients, 'example-consumer'));
});

afterAll(() => clients.destroy());

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
        anSqsRecord(snsNotification(paid.body), undefined, 'm2'),
        anSqsRecord(broken.body, undefined, 'm3'),
      ]),
    );
    const again = await handler(anSqsEvent([anSqsRecord(paid.body, undefined, 'm4')]));

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm3' }]);
    expect(again.batchItemFailures).toEqual([]);
    const { Item } = await clients.document.send(new GetCommand({ TableName: tableName, Key: orderViewKey('ex-1'), ConsistentRead: true }));
    expect(Item).toMatchObject({ status: 'PLACED', total: 30, currency: 'EUR', paid: 30 });
    expect(logs.find((l) => l.attributes.code === 'SCHEMA_VALIDATION_FAILED')?.attributes.reason).toContain('orderId: expected a string');
  });
});
