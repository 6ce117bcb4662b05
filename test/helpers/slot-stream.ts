import { type _Record, DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import type { LocalClients } from '../../shared/local/clients.js';
import type { SlotEvent } from '../../shared/slot.js';
import { TEST_EPOCH, TEST_SOURCE } from './envelopes.js';

/** Writes an outbox slot the way the write helper leaves it after a commit of `types.length` events. */
export async function writeSlot(
  clients: LocalClients,
  tableName: string,
  aggregate: { type: string; id: string },
  types: readonly string[],
  seq = types.length,
): Promise<SlotEvent[]> {
  const events = types.map((type, i) => ({ id: uuidv7(), type, time: new Date().toISOString(), data: JSON.stringify({ n: i }) }));
  await clients.document.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        pk: `OUTBOX#${aggregate.type}#${aggregate.id}`,
        sk: 'OUTBOX',
        kind: 'outbox-slot',
        aggregateType: aggregate.type,
        aggregateId: aggregate.id,
        source: TEST_SOURCE,
        seq,
        createdAt: TEST_EPOCH,
        events,
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      },
    }),
  );
  return events;
}

/** Every record on the table's stream so far, with its shard. */
export async function streamRecords(clients: LocalClients, streamArn: string): Promise<{ shardId: string; records: _Record[] }> {
  const { StreamDescription } = await clients.streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const shardId = StreamDescription?.Shards?.[0]?.ShardId;
  if (shardId === undefined) throw new Error(`Stream ${streamArn} has no shard`);
  const { ShardIterator } = await clients.streams.send(
    new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
  );
  const records: _Record[] = [];
  let iterator = ShardIterator;
  for (let page = 0; iterator !== undefined && page < 10; page++) {
    const result = await clients.streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
    if ((result.Records ?? []).length === 0) break;
    records.push(...(result.Records ?? []));
    iterator = result.NextShardIterator;
  }
  return { shardId, records };
}
