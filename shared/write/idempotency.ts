/**
 * The idempotency record of a keyed write: the item written in the same transaction that holds
 * the write's fingerprint and result, how a stored record is replayed, and the fresh client
 * tokens a changed request needs.
 */

import { createHash, randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { logAsIs } from '../aws/unfiltered-log.js';
import { IdempotencyConflictError } from '../errors.js';
import { expiresAt, TABLE } from '../table.js';
import { type EventInput, IDEMPOTENCY_PREFIX, type TransactOperation, type WriteResult, type WrittenEvent } from './types.js';

/**
 * Identifies what a write asked for, so a replay under the same key can tell a retry of this
 * write from a different write: its operations as DynamoDB receives them (table names filled
 * in, attribute values marshalled, so a `Map` counts by its entries) and its events' aggregates,
 * types, data and versions (where given), in a canonical form where the order of object keys
 * and of set members does not count. An event's `traceparent` and `tracestate` do not count either: a retried request carries new ones.
 */
export function writeFingerprint(operations: readonly Record<string, unknown>[], events: readonly EventInput[]): string {
  // Set members are unordered only in the marshalled operations: in event data, an array is a list.
  const canonical = `${canonicalJson(operations, true)}\n${canonicalJson(
    // A version only when given: fingerprints of writes without one stay what they were.
    events.map((e) => (e.version === undefined ? [e.aggregate, e.type, e.data] : [e.aggregate, e.type, e.data, e.version])),
    false,
  )}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

/** DynamoDB JSON's set types, whose members are in no order. */
const SET_TYPES = new Set(['SS', 'NS', 'BS']);

/** JSON with object keys sorted; with `sets`, the members of DynamoDB JSON's sets sorted too. */
function canonicalJson(value: unknown, sets: boolean, key?: string): string {
  if (value instanceof Uint8Array) return JSON.stringify({ binary: Buffer.from(value).toString('base64') });
  if (Array.isArray(value)) {
    const members = value.map((member) => canonicalJson(member, sets));
    return `[${(sets && key !== undefined && SET_TYPES.has(key) ? members.sort() : members).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member, sets, name)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The Put of the record, conditional on no record for the key in force (none, or one past its
 * expiry that TTL has not deleted yet), returning the stored one if there is. It holds the
 * `writeId` of the call that writes it: two calls under one key then never send the very same
 * request, which DynamoDB, having committed it under the key as token, would answer with
 * success, writing nothing, where the helper must answer with the replay.
 */
export function idempotencyPut(
  key: string,
  plan: { now: Date; fingerprint: string; writeId: string },
  result: WrittenEvent[],
  tableName: string,
  ttlSeconds: number,
): TransactOperation {
  return {
    Put: {
      TableName: tableName,
      Item: {
        [TABLE.partitionKey]: `${IDEMPOTENCY_PREFIX}${key}`,
        [TABLE.sortKey]: 'IDEMPOTENCY',
        kind: 'outbox-idempotency',
        fingerprint: plan.fingerprint,
        writeId: plan.writeId,
        result: JSON.stringify(result),
        createdAt: plan.now.toISOString(),
        [TABLE.timeToLiveAttribute]: expiresAt(plan.now, ttlSeconds),
      },
      ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt <= :now',
      ExpressionAttributeNames: { '#pk': TABLE.partitionKey, '#expiresAt': TABLE.timeToLiveAttribute },
      ExpressionAttributeValues: { ':now': expiresAt(plan.now, 0) },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * The stored result of the key, read consistently; `undefined` when no write under it committed,
 * or its record is past its expiry at `now` (TTL deletes such a record only later).
 */
export async function replay(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: string,
  plan: { now: Date; fingerprint: string },
): Promise<WriteResult | undefined> {
  const { Item } = await client.send(
    logAsIs(
      new GetCommand({
        TableName: tableName,
        Key: { [TABLE.partitionKey]: `${IDEMPOTENCY_PREFIX}${key}`, [TABLE.sortKey]: 'IDEMPOTENCY' },
        ConsistentRead: true,
      }),
    ),
  );
  // Number(): a DocumentClient that wraps numbers gives a NumberValue, whose text is the number.
  const expiry = Item === undefined ? Number.NaN : Number(Item[TABLE.timeToLiveAttribute]);
  const expired = Number.isFinite(expiry) && expiry <= expiresAt(plan.now, 0);
  return Item === undefined || expired ? undefined : storedResult(key, Item, plan.fingerprint);
}

/** The result a record holds, if it was written by this same write; else an {@link IdempotencyConflictError}. */
export function storedResult(key: string, record: Record<string, unknown>, fingerprint: string): WriteResult {
  if (record.fingerprint !== fingerprint) throw new IdempotencyConflictError(key);
  return { events: JSON.parse(record.result as string) as WrittenEvent[], replayed: true };
}

/** A fresh `ClientRequestToken` for retry `attempt`: DynamoDB rejects a changed request under a token it saw. */
export function derivedToken(key: string, attempt: number): string {
  return createHash('sha256').update(`${key}#${attempt}#${randomUUID()}`).digest('base64url').slice(0, 36);
}
