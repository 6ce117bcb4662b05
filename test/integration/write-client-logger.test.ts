import { DynamoDBClient, TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { NormalizedSchema } from '@smithy/core/schema';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { TransactionFailedError } from '../../shared/errors.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { Outbox } from '../../shared/write/index.js';
import { newId, orderEvent, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';

const clients = testClients();
let tableName: string;
beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'logger'));
});
afterAll(() => clients.destroy());

/** A client whose logger keeps what the SDK's logger middleware hands it. */
function loggingClient() {
  const info = vi.fn();
  const error = vi.fn();
  const logger = { trace() {}, debug() {}, info, warn() {}, error };
  const client = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, logger });
  return { client, info, error };
}

type Logged = { commandName: string; input: TransactWriteItemsCommandInput; output?: unknown };

describe("the write helper and the client's logger", () => {
  it('logs each request and answer whole: the request as a DocumentClient command logs it, native values', async () => {
    const { client, info } = loggingClient();
    const outbox = new Outbox({ config: testConfig(), tableName, client });
    const order = newId('order');
    await outbox.write({
      operations: [
        {
          Put: {
            Item: { pk: `ORDER#${order}`, sk: 'ORDER', total: 42, tags: new Set(['a']), lines: [{ sku: 'a' }], blob: new Uint8Array([1]) },
          },
        },
      ],
      events: [orderEvent(order)],
    });
    expect(info).toHaveBeenCalledTimes(1);
    const logged = info.mock.calls[0]?.[0] as Logged;
    expect(logged).toMatchObject({ clientName: 'DynamoDBClient', commandName: 'TransactWriteItemsCommand', output: {} });
    const [business, slot] = logged.input.TransactItems ?? [];
    // Lists, maps, sets and binary values whole: the SDK's own filter logged them as {}.
    expect(business?.Put).toEqual({
      TableName: tableName,
      Item: { pk: `ORDER#${order}`, sk: 'ORDER', total: 42, tags: new Set(['a']), lines: [{ sku: 'a' }], blob: new Uint8Array([1]) },
    });
    expect(slot?.Put?.Item).toMatchObject({
      pk: `OUTBOX#order#${order}`,
      seq: 1,
      events: [expect.objectContaining({ type: 'order.placed' })],
    });
    expect(logged.input.ClientRequestToken).toEqual(expect.any(String));
  });

  it("logs a refused request whole with the SDK's error", async () => {
    const { client, error } = loggingClient();
    const outbox = new Outbox({ config: testConfig(), tableName, client });
    const order = newId('order');
    const refused = outbox.write({
      operations: [
        {
          ConditionCheck: {
            Key: { pk: `ORDER#${order}`, sk: 'ORDER' },
            ConditionExpression: 'attribute_exists(pk) AND info = :info',
            ExpressionAttributeValues: { ':info': { lines: [1, 2] } },
          },
        },
      ],
      events: [orderEvent(order)],
    });
    await expect(refused).rejects.toBeInstanceOf(TransactionFailedError);
    const logged = error.mock.calls.map(([entry]) => entry as Logged & { error: Error });
    expect(logged.length).toBeGreaterThan(0);
    expect(logged[0]?.error.name).toBe('TransactionCanceledException');
    expect(logged[0]?.input.TransactItems?.[0]?.ConditionCheck).toMatchObject({
      Key: { pk: `ORDER#${order}`, sk: 'ORDER' },
      ExpressionAttributeValues: { ':info': { lines: [1, 2] } },
    });
  });

  it("keeps a log filter the client's own middleware sets, run before the helper's", async () => {
    const { client, info } = loggingClient();
    const redact = () => '[redacted]';
    client.middlewareStack.add(
      (next, context) => (args) => {
        context.dynamoDbDocumentClientOptions = { overrideInputFilterSensitiveLog: redact };
        return next(args);
      },
      { step: 'initialize', priority: 'high', name: 'redactLog' },
    );
    const outbox = new Outbox({ config: testConfig(), tableName, client });
    const order = newId('order');
    await outbox.write({
      operations: [{ Put: { Item: { pk: `ORDER#${order}`, sk: 'ORDER', secret: 'ssn' } } }],
      events: [orderEvent(order)],
    });
    expect(info.mock.calls[0]?.[0]).toMatchObject({ input: '[redacted]' });
  });

  it("skips no member the SDK's own log filter would hide: DynamoDB's request marks none sensitive", () => {
    // The helper hands the logger the request as it is, where the SDK's filter (a walk by the
    // request's schema, for an AttributeValue's members) would copy it, and log native values as {}.
    const sensitive: string[] = [];
    const walk = (schema: NormalizedSchema, path: string, seen: Set<unknown>): void => {
      if (schema.getMergedTraits().sensitive) sensitive.push(path);
      const named = schema.getName(true) ?? path;
      if (seen.has(named)) return;
      seen.add(named);
      if (schema.isStructSchema()) for (const [member, inner] of schema.structIterator()) walk(inner, `${path}.${member}`, seen);
      else if (schema.isListSchema()) walk(schema.getValueSchema(), `${path}[]`, seen);
      else if (schema.isMapSchema()) walk(schema.getValueSchema(), `${path}{}`, seen);
    };
    const [, , , , input, output] = new TransactWriteItemsCommand({ TransactItems: [] }).schema as unknown as unknown[];
    walk(NormalizedSchema.of(input as never), 'input', new Set());
    walk(NormalizedSchema.of(output as never), 'output', new Set());
    expect(sensitive).toEqual([]);
  });
});
