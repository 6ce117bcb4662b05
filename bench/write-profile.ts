import { defineConfig } from '../shared/config.js';
import { Outbox } from '../shared/write/index.js';
import { inMemoryDocumentClient, requests } from './write-cost.js';

/*
 * The client-side paths of bench/write.ts (the helper, and the same request built by hand), run
 * in memory for a CPU profile: node --cpu-prof --import tsx bench/write-profile.ts [helper|same] [calls]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const path = (process.argv[2] ?? 'helper') as 'helper' | 'same' | 'bare' | 'plan';
const calls = Number(process.argv[3] ?? 5000);
const config = defineConfig({ source: 'urn:bench:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const memory = inMemoryDocumentClient();
const sent = requests(new Outbox({ config, tableName: 'bench-write', client: memory }), 'bench-write', config);
const start = process.cpuUsage();
for (let i = 0; i < calls; i++) await sent[path](memory, `${path}-${i}`);
const used = process.cpuUsage(start);
console.log(`${path}: ${((used.user + used.system) / calls).toFixed(0)} µs CPU per call over ${calls} calls`);
