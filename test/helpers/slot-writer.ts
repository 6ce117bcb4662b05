import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import { SLOT_KIND, slotKey } from '../../shared/slot.js';

export interface CommittedEvent {
  readonly id: string;
  readonly type: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly sequence: number;
}

/**
 * Commits events for one aggregate the way the outbox slot format prescribes: one update of
 * the aggregate's slot per commit, `seq` advanced by the number of events.
 */
export async function commitEvents(
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
