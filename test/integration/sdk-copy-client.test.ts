import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { Outbox } from '../../shared/write/index.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { newId, orderEvent, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';

const clients = testClients();
let tableName: string;
beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'sdk-copy'));
});
afterAll(() => clients.destroy());

/**
 * A client as an app's older copy of the AWS SDK (3.899, say) makes it, without installing one:
 * that copy's commands bring their own serializer and deserializer, so its client's middleware
 * stack has neither, and its class is not this copy's `DynamoDBClient` (here: the SDK's base
 * client class, whose `send` it keeps). This copy's commands cannot be sent through it: the SDK
 * refuses to assemble them ("serializerMiddleware is not found when adding …"), as with a real
 * client of that copy. A DocumentClient of that copy shares the client's configuration and stack,
 * so it stands for both.
 */
function olderCopyClient() {
  const warn = vi.fn();
  const logger = { trace() {}, debug() {}, info() {}, warn, error() {} };
  const client = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, logger });
  client.middlewareStack.remove('serializerMiddleware');
  client.middlewareStack.remove('deserializerMiddleware');
  Object.setPrototypeOf(client, Object.getPrototypeOf(DynamoDBClient.prototype));
  return { client, warn };
}

const itemOf = async (pk: string) =>
  (await clients.document.send(new GetCommand({ TableName: tableName, Key: { pk, sk: 'ORDER' }, ConsistentRead: true }))).Item;

describe('a client of an older copy of the AWS SDK', () => {
  it('writes through the Outbox, keyed writes replayed, on the configuration it was made with', async () => {
    const { client, warn } = olderCopyClient();
    expect(client).not.toBeInstanceOf(DynamoDBClient);
    const outbox = new Outbox({ config: testConfig(), tableName, client: client as never });
    const order = newId('order');

    const written = await outbox.write({
      operations: [{ Put: { Item: { pk: `ORDER#${order}`, sk: 'ORDER', total: 42 } } }],
      events: [orderEvent(order)],
    });
    const input = { events: [orderEvent(order, 'order.shipped')], idempotencyKey: `k-${order}`.slice(0, 36) };
    const first = await outbox.write(input);
    const again = await outbox.write(input);

    expect(written.events.map((event) => event.sequence)).toEqual([1]);
    expect(await itemOf(`ORDER#${order}`)).toMatchObject({ total: 42 });
    expect([first.replayed, again.replayed, again.events]).toEqual([false, true, first.events]);
    // The SDK's DocumentClient took it on its configuration, and said so.
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('incompatible version of DynamoDBClient given to DynamoDBDocumentClient'));
  });

  it("is the consumer's inbox client: an event is handled once, its second delivery a duplicate", async () => {
    const projection = newId('proj');
    const consumer = createConsumer({
      name: newId('view'),
      sources: [TEST_SOURCE],
      handlers: {
        'order.placed': {
          handle: (_event, ctx) => ctx.write({ Put: { TableName: tableName, Item: { pk: projection, sk: 'ORDER', n: 1 } } }),
        },
      },
      inbox: { document: olderCopyClient().client as never, tableName },
    });
    const { body } = anEnvelope();

    const first = await consumer.process([{ messageId: 'm-1', body }]);
    const again = await consumer.process([{ messageId: 'm-1', body }]);

    expect([...first.outcomes, ...again.outcomes].map((outcome) => outcome.status)).toEqual(['processed', 'duplicate']);
    expect(await itemOf(projection)).toMatchObject({ n: 1 });
  });
});
