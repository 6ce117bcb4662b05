import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import type { ConsumerMessage, ConsumerOptions, EventHandler, TransactItem } from '../../shared/consumer/types.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { TEST_SOURCE } from './envelopes.js';
import { freshTable, testClients } from './local.js';
import { recordingTelemetry } from './recording-telemetry.js';

/** Messages of a batch, `m0`, `m1`, …; with `groupIds`, FIFO messages of those groups. */
export const messages = (bodies: readonly string[], groupIds?: readonly string[]): ConsumerMessage[] =>
  bodies.map((body, i) => ({ messageId: `m${i}`, body, ...(groupIds === undefined ? {} : { messageGroupId: groupIds[i] as string }) }));
export const statuses = (outcomes: readonly { status: string }[]) => outcomes.map((o) => o.status);
export const count = (sent: readonly string[], name: string) => sent.filter((n) => n === name).length;

/**
 * A fresh table for a test file of `commit: 'batch'` consumers, counters to apply effects to, and
 * consumers whose DocumentClient records every command it sends (and calls `hooks.onSend` with
 * its name as each is sent, in its context, and `hooks.onCommitted` as each TransactWriteItems is
 * answered).
 */
export function batchCommitFixture(prefix: string) {
  const clients = testClients();
  let tableName = '';
  beforeAll(async () => {
    ({ tableName } = await freshTable(clients, prefix));
  });
  afterAll(() => clients.destroy());
  const hooks: { onSend?: ((command: string) => void) | undefined; onCommitted?: (() => void) | undefined } = {};

  const countingDocument = (): { document: DynamoDBDocumentClient; sent: string[] } => {
    const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
    const sent: string[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = (context.commandName ?? 'unknown').replace(/Command$/, '');
        sent.push(command);
        hooks.onSend?.(command);
        const result = await next(args);
        if (context.commandName === 'TransactWriteItemsCommand') hooks.onCommitted?.();
        return result;
      },
      { step: 'initialize', name: 'countCommands' },
    );
    return { document: DynamoDBDocumentClient.from(client), sent };
  };

  const table = () => tableName;
  const counterKey = (scope: string, id: string) => ({ pk: `COUNT#${scope}#${id}`, sk: 'COUNT' });
  const addOne = (scope: string, id: string): TransactItem => ({
    Update: {
      TableName: tableName,
      Key: counterKey(scope, id),
      UpdateExpression: 'ADD applied :one',
      ExpressionAttributeValues: { ':one': 1 },
    },
  });
  const applied = async (scope: string, id: string): Promise<number> => {
    const { Item } = await clients.document.send(
      new GetCommand({ TableName: tableName, Key: counterKey(scope, id), ConsistentRead: true }),
    );
    return Number(Item?.applied ?? 0);
  };
  /** A handler that adds 1 to its aggregate's counter and checks an item that does not exist, so its transaction is cancelled. */
  const failingCheck = (scope: string, ran: string[] = []): EventHandler => ({
    handle: (event, ctx) => {
      ran.push(event.id);
      ctx.write(addOne(scope, event.subject));
      ctx.write({
        ConditionCheck: { TableName: tableName, Key: { pk: `MISSING#${scope}`, sk: 'X' }, ConditionExpression: 'attribute_exists(pk)' },
      });
    },
  });

  /** A batch consumer named `scope` whose `order.placed` handler adds 1 to its aggregate's counter, unless `handlers` says otherwise. */
  const batchConsumer = (scope: string, extra: Partial<ConsumerOptions> = {}, handlers: Record<string, EventHandler> = {}) => {
    const telemetry = recordingTelemetry();
    const { document, sent } = countingDocument();
    const consumer = createConsumer({
      name: scope,
      sources: [TEST_SOURCE],
      inbox: { document, tableName, legacyKeyCheck: false },
      handlers: { 'order.placed': { handle: (event, ctx) => ctx.write(addOne(scope, event.subject)) }, ...handlers },
      logger: telemetry.logger,
      metrics: telemetry.metrics,
      commit: 'batch',
      ...extra,
    });
    return { consumer, sent, ...telemetry };
  };

  return { clients, hooks, table, addOne, applied, failingCheck, batchConsumer };
}
