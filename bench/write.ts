import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { defineConfig } from '../shared/config.js';
import { localClients } from '../shared/local/clients.js';
import { startDynamoDbLocal } from '../shared/local/stack/dynamodb-local.js';
import { createOutboxTable } from '../shared/local/stack/table.js';
import { Outbox } from '../shared/write/index.js';
import { machine, percentile, recordSection } from './report.js';
import { businessItem, cpuPerCall, inMemoryDocumentClient, requests } from './write-cost.js';
import { pickupCpuNs, type TracingPath, tracingCpu } from './write-tracing.js';

/*
 * Write helper (business put + one event, one TransactWriteItems) against a plain PutItem of
 * the same business item, against the floor of any transactional outbox (a bare
 * TransactWriteItems of the same two items as plain Puts, no helper) and against the very
 * request the helper sends, built by hand. All four run on one DynamoDB Local in alternating
 * blocks so they see the same machine conditions. Then the client side alone: CPU per call
 * with a transport that answers in memory, by component.
 * Run: npm run bench:write
 */
const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 2000);
const BLOCK = 100;
const WARMUP = 300;
/** Calls per block and blocks per path of the client-side CPU measurement. */
const CPU_BLOCK = 300;
const CPU_BLOCKS = 15;

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const ddb = await startDynamoDbLocal();
const clients = localClients({ dynamodb: ddb.endpoint });
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const f = (x: number) => x.toFixed(2);
try {
  const tableName = 'bench-write';
  await createOutboxTable(clients.dynamodb, tableName);
  const config = defineConfig({ source: 'urn:bench:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
  const outbox = new Outbox({ config, tableName, client: clients.document });
  const sent = requests(outbox, tableName, config);
  let n = 0;
  const paths = {
    plain: async () => {
      await clients.document.send(new PutCommand({ TableName: tableName, Item: businessItem(`p-${n++}`) }));
    },
    bare: async () => {
      await sent.bare(clients.document, `t-${n++}`);
    },
    same: async () => {
      await sent.same(clients.document, `s-${n++}`);
    },
    helper: async () => {
      await sent.helper(clients.document, `h-${n++}`);
    },
  };
  type Path = keyof typeof paths;

  /** Latencies (ms) of `count` calls of `op`, `concurrency` at a time. */
  const measure = async (op: () => Promise<void>, count: number, concurrency: number): Promise<number[]> => {
    const latencies: number[] = [];
    let issued = 0;
    const worker = async () => {
      while (issued < count) {
        issued++;
        const start = performance.now();
        await op();
        latencies.push(performance.now() - start);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return latencies;
  };

  for (const op of Object.values(paths)) await measure(op, WARMUP, 4);

  const rows: string[] = [];
  const lines: string[] = [];
  const verdicts: string[] = [];
  /** same/bare per mode, sequential first: DynamoDB's share, which bounds helper/bare. */
  const sameVsBareByMode: number[] = [];
  for (const concurrency of [1, 16]) {
    const results: Record<Path, number[]> = { plain: [], bare: [], same: [], helper: [] };
    for (let done = 0; done < OPERATIONS; done += BLOCK) {
      for (const path of Object.keys(paths) as Path[]) results[path].push(...(await measure(paths[path], BLOCK, concurrency)));
    }
    const p = (path: Path, q: number) =>
      percentile(
        [...results[path]].sort((a, b) => a - b),
        q,
      );
    const vsPut = p('helper', 50) / p('plain', 50);
    const floor = p('bare', 50) / p('plain', 50);
    const vsBare = p('helper', 50) / p('bare', 50);
    const sameVsBare = p('same', 50) / p('bare', 50);
    sameVsBareByMode.push(sameVsBare);
    const vsSame = p('helper', 50) / p('same', 50);
    const label = concurrency === 1 ? 'sequential' : `${concurrency}-way concurrent`;
    const cell = (path: Path) => `${f(p(path, 50))} / ${f(p(path, 99))}`;
    rows.push(
      `| ${label} | ${cell('plain')} | ${cell('bare')} | ${cell('same')} | ${cell('helper')} | ${f(vsPut)} | ${f(floor)} | **${f(vsBare)}** | ${f(sameVsBare)} | ${f(vsSame)} |`,
    );
    verdicts.push(
      `${label}: helper/bare **${f(vsBare)}** (target ≤ 1.10: ${vsBare <= 1.1 ? 'met' : 'not met'}) = same/bare ${f(sameVsBare)} × helper/same ${f(vsSame)}`,
    );
    lines.push(
      `${label}: p50 PutItem ${f(p('plain', 50))} ms, bare ${f(p('bare', 50))} ms, same request by hand ${f(p('same', 50))} ms, helper ${f(p('helper', 50))} ms; helper/bare ${f(vsBare)} (target ≤ 1.10: ${vsBare <= 1.1 ? 'met' : 'not met'}), same/bare ${f(sameVsBare)}, helper/same ${f(vsSame)}`,
    );
  }

  // The client side alone: the same requests through a DocumentClient answered in memory.
  const memory = inMemoryDocumentClient();
  const inMemory = requests(new Outbox({ config, tableName, client: memory }), tableName, config);
  const cpuPaths = ['bare', 'same', 'helper', 'plan'] as const;
  const cpu: Record<(typeof cpuPaths)[number], number[]> = { bare: [], same: [], helper: [], plan: [] };
  for (const path of cpuPaths) await cpuPerCall((id) => inMemory[path](memory, id), WARMUP * 3, `warm-${path}`);
  for (let block = 0; block < CPU_BLOCKS; block++) {
    for (const path of cpuPaths) cpu[path].push(await cpuPerCall((id) => inMemory[path](memory, id), CPU_BLOCK, `${path}-${block}`));
  }
  const us = (path: (typeof cpuPaths)[number]) => median(cpu[path]);
  // The trace pickup: each path's blocks alternate with the others'; `none` is the helper's path with no OpenTelemetry and no X-Ray header.
  const traced = await tracingCpu((id) => inMemory.helper(memory, id), CPU_BLOCK, CPU_BLOCKS);
  const traceRatio = (path: TracingPath) => (traced[path] / traced.none).toFixed(2);
  const pickupNs = pickupCpuNs();
  const tracingLine = `trace pickup, helper CPU per call (µs): no OpenTelemetry ${traced.none.toFixed(0)}, X-Ray header ${traced.xray.toFixed(0)} (${traceRatio('xray')}×), active OpenTelemetry span ${traced.otel.toFixed(0)} (${traceRatio('otel')}×); pickup alone without OpenTelemetry ${pickupNs.toFixed(0)} ns; without OpenTelemetry, helper (${us('helper').toFixed(0)}) against the tracing blocks' no-OpenTelemetry path (${traced.none.toFixed(0)}): ${(traced.none / us('helper')).toFixed(2)}×`;
  const cpuLine = `client CPU per call (µs, median of ${CPU_BLOCKS} blocks): bare ${us('bare').toFixed(0)}, same request by hand ${us('same').toFixed(0)}, helper ${us('helper').toFixed(0)} (planning alone ${us('plan').toFixed(0)}); helper/bare ${(us('helper') / us('bare')).toFixed(2)}`;
  console.log([...lines, cpuLine, tracingLine].join('\n'));
  recordSection(
    'Write helper vs PutItem',
    `Command: \`npm run bench:write\` — ${new Date().toISOString().slice(0, 10)}, ${machine()}, DynamoDB Local in memory.

The write helper commits a business \`Put\` plus one event (one \`TransactWriteItems\`: the business item
and the aggregate's conditional outbox-slot write) against a plain \`PutItem\` of the same business item,
against the floor of any transactional outbox (a bare \`TransactWriteItems\` of the same two items as
plain \`Put\`s, without the helper), and against the very request the helper sends, built by hand (the business
\`Put\` and the slot's \`Put\` conditional on no slot there, under a \`ClientRequestToken\`, with
\`ReturnValuesOnConditionCheckFailure\`). ${OPERATIONS} operations each, in alternating blocks of ${BLOCK} after a
warm-up; latencies in ms as p50 / p99; ratios of p50s. Targets: helper/PutItem ≤ 1.6; helper/bare ≤ 1.10.

| mode | PutItem | bare transaction | same request by hand | helper | helper/PutItem | bare/PutItem (floor) | helper/bare | same/bare (DynamoDB's share) | helper/same (the helper's client side) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

Client side alone, CPU per call (process CPU, user + system, not wall time), through a DocumentClient whose
transport answers every request at once in memory, so no DynamoDB work is in it: ${CPU_BLOCKS} alternating blocks of ${CPU_BLOCK} calls
per path, median of the blocks.

| bare transaction (µs) | same request by hand (µs) | helper (µs) | of which planning: validation, ids, sizing, marshalling (µs) | helper/bare |
| ---: | ---: | ---: | ---: | ---: |
| ${us('bare').toFixed(0)} | ${us('same').toFixed(0)} | ${us('helper').toFixed(0)} | ${us('plan').toFixed(0)} | ${(us('helper') / us('bare')).toFixed(2)} |

Trace pickup (docs/write-helper.md, "Tracing"), the same client-side CPU per call of the helper, each path in
alternating blocks: no OpenTelemetry global and no X-Ray header (what a user without either runs), the Lambda X-Ray
header set, and an active OpenTelemetry span under an AsyncLocalStorage context manager (registered for its blocks only).

| no OpenTelemetry, no X-Ray (µs) | X-Ray header (µs) | active OpenTelemetry span (µs) | X-Ray / none | OpenTelemetry / none |
| ---: | ---: | ---: | ---: | ---: |
| ${traced.none.toFixed(0)} | ${traced.xray.toFixed(0)} | ${traced.otel.toFixed(0)} | ${traceRatio('xray')} | ${traceRatio('otel')} |

Without OpenTelemetry the pickup is one lookup of OpenTelemetry's global symbol and one read of \`_X_AMZN_TRACE_ID\`;
nothing is imported. That pickup alone costs ${pickupNs.toFixed(0)} ns of CPU per write (a million calls timed), ${((pickupNs / 1000 / traced.none) * 100).toFixed(2)} % of the
helper's client side. The "no OpenTelemetry" path above is the same code as the helper column of the table before,
measured in other blocks: ${traced.none.toFixed(0)} µs against ${us('helper').toFixed(0)} µs.

${verdicts.map((v) => `- ${v}`).join('\n')}

One run's verdict is no evidence here: it moves between runs by more than the target's margin on this shared
machine. Four runs on 2026-11-30 (the build that skips the SDK's log filter, below; the last is the one above) gave
helper/bare 1.13, 1.05, 1.14 and 1.16 sequentially, 1.12, 1.10, 0.99 and 1.10 16-way: DynamoDB's share same/bare
moved 1.03–1.12 and 1.03–1.16 across them, the helper's client side helper/same 1.02–1.09 and 0.95–0.98. Two runs
on 2026-11-28 gave helper/bare 1.14 and 1.10 sequentially, 1.20 and 1.09 16-way, and the second
run's client code was no cheaper: side by side (\`bench/write-compare.ts\`, three runs) the first run's build took
0.97–1.05× the second's CPU per call, within what two copies of one build differ by (1.02–1.05×), and the helper took
1.16–1.19× the same request by hand's CPU per call in those runs.

What bounds the ratio: same/bare is DynamoDB's work on the request an outbox with exact sequences needs (the slot's
condition, the token that makes a retried attempt safe, the slot's attributes the relay reads); no helper that keeps
those sends less. \`npx tsx bench/write-parts.ts\` sends that request with each part taken out in turn, and with other
forms of the slot's condition, side by side (six runs on 2026-11-28, this machine, shared): only the slot's condition
cost DynamoDB Local every time (the request without it took 0.70–0.98× as long); the token,
\`ReturnValuesOnConditionCheckFailure\` and the slot's attributes for the relay moved within the runs' noise (0.82–1.20×).
None can go: the condition is what makes sequences exact, the token what makes the SDK's retries safe,
\`ReturnValuesOnConditionCheckFailure\` how a write learns a raced slot and replays a key (on AWS, returning the item
costs nothing extra), and the relay reads the attributes. Nor is another form of the condition cheaper: on the key
(\`attribute_not_exists(pk)\`, equivalent since every slot item has its \`seq\`) it took 0.90–1.26× as long as the
helper's \`attribute_not_exists(#seq)\` sequentially and 0.80–1.03× 16-way, with \`seq\` named inline instead of
through \`ExpressionAttributeNames\` 0.90–1.22× and 0.80–1.16× (three runs); a \`ConditionCheck\` beside the
slot's \`Put\` is refused (one transaction cannot hold two actions on one item). helper/same is the client side: the
SDK's own work per request (${us('same').toFixed(0)} µs of CPU for the same request through the DocumentClient) against
the helper's planning (${us('plan').toFixed(0)} µs measured alone: validation, ids, sizing, and the one marshalling of
the attribute values, after which the helper sends a low-level \`TransactWriteItems\` and the DocumentClient does not
marshal them again) and the rest (helper − same − planning = ${(us('helper') - us('same') - us('plan')).toFixed(0)} µs,
net of the DocumentClient's marshalling the helper no longer pays). Nor does the helper pay the SDK's log filter: the
SDK's logger middleware walks and copies every request and answer by the command's schema for the client's logger, a
client without one included (its logger drops them), 20–28 µs of CPU per call in the profiles; DynamoDB's API marks no
member sensitive, so the helper hands the logger the request as it is (docs/write-helper.md), and the build before
that took 1.04–1.14× this one's CPU per call side by side (\`bench/write-compare.ts\`, two runs on the quiet machine,
2026-11-30; two runs while other processes ran tests gave 0.97–0.98×, within that load's noise). The
rest is not the watch of the SDK's attempts:
the SDK copies and resolves a command's whole middleware stack on every send, and the helper's three entries add to
that about what the DocumentClient's own command adds with its two; builds of the helper without the watch (none of
its entries, the marshalled request as the command's input; or only the entry that swaps in the marshalled request)
took 0.96–1.05× the helper's CPU per call side by side in two runs (\`bench/write-compare.ts\`, 2026-11-28), about
what two copies of one build differ by there (1.02–1.05×): a few % at most. A CPU
profile (\`bench/write-profile.ts\` under \`node --cpu-prof\`) spreads it over the helper's own code: the checks of
the attribute values and of the events (their JSON, their envelope's size under the SNS limit), the slot's size, the
event ids, and per attempt the request's assembly (the slot write and its marshalling, the written events, the
token), no function above about 15 µs of CPU per call; planning in place costs more than in the warm loop that
measures it alone. Those checks are what refuses a write that cannot commit before anything is sent, and the common
case takes their short paths (a scalar attribute value is not walked, a slot is sized without being marshalled).
So helper/bare = same/bare × helper/same: with same/bare (DynamoDB's share) as measured above, 1.10 leaves the client
side ${f(1.1 / (sameVsBareByMode[0] ?? 1))}× sequentially and ${f(1.1 / (sameVsBareByMode[1] ?? 1))}× 16-way, against the
${f(us('helper') / us('same'))}× of client CPU per call measured here.

Why helper/same is larger 16-way than sequentially: \`npx tsx bench/write-concurrency.ts\` splits each call's
time, side by side with the same request by hand. The helper's extra time is spent waiting on DynamoDB Local (in the
transport), not before the request leaves or after its answer; each call sends one HTTP request (no retries); the 16
calls write 16 different aggregates, so no write waits on another's slot; its GC pauses were no longer (6 runs of 7).
What differs is the client's CPU per call, which with a real transport is 2–3 times the in-memory figure on this shared
machine (2.8–3.6 ms per call for the same request by hand, 0.2–0.9 ms more for the helper, seven runs on 2026-11-28),
while DynamoDB Local and the client share the 2 cores. The ratio itself is as wide as the noise there: seven runs gave
helper/same 0.93–1.24, and the same request after 150 µs of busy CPU (the script's \`spin\` path) 0.88–1.19× the
same request in three. A 16-way ratio on this machine measures the client's CPU against a database on the same cores
as much as the helper; the planning and the bookkeeping above are what the helper adds to it.

Scripts: \`bench/write.ts\` (this section), \`bench/write-parts.ts\` (DynamoDB Local's cost of each part and form of
the request, over \`bench/write-request-parts.ts\`), \`bench/write-concurrency.ts\` (where a concurrent call's time goes),
\`bench/write-compare.ts\` (client CPU per call against another build of the helper, given by its module path) and
\`bench/write-profile.ts\` (the client-side paths in memory, for \`node --cpu-prof\`); \`bench/write-cost.ts\` and
\`bench/write-tracing.ts\` hold the requests and the trace-pickup measurement they share.
On a loaded machine, every µs of CPU weighs more in the latency.

DynamoDB Local implements \`TransactWriteItems\` far more slowly than \`PutItem\` (see the floor column:
a bare two-item transaction alone exceeds 1.6× here), and it serialises transactions, so the
concurrent ratio grows. The helper's request costs DynamoDB a little more than two plain \`Put\`s (the
same/bare column: the condition, the token, the slot's few more attributes); the helper's own share is
the last column. The slot is written as a conditional \`Put\` of the whole item wherever the helper knows it
(a new slot, or one whose sequence and creation time it saw): as an update expression it cost DynamoDB Local
about a tenth more per transaction.`,
  );
} finally {
  clients.destroy();
  await ddb.stop();
}
