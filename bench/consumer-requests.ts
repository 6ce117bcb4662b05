import { TransactGetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import { Inbox } from '../shared/consumer/inbox.js';
import { BENCH_SOURCE, type CountedClients, counterKey, EVENT_TYPE, type PathTables } from './consumer-paths.js';

/*
 * DynamoDB Local's share of a message: the requests the consumer paths send, by hand, one at a
 * time, in alternating rounds on one table, timed at the client (the SDK's own work included, as
 * in every path). What the bare handler sends for an event (an UpdateItem), what the inbox by
 * transaction sends (a TransactWriteItems of that update and the inbox's conditional Put of its
 * record, as the helper builds it; a TransactGetItems of a batch's inbox keys), and the bare
 * transaction row's request (the update and a Put on `attribute_not_exists(pk)`), committed, and
 * cancelled as a redelivery just after its first delivery finds the Put's item.
 */

export type RequestName = 'update' | 'inboxTransaction' | 'floorTransaction' | 'floorCancelled' | 'batchRead';

/** Mean milliseconds per request, by request. */
export type RequestCosts = Readonly<Record<RequestName, number>>;

const NAMES: readonly RequestName[] = ['update', 'inboxTransaction', 'floorTransaction', 'floorCancelled', 'batchRead'];
const AGGREGATES = 500;

/** Times each request `perRound` times a round, over `rounds` rounds, the order rotating; `keysPerRead` keys in each batch read. */
export async function requestCosts(
  clients: CountedClients,
  tables: PathTables,
  rounds: number,
  perRound: number,
  keysPerRead: number,
): Promise<RequestCosts> {
  const { document } = clients;
  const TableName = tables.business;
  const inbox = new Inbox('bench', { document, tableName: TableName });
  let n = 0;
  const update = (aggregate: string, id: string) => ({
    TableName,
    Key: counterKey(aggregate),
    UpdateExpression: 'ADD applied :one SET lastEventId = :id',
    ExpressionAttributeValues: { ':one': 1, ':id': id },
  });
  const floor = (id: string) =>
    document.send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: update(`r-${n++ % AGGREGATES}`, id) },
          { Put: { TableName, Item: { pk: `DEDUP#${id}`, sk: BENCH_SOURCE }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
  /** Each request, with what must be in place before it (untimed): the cancelled one's first delivery, committed just before. */
  let redelivered = '';
  const requests: Record<RequestName, { readonly before?: () => Promise<unknown>; readonly send: () => Promise<unknown> }> = {
    update: { send: () => document.send(new UpdateCommand(update(`r-${n++ % AGGREGATES}`, uuidv7()))) },
    inboxTransaction: {
      send: () => {
        const id = uuidv7();
        return inbox.commit({ id, source: BENCH_SOURCE, type: EVENT_TYPE }, [{ Update: update(`r-${n++ % AGGREGATES}`, id) }]);
      },
    },
    floorTransaction: { send: () => floor(uuidv7()) },
    floorCancelled: {
      before: () => {
        redelivered = uuidv7();
        return floor(redelivered);
      },
      send: () =>
        floor(redelivered).catch((error: unknown) => {
          if ((error as Error).name !== 'TransactionCanceledException') throw error;
        }),
    },
    batchRead: {
      send: () => {
        // A batch's keys as the helper reads them: each event's own and, with legacyKeyCheck, the key of earlier releases.
        const keys = Array.from({ length: keysPerRead / 2 }, () => inbox.keysOf({ id: uuidv7(), source: BENCH_SOURCE })).flatMap((k) =>
          k.legacy === undefined ? [k.own] : [k.own, k.legacy],
        );
        return document.send(new TransactGetCommand({ TransactItems: keys.map((Key) => ({ Get: { TableName, Key } })) }));
      },
    },
  };
  const totals = new Map<RequestName, number>(NAMES.map((name) => [name, 0]));
  for (let round = 0; round < rounds; round++) {
    for (let r = 0; r < NAMES.length; r++) {
      const name = NAMES[(r + round) % NAMES.length] as RequestName;
      const { before, send } = requests[name];
      let spent = 0;
      for (let i = 0; i < perRound; i++) {
        await before?.();
        const started = performance.now();
        await send();
        spent += performance.now() - started;
      }
      totals.set(name, (totals.get(name) ?? 0) + spent);
    }
  }
  return Object.fromEntries(NAMES.map((name) => [name, (totals.get(name) ?? 0) / (rounds * perRound)])) as RequestCosts;
}
