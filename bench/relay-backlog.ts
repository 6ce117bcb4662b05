import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import type { OutboxConfig } from '../shared/config.js';
import type { SlotMessage } from '../shared/envelope.js';
import type { LocalClients } from '../shared/local/clients.js';
import { createOutboxTable } from '../shared/local/stack/table.js';
import { toLambdaRecord } from '../shared/on-failure/lambda-record.js';
import { decodeStreamRecord } from '../shared/relay/decode.js';
import { SLOT_KIND, slotKey } from '../shared/slot.js';
import { readStream } from '../test/helpers/stream.js';
import { inParallel } from './relay-paths.js';

/*
 * The events bench/relay.ts relays: one-event commits written straight into outbox slots, and the
 * messages a backlog of them holds, read back from the stream for the ceiling.
 */

const SOURCE = 'urn:bench:shop';

/** One commit of one event into the aggregate's outbox slot, in the slot format the write helper produces. */
export async function commit(document: DynamoDBDocumentClient, tableName: string, aggregateId: string, n: number): Promise<string> {
  const id = uuidv7();
  const now = new Date().toISOString();
  await document.send(
    new UpdateCommand({
      TableName: tableName,
      Key: slotKey({ type: 'order', id: aggregateId }),
      UpdateExpression:
        'SET events = :events, seq = if_not_exists(seq, :zero) + :one, createdAt = if_not_exists(createdAt, :now), ' +
        '#kind = :kind, aggregateType = :type, aggregateId = :id, #source = :source, expiresAt = :expiresAt',
      ExpressionAttributeNames: { '#kind': 'kind', '#source': 'source' },
      ExpressionAttributeValues: {
        ':events': [{ id, type: 'order.changed', time: now, data: JSON.stringify({ n, total: 4200, currency: 'EUR' }) }],
        ':zero': 0,
        ':one': 1,
        ':now': now,
        ':kind': SLOT_KIND,
        ':type': 'order',
        ':id': aggregateId,
        ':source': SOURCE,
        ':expiresAt': Math.floor(Date.now() / 1000) + 3600,
      },
    }),
  );
  return id;
}

/** Writes `count` one-event commits over `aggregates` aggregates into a new table; returns its stream. */
export async function backlog(clients: LocalClients, tableName: string, count: number, aggregates: number): Promise<string> {
  const { streamArn } = await createOutboxTable(clients.dynamodb, tableName);
  await inParallel(32, count, async (i) => {
    await commit(clients.document, tableName, `o-${i % aggregates}`, i);
  });
  return streamArn;
}

/** Every message of the backlog, read straight from the stream and decoded, for the ceiling. */
export async function backlogMessages(clients: LocalClients, streamArn: string, cfg: OutboxConfig): Promise<SlotMessage[]> {
  const messages: SlotMessage[] = [];
  for (const record of await readStream(clients.streams, streamArn)) {
    const decoded = decodeStreamRecord(toLambdaRecord(record, streamArn), cfg);
    if (decoded.status === 'decoded') messages.push(...decoded.messages);
  }
  return messages;
}
