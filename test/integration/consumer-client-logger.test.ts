import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { inboxKey } from '../../shared/consumer/inbox.js';
import { sequenceKey } from '../../shared/consumer/sequence-tracker.js';
import type { ConsumerOptions, EventHandler } from '../../shared/consumer/types.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { newId } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;
beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-logger'));
});
afterAll(() => clients.destroy());

/** What the SDK's logger middleware hands a client's logger for one request. */
type Logged = { clientName: string; commandName: string; input: Record<string, unknown>; output?: Record<string, unknown>; error?: Error };

/**
 * A DocumentClient whose DynamoDBClient has a logger that keeps what the SDK hands it, the way an
 * app gives a consumer its client: `entries(name)` are the `info` entries of `${name}Command`.
 */
function loggingDocument() {
  const info = vi.fn();
  const error = vi.fn();
  const logger = { trace() {}, debug() {}, info, warn() {}, error };
  const client = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, logger });
  const of = (calls: unknown[][], name: string) =>
    calls.map(([entry]) => entry as Logged).filter((entry) => entry.commandName === `${name}Command`);
  return {
    client,
    document: DynamoDBDocumentClient.from(client),
    entries: (name: string) => of(info.mock.calls, name),
    errors: (name: string) => of(error.mock.calls, name),
  };
}

/** A projection with a value of every kind the SDK's log filter showed as `{}`: a map, a list, a set, binary, numbers in a map. */
const projectionOf = (id: string) => ({
  pk: `VIEW#${id}`,
  sk: 'VIEW',
  total: 42,
  totals: { net: 40, tax: 2 },
  lines: [{ sku: 'a', qty: 1 }],
  tags: new Set(['gift']),
  blob: new Uint8Array([1, 2]),
});

const consumerOf = (document: DynamoDBDocumentClient, handlers: Record<string, EventHandler>, extra: Partial<ConsumerOptions> = {}) => {
  const name = newId('logged');
  const { logger, metrics } = recordingTelemetry();
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    inbox: { document, tableName },
    handlers,
    logger,
    metrics,
    ...extra,
  });
  return { name, consumer };
};

/** A handler that writes its event's projection ({@link projectionOf} its subject). */
const projecting: EventHandler = {
  handle: (event, ctx) => ctx.write({ Put: { TableName: tableName, Item: projectionOf(event.subject) } }),
};

