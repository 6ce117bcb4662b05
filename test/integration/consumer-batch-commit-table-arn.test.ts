import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import type { TransactItem } from '../../shared/consumer/types.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { count, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName = '';
beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-batch-arn'));
});
afterAll(() => clients.destroy());

/** The table's ARN in the clients' region (DynamoDB Local's account), which a request's TableName takes as well as its name. */
const arnOf = (name: string, region = LOCAL_REGION) => `arn:aws:dynamodb:${region}:000000000000:table/${name}`;

/**
 * The request with each TableName that is a table ARN given as the ARN's table name, as DynamoDB
 * reads it: DynamoDB Local takes an ARN in GetItem, PutItem and UpdateItem, but answers
 * ResourceNotFoundException to one in TransactGetItems and TransactWriteItems. A copy: the
 * consumer's own writes are left as they were given.
 */
function byName(input: unknown): unknown {
  if (Array.isArray(input)) return input.map(byName);
  if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype) return input;
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [
      key,
      key === 'TableName' && typeof value === 'string' ? value.replace(/^arn:[^:]+:dynamodb:[^:]*:[^:]*:table\//, '') : byName(value),
    ]),
  );
}

/**
 * A `commit: 'batch'` consumer whose inbox is `inboxTable` and whose `order.placed` handler writes
 * what `write` gives (for the event's id), with a client that records the commands it sends.
 */
function consumerOf(scope: string, inboxTable: string, write: (eventId: string, index: number) => TransactItem) {
  const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push((context.commandName ?? 'unknown').replace(/Command$/, ''));
      return next({ ...args, input: byName(args.input) as typeof args.input });
    },
    { step: 'initialize', name: 'countCommands' },
  );
  let index = 0;
  const telemetry = recordingTelemetry();
  const consumer = createConsumer({
    name: scope,
    sources: [TEST_SOURCE],
    inbox: { document: DynamoDBDocumentClient.from(client), tableName: inboxTable, legacyKeyCheck: false },
    handlers: { 'order.placed': { handle: (event, ctx) => ctx.write(write(event.id, index++)) } },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    commit: 'batch',
  });
  return { consumer, sent, ...telemetry, destroy: () => client.destroy() };
}

const shared = (scope: string) => ({ pk: `VIEW#${scope}`, sk: 'VIEW' });
const last = async (scope: string) =>
  (await clients.document.send(new GetCommand({ TableName: tableName, Key: shared(scope), ConsistentRead: true }))).Item;

describe("consumer, commit: 'batch': a table named by its name and by its ARN is one table", () => {
  it.each([
    ['the inbox by its ARN, the handlers writing by name', true, false],
    ['the inbox by name, the handlers writing by its ARN', false, true],
  ])('splits the group before a second Put of one item in the inbox table, with %s', async (_, inboxByArn, writesByArn) => {
    const scope = `put-${inboxByArn ? 'arn' : 'name'}`;
    const { consumer, sent, logs, destroy } = consumerOf(scope, inboxByArn ? arnOf(tableName) : tableName, (eventId) => ({
      Put: { TableName: writesByArn ? arnOf(tableName) : tableName, Item: { ...shared(scope), last: eventId } },
    }));
    const events = [anEnvelope({ aggregateId: `${scope}-1` }), anEnvelope({ aggregateId: `${scope}-2` })];

    const { outcomes } = await consumer.process(messages(events.map((e) => e.body)));
    destroy();

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    // One transaction per event, the second after the first: not a group transaction DynamoDB refuses, then each again.
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect(logs.filter((entry) => entry.message.includes('group transaction failed'))).toEqual([]);
    expect((await last(scope))?.last).toBe(events[1]?.id);
  });

  it('splits the group before an Update of an item another event of the group updated by the other spelling', async () => {
    const scope = 'update-mixed';
    const { consumer, sent, destroy } = consumerOf(scope, tableName, (_eventId, index) => ({
      Update: {
        TableName: index % 2 === 0 ? tableName : arnOf(tableName),
        Key: shared(scope),
        UpdateExpression: 'ADD applied :one',
        ExpressionAttributeValues: { ':one': 1 },
      },
    }));
    const events = [anEnvelope({ aggregateId: `${scope}-1` }), anEnvelope({ aggregateId: `${scope}-2` })];

    const { outcomes } = await consumer.process(messages(events.map((e) => e.body)));
    destroy();

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect((await last(scope))?.applied).toBe(2);
  });
});
