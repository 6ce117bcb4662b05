import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  benchEnvelope,
  type CountedClients,
  countedClients,
  counterKey,
  createPathTables,
  lambdaContext,
  type PathName,
  pathHandler,
  sqsRecord,
} from './consumer-paths.js';

/*
 * A crash between the business write and the dedup record's completion, then SQS's redeliveries.
 *
 * The first invocation's process dies as soon as the request that makes the business effect
 * durable has been answered: Powertools' and the claim's UpdateItem of the business item, the
 * inbox transaction's TransactWriteItems (which holds the effect and the inbox record together;
 * with `commit: 'batch'`, the group's, which holds them for every event of the group: that path
 * gets a batch of several events of distinct aggregates, one group). Asked, it dies just before
 * that request is sent instead.
 * Dying means nothing it would still send reaches DynamoDB: every later request of that process
 * fails. The message is not acknowledged, so SQS delivers it again to a new process once the
 * visibility timeout has passed, which is after the crashed invocation's timeout and after the
 * claims it took lapsed (a subscriber queue's visibility timeout is longer than its function's
 * and than its claims); deliveries go on until one is acknowledged. The count of the business item says how often the effect was applied.
 */

/** How long the crashed invocation had left: its timeout, after which every redelivery comes. */
export const CRASHED_INVOCATION_MS = 300;
/** At most this many deliveries (SQS's maxReceiveCount would move the message to a DLQ). */
const MAX_DELIVERIES = 50;

export interface CrashResult {
  readonly path: PathName;
  /** How many times the business effect was applied to an event: the most of any event of the batch. */
  readonly applied: number;
  /** How many times the business effect was applied to each event, in batch order. */
  readonly appliedPerEvent: readonly number[];
  /** Deliveries until every message was acknowledged, the crashed one included. */
  readonly deliveries: number;
}

/** When the process dies: once the effect's request is answered (its effect durable), or just before it is sent. */
export type CrashMoment = 'after' | 'before';

/** Events in the crashed batch, by path: the batch commit's group holds several. */
const EVENTS: Partial<Record<PathName, number>> = { batch: 3 };

/** The request after whose answer the process dies, by path. */
const EFFECT_REQUEST: Partial<Record<PathName, string>> = {
  powertools: 'UpdateItemCommand',
  claim: 'UpdateItemCommand',
  transaction: 'TransactWriteItemsCommand',
  batch: 'TransactWriteItemsCommand',
};

class ProcessCrashed extends Error {
  override readonly name = 'ProcessCrashed';
}

/** Clients of a process that dies right after `effect` is answered, or (`before`) just before it is sent. */
function crashingClients(endpoint: string, effect: string, moment: CrashMoment): CountedClients {
  let dead = false;
  const clients = countedClients(endpoint, (commandName) => {
    if (dead) throw new ProcessCrashed(`the process had died; ${commandName} was never sent`);
    if (commandName === effect) {
      dead = true;
      throw new ProcessCrashed(`the process died after ${commandName} was answered`);
    }
  });
  // Requests after the death fail before they are sent.
  clients.dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      if (moment === 'before' && context.commandName === effect) dead = true;
      if (dead) throw new ProcessCrashed(`the process had died; ${context.commandName} was never sent`);
      return next(args);
    },
    { step: 'initialize', name: 'deadProcess', priority: 'high' },
  );
  return clients;
}

/** Runs the crash and the redeliveries for one path, on its own fresh tables. */
export async function crashAndRedeliver(
  path: 'powertools' | 'transaction' | 'batch' | 'claim',
  endpoint: string,
  admin: DynamoDBClient,
  moment: CrashMoment = 'after',
): Promise<CrashResult> {
  const effect = EFFECT_REQUEST[path] as string;
  const tables = await createPathTables(admin, `crash-${path}-${randomUUID().slice(0, 8)}`);
  const aggregateIds = Array.from({ length: EVENTS[path] ?? 1 }, (_, i) => `crash-${path}-${i}`);
  const bodies = new Map(aggregateIds.map((aggregateId, i) => [`m-${i + 1}`, benchEnvelope(randomUUID(), aggregateId, 1)]));
  const records = (messageIds: Iterable<string>, receiveCount: number) =>
    [...messageIds].map((messageId) => sqsRecord(bodies.get(messageId) as string, messageId, receiveCount));

  const crashed = crashingClients(endpoint, effect, moment);
  const context = lambdaContext(CRASHED_INVOCATION_MS, 'crashed');
  const deadline = Date.now() + CRASHED_INVOCATION_MS;
  // The messages not acknowledged yet: SQS delivers them again.
  let unacknowledged = new Set(bodies.keys());
  try {
    const response = await pathHandler(path, crashed, tables)({ Records: records(unacknowledged, 1) }, context);
    unacknowledged = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  } catch {
    // The process died: no answer reached Lambda, so no message was acknowledged.
  } finally {
    crashed.destroy();
  }
  if (unacknowledged.size < bodies.size)
    throw new Error(`${path}: the crashed invocation acknowledged a message, so the crash was not injected`);

  let deliveries = 1;
  const fresh = countedClients(endpoint);
  try {
    while (unacknowledged.size > 0) {
      if (deliveries >= MAX_DELIVERIES) throw new Error(`${path}: no delivery of ${MAX_DELIVERIES} was acknowledged`);
      // SQS delivers again once the visibility timeout is over: after the crashed invocation's
      // timeout and after what it left in progress lapsed (a subscriber queue's visibility timeout
      // is longer than its function's and than the claims it takes).
      await untilPast(Math.max(deadline, await inProgressUntil(fresh, tables)), path);
      deliveries++;
      // Each redelivery reaches a new process: a new handler, as after a cold start.
      const handler = pathHandler(path, fresh, tables);
      const response = await handler({ Records: records(unacknowledged, deliveries) }, lambdaContext(30_000, `redelivery-${deliveries}`));
      unacknowledged = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    }
    const appliedPerEvent: number[] = [];
    for (const aggregateId of aggregateIds) {
      const { Item } = await fresh.document.send(
        new GetCommand({ TableName: tables.business, Key: counterKey(aggregateId), ConsistentRead: true }),
      );
      appliedPerEvent.push(Number(Item?.applied ?? 0));
    }
    return { path, applied: Math.max(...appliedPerEvent), appliedPerEvent, deliveries };
  } finally {
    fresh.destroy();
  }
}

/**
 * The epoch ms until which a dedup record the crashed invocation left is in progress: Powertools'
 * `in_progress_expiration` (ms), the inbox claim's `claimExpiresAt` (s); 0 when none is.
 */
async function inProgressUntil(clients: CountedClients, tables: { business: string; idempotency: string }): Promise<number> {
  let until = 0;
  for (const TableName of [tables.business, tables.idempotency]) {
    const { Items = [] } = await clients.document.send(new ScanCommand({ TableName, ConsistentRead: true }));
    for (const item of Items) {
      if (item.status !== 'INPROGRESS' && item.status !== 'IN_PROGRESS') continue;
      if (typeof item.in_progress_expiration === 'number') until = Math.max(until, item.in_progress_expiration);
      if (typeof item.claimExpiresAt === 'number') until = Math.max(until, item.claimExpiresAt * 1000);
    }
  }
  return until;
}

/** Resolves once the clock is past `epochMs`, checking every 20 ms; rejects after a minute. */
async function untilPast(epochMs: number, path: PathName): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  while (Date.now() <= epochMs) {
    if (Date.now() > giveUpAt) throw new Error(`${path}: the crashed invocation's records were still in progress after a minute`);
    await sleep(20);
  }
}
