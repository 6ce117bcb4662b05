import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { OutboxConfig } from '../shared/config.js';
import type { Outbox } from '../shared/write/index.js';
import { planWrite } from '../shared/write/plan.js';
import { slotWrite } from '../shared/write/slot-item.js';

/*
 * The write helper's own CPU per call, apart from DynamoDB: the same three requests as
 * bench/write.ts, each sent through a DocumentClient whose transport answers every
 * TransactWriteItems at once with success, in memory, so each call's CPU is the client side
 * alone (the SDK's marshalling, serialisation and signing, and the helper's planning).
 */

/** A transport answering every request with an empty JSON success, in memory. */
const answering = {
  handle: async () => ({
    response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from('{}')]) },
  }),
};

/** A DocumentClient with no DynamoDB behind it: every transaction succeeds, in memory. */
export function inMemoryDocumentClient(): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
      requestHandler: answering,
    }),
  );
}

export const businessItem = (id: string) => ({ pk: `ORDER#${id}`, sk: 'ORDER', status: 'placed', total: 4200, currency: 'EUR' });

/**
 * What each request of the benchmark sends, given a fresh id: the hand-built ones through the client
 * they are given, the helper's through `outbox` and the client it was made with.
 */
export function requests(outbox: Outbox, tableName: string, config: OutboxConfig) {
  return {
    /** Two plain Puts: the business item and an outbox slot, without the helper. */
    bare: (client: DynamoDBDocumentClient, id: string) =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName, Item: businessItem(id) } },
            {
              Put: {
                TableName: tableName,
                Item: {
                  pk: `OUTBOX#order#${id}`,
                  sk: 'OUTBOX',
                  kind: 'outbox-slot',
                  seq: 1,
                  events: [{ id, type: 'order.placed', time: new Date().toISOString(), data: '{"total":4200,"currency":"EUR"}' }],
                },
              },
            },
          ],
        }),
      ),
    /** The very request the helper sends (the business Put and the conditional slot put, under a token), built by hand. */
    same: (client: DynamoDBDocumentClient, id: string) => {
      const now = new Date();
      const slot = {
        aggregate: { type: 'order', id },
        pk: `OUTBOX#order#${id}`,
        events: [{ id, type: 'order.placed', time: now.toISOString(), data: '{"total":4200,"currency":"EUR"}' }],
        inputIndexes: [0],
      };
      return client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: tableName, Item: businessItem(id) } }, slotWrite(slot, undefined, now, tableName, config)],
          // A random token per call, as the helper's own for a write without an idempotency key.
          ClientRequestToken: randomUUID(),
        }),
      );
    },
    helper: (_client: DynamoDBDocumentClient, id: string) => outbox.write(helperInput(id)),
    /** The helper's planning alone: validation, ids, sizing and marshalling, nothing sent. */
    plan: async (client: DynamoDBDocumentClient, id: string) =>
      planWrite(helperInput(id), { config, tableName, client, idempotencyTtlSeconds: 86_400, clock: () => new Date() }),
  };
}

export const helperInput = (id: string) => ({
  operations: [{ Put: { Item: businessItem(id) } }],
  events: [{ aggregate: { type: 'order', id }, type: 'order.placed', data: { total: 4200, currency: 'EUR' } }],
});

/** Process CPU (user + system) in µs per call of `op`, over `count` sequential calls. */
export async function cpuPerCall(op: (id: string) => Promise<unknown>, count: number, prefix: string): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) await op(`${prefix}-${i}`);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}
