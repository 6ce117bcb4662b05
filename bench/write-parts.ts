import { defineConfig } from '../shared/config.js';
import { localClients } from '../shared/local/clients.js';
import { startDynamoDbLocal } from '../shared/local/stack/dynamodb-local.js';
import { createOutboxTable } from '../shared/local/stack/table.js';
import { PARTS, partLatencies } from './write-request-parts.js';

/*
 * What each part of the write helper's request costs DynamoDB Local (bench/write-request-parts.ts),
 * sequential and 16-way, printed as p50 latencies and ratios to the bare transaction and to the
 * whole request. Run: npx tsx bench/write-parts.ts (BENCH_OPERATIONS calls per variant, default 2000)
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const ddb = await startDynamoDbLocal();
const clients = localClients({ dynamodb: ddb.endpoint });
try {
  await createOutboxTable(clients.dynamodb, 'bench-write-parts');
  const config = defineConfig({ source: 'urn:bench:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
  const count = Number(process.env.BENCH_OPERATIONS ?? 2000);
  for (const concurrency of [1, 16]) {
    const p50 = await partLatencies(clients, 'bench-write-parts', config, { count, block: 100, concurrency });
    const cells = PARTS.map(
      (part) =>
        `${part} ${p50[part].toFixed(2)} ms (${(p50[part] / p50.bare).toFixed(3)}× bare, ${(p50[part] / p50.same).toFixed(3)}× same)`,
    );
    console.log(`concurrency ${concurrency}: ${cells.join('; ')}`);
  }
} finally {
  clients.destroy();
  await ddb.stop();
}
