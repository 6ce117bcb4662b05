import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import type { OutboxConfig } from '../../shared/config.js';
import { SLOT_KIND, slotKey } from '../../shared/slot.js';
import { Outbox } from '../../shared/write/index.js';

export interface CommittedEvent {
  readonly id: string;
  readonly type: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly sequence: number;
}

export type EventWriter = (
  aggregate: { readonly type: string; readonly id: string },
  events: readonly { readonly type: string; readonly data: unknown }[],
) => Promise<CommittedEvent[]>;

/** Commits events for one aggregate through the write helper, one transaction per call. */
export function eventWriter(document: DynamoDBDocumentClient, tableName: string, config: OutboxConfig): EventWriter {
  const outbox = new Outbox({ config, tableName, client: document });
  return async (aggregate, events) => {
    const result = await outbox.write({ events: events.map((e) => ({ aggregate, type: e.type, data: e.data })) });
    return result.events.map((e) => ({
      id: e.id,
      type: e.type,
      aggregateType: e.aggregate.type,
      aggregateId: e.aggregate.id,
      sequence: e.sequence,
    }));
  };
}

/**
 * Commits events straight into the aggregate's slot, bypassing the write helper's validation,
 * as a writer of another version might: the relay must cope with what the helper would refuse.
 */
export async function commitRawSlot(
  document: DynamoDBDocumentClient,
  tableName: string,
  aggregate: { readonly type: string; readonly id: string },
  events: readonly { readonly type: string; readonly data: unknown }[],
  source = 'urn:test:relay',
): Promise<CommittedEvent[]> {
  const now = new Date().toISOString();
  const stored = events.map((e) => ({ id: uuidv7(), type: e.type, time: now, data: JSON.stringify(e.data) }));
  const { Attributes } = await document.send(
    new UpdateCommand({
      TableName: tableName,
      Key: slotKey(aggregate),
      UpdateExpression:
        'SET events = :events, seq = if_not_exists(seq, :zero) + :n, createdAt = if_not_exists(createdAt, :now), ' +
        '#kind = :kind, aggregateType = :type, aggregateId = :id, #source = :source, expiresAt = :expiresAt',
      ExpressionAttributeNames: { '#kind': 'kind', '#source': 'source' },
      ExpressionAttributeValues: {
        ':events': stored,
        ':zero': 0,
        ':n': stored.length,
        ':now': now,
        ':kind': SLOT_KIND,
        ':type': aggregate.type,
        ':id': aggregate.id,
        ':source': source,
        ':expiresAt': Math.floor(Date.now() / 1000) + 3600,
      },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const seq = Attributes?.seq as number;
  return stored.map((e, i) => ({
    id: e.id,
    type: e.type,
    aggregateType: aggregate.type,
    aggregateId: aggregate.id,
    sequence: seq - stored.length + 1 + i,
  }));
}

/** Runs `tasks` with at most `limit` in flight. */
export async function inParallel<T>(limit: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
