import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { inboxKey } from '../../shared/consumer/inbox.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { newId } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;
beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-client'));
});
afterAll(() => clients.destroy());

describe("the inbox's client", () => {
  it('may be a plain DynamoDBClient, wrapped as the Outbox wraps one: an event is handled once, its second delivery a duplicate', async () => {
    const name = newId('view');
    const projection = newId('proj');
    const { logger, metrics } = recordingTelemetry();
    const consumer = createConsumer({
      name,
      sources: [TEST_SOURCE],
      handlers: {
        'order.placed': {
          handle: (_event, ctx) => ctx.write({ Put: { TableName: tableName, Item: { pk: projection, sk: 'VIEW', n: 1 } } }),
        },
      },
      inbox: { document: clients.dynamodb, tableName },
      sequenceTracking: true,
      logger,
      metrics,
    });
    const event = anEnvelope();

    const first = await consumer.process([{ messageId: 'm-1', body: event.body }]);
    const again = await consumer.process([{ messageId: 'm-1', body: event.body }]);

    expect([...first.outcomes, ...again.outcomes].map((outcome) => outcome.status)).toEqual(['processed', 'duplicate']);
    const read = (Key: Record<string, string>) =>
      clients.document.send(new GetCommand({ TableName: tableName, Key, ConsistentRead: true }));
    expect((await read({ pk: projection, sk: 'VIEW' })).Item).toMatchObject({ n: 1 });
    expect((await read(inboxKey(name, { source: TEST_SOURCE, id: event.id }))).Item).toMatchObject({ status: 'COMPLETED' });
  });
});
