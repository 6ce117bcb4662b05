import { loadavg } from 'node:os';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import { streamsClient } from '../shared/aws/streams-client.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localClients } from '../shared/local/clients.js';
import { startDynamoDbLocal } from '../shared/local/stack/dynamodb-local.js';
import { createOutboxTable } from '../shared/local/stack/table.js';
import { SLOT_KIND, slotKey } from '../shared/slot.js';
import { machine, percentile, recordSection } from './report.js';

/*
 * Reading a stream: the CPU a reader spends per `GetRecords` page of outbox slots with the SDK's
 * plain `DynamoDBStreamsClient` and with the project's `streamsClient` (records and attribute values
 * read straight from the JSON, no copies built for an absent logger), side by side on the same
 * pages. Both the stream processor and the local event-source-mapping runner read this way.
 * Run: npm run bench:decode
 */
const RECORDS = 5_000;
const PASSES = 10;

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const ddb = await startDynamoDbLocal();
const local = localClients({ dynamodb: ddb.endpoint });
const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: ddb.endpoint };
const readers = { plain: new DynamoDBStreamsClient(common), project: streamsClient(common) };
try {
  const tableName = 'bench-decode';
  const { streamArn } = await createOutboxTable(local.dynamodb, tableName);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < RECORDS) {
        const i = next++;
        const now = new Date().toISOString();
        const id = `o-${i % 1000}`;
        await local.document.send(
          new UpdateCommand({
            TableName: tableName,
            Key: slotKey({ type: 'order', id }),
            UpdateExpression:
              'SET events = :events, seq = if_not_exists(seq, :zero) + :one, createdAt = if_not_exists(createdAt, :now), ' +
              '#kind = :kind, aggregateType = :type, aggregateId = :id, #source = :source, expiresAt = :expiresAt',
            ExpressionAttributeNames: { '#kind': 'kind', '#source': 'source' },
            ExpressionAttributeValues: {
              ':events': [{ id: uuidv7(), type: 'order.changed', time: now, data: JSON.stringify({ i, total: 4200, currency: 'EUR' }) }],
              ':zero': 0,
              ':one': 1,
              ':now': now,
              ':kind': SLOT_KIND,
              ':type': 'order',
              ':id': id,
              ':source': 'urn:bench:decode',
              ':expiresAt': Math.floor(Date.now() / 1000) + 3600,
            },
          }),
        );
      }
    }),
  );
  const { StreamDescription } = await local.streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const shardId = StreamDescription?.Shards?.[0]?.ShardId;

  /** Reads the whole shard; returns the reader's CPU time in ms (DynamoDB Local's own time is in its process). */
  const readShard = async (client: DynamoDBStreamsClient): Promise<number> => {
    let { ShardIterator } = await client.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    const before = process.cpuUsage();
    let read = 0;
    while (ShardIterator !== undefined) {
      const page = await client.send(new GetRecordsCommand({ ShardIterator, Limit: 1000 }));
      const records = page.Records ?? [];
      if (records.length === 0) break;
      read += records.length;
      ShardIterator = page.NextShardIterator;
    }
    if (read !== RECORDS) throw new Error(`read ${read} records; expected ${RECORDS}`);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };

  const cpu = { plain: [] as number[], project: [] as number[] };
  await readShard(readers.plain);
  await readShard(readers.project);
  for (let pass = 0; pass < PASSES; pass++) {
    // Alternate which goes first, so a change of load weighs on both alike.
    const order = pass % 2 === 0 ? (['plain', 'project'] as const) : (['project', 'plain'] as const);
    for (const name of order) cpu[name].push(await readShard(readers[name]));
  }
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const perThousand = (name: 'plain' | 'project') => (median(cpu[name]) / RECORDS) * 1000;
  const ratio = median(cpu.project) / median(cpu.plain);
  const table = [
    '| reader | CPU per 1,000 records (ms, median of passes) | relative |',
    '| --- | ---: | ---: |',
    `| \`DynamoDBStreamsClient\` (SDK defaults) | ${perThousand('plain').toFixed(0)} | 1.00 |`,
    `| \`streamsClient\` (project) | ${perThousand('project').toFixed(0)} | **${ratio.toFixed(2)}** |`,
  ].join('\n');
  console.log(table);
  recordSection(
    'Stream reading: GetRecords decoding',
    `Command: \`npm run bench:decode\` — ${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadavg()[0]?.toFixed(1)} at the end, DynamoDB Local in memory.

${RECORDS} outbox-slot records (one event each) read from DynamoDB Local's stream in \`GetRecords\` pages of 1,000,
${PASSES} passes per reader, the two readers alternating which goes first. The figure is the reading process's own
CPU (request, response parsing, decoding), not DynamoDB Local's. The stream processor and the local
event-source-mapping runner read with \`streamsClient\`; an integration test (\`test/integration/streams-client.test.ts\`)
shows it returns exactly what the plain client returns, every kind of attribute value included.

${table}`,
  );
} finally {
  readers.plain.destroy();
  readers.project.destroy();
  local.destroy();
  await ddb.stop();
}
