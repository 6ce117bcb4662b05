import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { inboxKey, legacyInboxKey } from '../../shared/consumer/inbox-keys.js';
import type { ConsumerMessage, ConsumerOptions } from '../../shared/consumer/types.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { countingConsumer } from '../helpers/counting-consumer.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-batch-read'));
});

afterAll(() => clients.destroy());

/** A DocumentClient on the run's DynamoDB Local that counts its commands, and fails those named in `failing`. */
function countingDocument(failing: readonly string[] = []): { document: DynamoDBDocumentClient; sent: string[] } {
  const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName ?? 'unknown');
      if (failing.includes(context.commandName ?? '')) {
        throw Object.assign(new Error('Transaction cancelled: a conflicting operation is in progress'), {
          name: 'TransactionCanceledException',
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  return { document: DynamoDBDocumentClient.from(client), sent };
}

const consumerWith = (name: string, document: DynamoDBDocumentClient, extra: Partial<ConsumerOptions> = {}) =>
  countingConsumer(name, document, tableName, extra);

const batchOf = (bodies: readonly string[]): ConsumerMessage[] => bodies.map((body, i) => ({ messageId: `m${i}`, body }));
const countOf = (sent: readonly string[], name: string) => sent.filter((n) => n === name).length;

describe('consumer: one read of the inbox per batch', () => {
  it('reads the inbox records of a batch of 10 events in one request, then commits each event in its own transaction', async () => {
    const { document, sent } = countingDocument();
    const { consumer } = consumerWith('one-read', document);
    const events = Array.from({ length: 10 }, (_, i) => anEnvelope({ aggregateId: `one-read-${i}` }));

    const { outcomes } = await consumer.process(batchOf(events.map((e) => e.body)));

    expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('processed'));
    expect(countOf(sent, 'TransactGetItemsCommand')).toBe(1);
    expect(countOf(sent, 'GetItemCommand')).toBe(0);
    expect(countOf(sent, 'TransactWriteItemsCommand')).toBe(10);
  });

  it('skips redelivered events on what the batch read found, writing nothing and without running the handler', async () => {
    const { document, sent } = countingDocument();
    const { consumer } = consumerWith('redelivered', document);
    const events = Array.from({ length: 4 }, (_, i) => anEnvelope({ aggregateId: `redelivered-${i}` }));
    await consumer.process(batchOf(events.map((e) => e.body)));
    sent.length = 0;

    const { outcomes } = await consumer.process(batchOf(events.map((e) => e.body)));

    expect(outcomes.map((o) => o.status)).toEqual(Array(4).fill('duplicate'));
    expect(sent).toEqual(['TransactGetItemsCommand']);
  });

  it.each([
    ['event', 'transaction'],
    ['event', 'claim'],
    ['batch', 'transaction'],
    ['batch', 'claim'],
  ] as const)(
    "skips a second delivery of an event in the same batch on what the batch committed, with no read (commit: '%s', %s)",
    async (commit, idempotency) => {
      const { document, sent } = countingDocument();
      let runs = 0;
      const telemetry = recordingTelemetry();
      const consumer = createConsumer({
        name: `twice-${commit}-${idempotency}`,
        sources: [TEST_SOURCE],
        inbox: { document, tableName },
        handlers: { 'order.placed': { idempotency, handle: () => void runs++ } },
        logger: telemetry.logger,
        metrics: telemetry.metrics,
        commit,
      });
      const event = anEnvelope({ aggregateId: `twice-${commit}-${idempotency}` });

      const { outcomes } = await consumer.process(batchOf([event.body, event.body]));

      expect(outcomes.map((o) => o.status)).toEqual(['processed', 'duplicate']);
      expect(runs).toBe(1);
      // The batch read (both keys), then the first delivery's writes only: its commit, or its claim and completion.
      const writes = idempotency === 'claim' ? ['PutItemCommand', 'UpdateItemCommand'] : ['TransactWriteItemsCommand'];
      expect(sent).toEqual(['TransactGetItemsCommand', ...writes]);
    },
  );

  it.each(['failed', 'was taken over'] as const)(
    'fails a second delivery of an event in the same batch through its claim (CLAIM_HELD), not as a duplicate, when the first one’s completion %s',
    async (how) => {
      const name = `claim-lost-${how.replaceAll(' ', '-')}`;
      const { document, sent } = countingDocument(how === 'failed' ? ['UpdateItemCommand'] : []);
      let runs = 0;
      const { consumer } = consumerWith(name, document, {
        handlers: {
          'order.placed': {
            idempotency: 'claim',
            handle: async (event) => {
              runs++;
              // Another worker takes the claim over while the side effect runs: the completion finds its token.
              if (how === 'was taken over') {
                await clients.document.send(
                  new UpdateCommand({
                    TableName: tableName,
                    Key: inboxKey(name, event),
                    UpdateExpression: 'SET claimToken = :other',
                    ExpressionAttributeValues: { ':other': 'another-worker' },
                  }),
                );
              }
            },
          },
        },
      });
      const event = anEnvelope({ aggregateId: name });

      const { outcomes } = await consumer.process(batchOf([event.body, event.body]));

      expect(outcomes.map((o) => o.status)).toEqual(['processed', 'failed']);
      expect(outcomes[1]).toMatchObject({ error: { code: 'CLAIM_HELD' } });
      expect(runs).toBe(1);
      // The second delivery reads the record of earlier releases and tries its own claim, as in a later batch.
      expect(sent.slice(3)).toEqual(['GetItemCommand', 'PutItemCommand']);
    },
  );

  it('finds an event handled under the key of earlier releases in the batch read', async () => {
    const event = anEnvelope({ aggregateId: 'legacy-in-batch' });
    await clients.document.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...legacyInboxKey('legacy-batch', event.id), status: 'COMPLETED', eventId: event.id },
      }),
    );
    const { document, sent } = countingDocument();
    const { consumer } = consumerWith('legacy-batch', document);

    const { outcomes } = await consumer.process(batchOf([event.body]));

    expect(outcomes.map((o) => o.status)).toEqual(['duplicate']);
    expect(sent).toEqual(['TransactGetItemsCommand']);
  });

  it('fails over to a read per event when the batch read fails, logging why, and still handles every event once', async () => {
    const { document, sent } = countingDocument(['TransactGetItemsCommand']);
    const { consumer, logs } = consumerWith('read-fails', document);
    const events = Array.from({ length: 3 }, (_, i) => anEnvelope({ aggregateId: `read-fails-${i}` }));

    const first = await consumer.process(batchOf(events.map((e) => e.body)));
    const again = await consumer.process(batchOf(events.map((e) => e.body)));

    expect(first.outcomes.map((o) => o.status)).toEqual(Array(3).fill('processed'));
    expect(again.outcomes.map((o) => o.status)).toEqual(Array(3).fill('duplicate'));
    expect(countOf(sent, 'GetItemCommand')).toBe(12);
    expect(logs.filter((l) => l.level === 'warn' && /inbox records at once failed/.test(l.message))).toHaveLength(2);
  });
});