describe("the consumer and its client's logger", () => {
  it("logs the inbox's read, its transaction and the sequence update whole: the handler's map, list, set and binary values as written", async () => {
    const { client, document, entries } = loggingDocument();
    const { name, consumer } = consumerOf(document, { 'order.placed': projecting }, { sequenceTracking: true });
    const subject = newId('order');
    const event = anEnvelope({ aggregateId: subject });

    const first = await consumer.process([{ messageId: 'm-1', body: event.body }]);
    const again = await consumer.process([{ messageId: 'm-1', body: event.body }]);
    expect([...first.outcomes, ...again.outcomes].map((outcome) => outcome.status)).toEqual(['processed', 'duplicate']);

    const own = inboxKey(name, { source: TEST_SOURCE, id: event.id });
    const [commit, ...moreCommits] = entries('TransactWriteItems');
    expect(moreCommits).toEqual([]);
    expect(commit).toMatchObject({ clientName: 'DynamoDBClient', output: {} });
    const [handlerPut, inboxPut] = (commit?.input.TransactItems ?? []) as { Put: Record<string, unknown> }[];
    expect(handlerPut?.Put).toEqual({ TableName: tableName, Item: projectionOf(subject) });
    expect(inboxPut?.Put).toMatchObject({
      Item: { ...own, status: 'COMPLETED', eventId: event.id, expiresAt: expect.any(Number) },
      ExpressionAttributeValues: { ':inProgress': 'IN_PROGRESS', ':now': expect.any(Number) },
    });

    // Each delivery reads the event's inbox records in one TransactGetItems; the second finds the first's record.
    const reads = entries('TransactGetItems');
    expect(reads).toHaveLength(2);
    expect(reads[0]?.input.TransactItems).toContainEqual({ Get: { TableName: tableName, Key: own } });
    const found = (reads[1]?.output?.Responses ?? []) as { Item?: Record<string, unknown> }[];
    expect(found).toContainEqual({ Item: expect.objectContaining({ ...own, status: 'COMPLETED', expiresAt: expect.any(Number) }) });

    const [sequence] = entries('UpdateItem');
    expect(sequence?.input).toMatchObject({
      Key: sequenceKey(name, 'order', subject),
      ExpressionAttributeValues: { ':sequence': 1, ':zero': 0, ':type': 'order', ':id': subject },
    });
    // Each command has the middleware on its own stack: the user's client is left as it was given.
    expect([...client.middlewareStack.identify(), ...document.middlewareStack.identify()].filter((m) => m.includes('outbox'))).toEqual([]);
  });

  it("logs a batch's group transaction whole, every event's writes as its handler gave them", async () => {
    const { document, entries } = loggingDocument();
    const { consumer } = consumerOf(
      document,
      { 'order.placed': projecting },
      { commit: 'batch', inbox: { document, tableName, legacyKeyCheck: false } },
    );
    const subjects = [newId('order'), newId('order')];
    const bodies = subjects.map((aggregateId) => anEnvelope({ aggregateId }).body);

    const { outcomes } = await consumer.process(bodies.map((body, i) => ({ messageId: `m${i}`, body })));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['processed', 'processed']);

    const [group, ...more] = entries('TransactWriteItems');
    expect(more).toEqual([]);
    const puts = ((group?.input.TransactItems ?? []) as { Put: { Item: Record<string, unknown> } }[]).map(({ Put }) => Put.Item);
    expect(puts).toHaveLength(4);
    expect(puts.filter((item) => item.sk === 'VIEW')).toEqual(subjects.map(projectionOf));
  });

  it("logs a claim, its completion and a refused transaction whole: the claim's record, the handler's values with the SDK's error", async () => {
    const { document, entries, errors } = loggingDocument();
    const { name, consumer } = consumerOf(document, {
      'order.shipped': { idempotency: 'claim', handle: () => {} },
      'order.placed': {
        handle: (event, ctx) =>
          ctx.write({
            ConditionCheck: {
              TableName: tableName,
              Key: { pk: `MISSING#${event.subject}`, sk: 'X' },
              ConditionExpression: 'attribute_exists(pk) AND #lines = :lines',
              ExpressionAttributeNames: { '#lines': 'lines' },
              ExpressionAttributeValues: { ':lines': [{ sku: 'a' }] },
            },
          }),
      },
    });
    const shipped = anEnvelope({ type: 'order.shipped' });
    const placed = anEnvelope({ aggregateId: newId('order') });

    const { outcomes } = await consumer.process([
      { messageId: 'm-1', body: shipped.body },
      { messageId: 'm-2', body: placed.body },
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['processed', 'failed']);

    const own = inboxKey(name, { source: TEST_SOURCE, id: shipped.id });
    const [claim] = entries('PutItem');
    expect(claim?.input.Item).toMatchObject({
      ...own,
      status: 'IN_PROGRESS',
      claimToken: expect.any(String),
      claimExpiresAt: expect.any(Number),
    });
    const [completion] = entries('UpdateItem');
    expect(completion?.input).toMatchObject({
      Key: own,
      ExpressionAttributeValues: { ':completed': 'COMPLETED', ':inProgress': 'IN_PROGRESS' },
    });

    const [refused] = errors('TransactWriteItems');
    expect(refused?.error?.name).toBe('TransactionCanceledException');
    expect((refused?.input.TransactItems as { ConditionCheck?: unknown }[] | undefined)?.[0]?.ConditionCheck).toMatchObject({
      ExpressionAttributeValues: { ':lines': [{ sku: 'a' }] },
    });
  });
});
