import { defineConfig } from '../shared/config.js';
import { Outbox } from '../shared/write/index.js';
import { cpuPerCall, helperInput, inMemoryDocumentClient, requests } from './write-cost.js';

/*
 * Client-side CPU per call, side by side in alternating blocks, of the paths of bench/write.ts and
 * of another build of the write helper given by its module path (an earlier version, say):
 * tsx bench/write-compare.ts [other-writer-module…]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const BLOCK = Number(process.env.BLOCK ?? 300);
const BLOCKS = Number(process.env.BLOCKS ?? 15);
const config = defineConfig({ source: 'urn:bench:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const memory = inMemoryDocumentClient();
const sent = requests(new Outbox({ config, tableName: 'bench-write', client: memory }), 'bench-write', config);
const paths: Record<string, (id: string) => Promise<unknown>> = {
  same: (id) => sent.same(memory, id),
  helper: (id) => sent.helper(memory, id),
};
for (const [index, module] of process.argv.slice(2).entries()) {
  const other = (await import(module)) as { Outbox: new (options: unknown) => { write: (input: unknown) => Promise<unknown> } };
  const otherOutbox = new other.Outbox({ config, tableName: 'bench-write', client: memory });
  paths[`other${index + 1}`] = (id) => otherOutbox.write(helperInput(id));
}
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(paths).map((p) => [p, []]));
for (const [name, op] of Object.entries(paths)) await cpuPerCall(op, BLOCK * 3, `warm-${name}`);
for (let block = 0; block < BLOCKS; block++) {
  for (const [name, op] of Object.entries(paths)) samples[name]?.push(await cpuPerCall(op, BLOCK, `${name}-${block}`));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
// Each path's blocks against the helper's blocks of the same round: the machine's load moves both alike.
const ratio = (xs: number[]) => median(xs.map((x, i) => x / (samples.helper?.[i] ?? x)));
console.log(
  Object.entries(samples)
    .map(([name, xs]) => `${name} ${median(xs).toFixed(0)} µs${name === 'helper' ? '' : ` (${ratio(xs).toFixed(3)}× helper)`}`)
    .join(', '),
);
