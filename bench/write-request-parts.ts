import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { OutboxConfig } from '../shared/config.js';
import type { LocalClients as DynamoDbClients } from '../shared/local/clients.js';
import { slotWrite } from '../shared/write/slot-item.js';
import type { TransactOperation } from '../shared/write/types.js';
import { percentile } from './report.js';
import { businessItem } from './write-cost.js';

/*
 * DynamoDB's share of the write helper's overhead, part by part: the very request the helper
 * sends (bench/write-cost.ts `same`), and the same request with one of its parts taken out, each
 * against the bare transaction of two plain Puts, in alternating blocks on one DynamoDB Local.
 */

/** Which part of the helper's request a variant leaves out; `bare` is two plain Puts, `same` the whole request. */
export const PARTS = [
  'bare',
  'same',
  'no token',
  'no ReturnValuesOnConditionCheckFailure',
  'no condition',
  'no extra attributes',
  'condition on the key',
  'condition named inline',
] as const;
export type Part = (typeof PARTS)[number];

/** The slot Put of the helper's request for a new slot, with `part` left out. */
function slotPut(part: Part, id: string, tableName: string, config: OutboxConfig): TransactOperation {
  const now = new Date();
  const events = [{ id, type: 'order.placed', time: now.toISOString(), data: '{"total":4200,"currency":"EUR"}' }];
  const slot = { aggregate: { type: 'order', id }, pk: `OUTBOX#order#${id}`, events, inputIndexes: [0] };
  const put = slotWrite(slot, undefined, now, tableName, config).Put as NonNullable<TransactOperation['Put']>;
  if (part === 'no ReturnValuesOnConditionCheckFailure') {
    const { ReturnValuesOnConditionCheckFailure: _, ...rest } = put;
    return { Put: rest };
  }
  // Other forms of the new slot's condition: on the partition key, and on `seq` named in the expression itself.
  if (part === 'condition on the key') {
    const { ExpressionAttributeNames: _, ...rest } = put;
    return { Put: { ...rest, ConditionExpression: 'attribute_not_exists(pk)' } };
  }
  if (part === 'condition named inline') {
    const { ExpressionAttributeNames: _, ...rest } = put;
    return { Put: { ...rest, ConditionExpression: 'attribute_not_exists(seq)' } };
  }
  if (part === 'no condition') {
    const { ConditionExpression: _c, ExpressionAttributeNames: _n, ReturnValuesOnConditionCheckFailure: _r, ...rest } = put;
    return { Put: rest };
  }
  if (part === 'no extra attributes' || part === 'bare') {
    // What the bare transaction's slot holds: the keys, the kind, the sequence and the events.
    const { pk, sk, kind, seq } = put.Item as Record<string, unknown>;
    const item = { pk, sk, kind, seq, events };
    return part === 'bare' ? { Put: { TableName: tableName, Item: item } } : { Put: { ...put, Item: item } };
  }
  return { Put: put };
}

/** One transaction of variant `part` for a fresh id. */
export function sendPart(clients: DynamoDbClients, part: Part, id: string, tableName: string, config: OutboxConfig) {
  const token = part === 'bare' || part === 'no token' ? {} : { ClientRequestToken: randomUUID() };
  return clients.document.send(
    new TransactWriteCommand({
      TransactItems: [{ Put: { TableName: tableName, Item: businessItem(id) } }, slotPut(part, id, tableName, config)],
      ...token,
    }),
  );
}

/**
 * p50 latency (ms) of each variant, `count` calls each at `concurrency`, in alternating blocks of
 * `block` calls, after a warm-up of each.
 */
export async function partLatencies(
  clients: DynamoDbClients,
  tableName: string,
  config: OutboxConfig,
  options: { count: number; block: number; concurrency: number },
): Promise<Record<Part, number>> {
  let n = 0;
  const samples = Object.fromEntries(PARTS.map((part) => [part, [] as number[]])) as Record<Part, number[]>;
  const run = async (part: Part, count: number, into?: number[]) => {
    let issued = 0;
    const worker = async () => {
      while (issued < count) {
        issued++;
        const start = performance.now();
        await sendPart(clients, part, `parts-${options.concurrency}-${n++}`, tableName, config);
        into?.push(performance.now() - start);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  };
  for (const part of PARTS) await run(part, options.block);
  for (let done = 0; done < options.count; done += options.block) {
    for (const part of PARTS) await run(part, options.block, samples[part]);
  }
  const p50 = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  return Object.fromEntries(PARTS.map((part) => [part, p50(samples[part])])) as Record<Part, number>;
}
