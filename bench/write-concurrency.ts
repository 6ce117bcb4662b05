import { type EntryType, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { HttpHandlerOptions, HttpRequest } from '@smithy/types';
import { defineConfig } from '../shared/config.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../shared/local/clients.js';
import { startDynamoDbLocal } from '../shared/local/stack/dynamodb-local.js';
import { createOutboxTable } from '../shared/local/stack/table.js';
import { Outbox } from '../shared/write/index.js';
import { percentile } from './report.js';
import { requests } from './write-cost.js';

/*
 * Where a call of the write helper spends its time under concurrency, against the same request
 * built by hand (bench/write-cost.ts `same`), in alternating blocks on one DynamoDB Local: the
 * p50 of the time before the request reaches the transport, in the transport (DynamoDB Local,
 * its queue and the socket) and after; HTTP requests per call (an SDK or helper retry shows as
 * more than 1); event-loop utilisation and delay; process CPU (user + system, all threads, GC
 * included) per call; GC pauses. `spin N` is the same request after N µs of busy CPU on the
 * client first: what N µs more of client CPU per call costs in latency at this concurrency.
 * Run: npx tsx bench/write-concurrency.ts [concurrency=16] (BENCH_OPERATIONS calls per path, default 1000)
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const CONCURRENCY = Number(process.argv[2] ?? 16);
const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 1000);
const BLOCK = 100;
const SPIN_US = [150];

/** Busy CPU for about `us` µs: a fixed loop, sized once against process CPU. */
const spinner = (() => {
  let sink = 0;
  const loop = (n: number) => {
    for (let i = 0; i < n; i++) sink = (sink + i * 31) % 1_000_003;
  };
  const probe = 20_000_000;
  const start = process.cpuUsage();
  loop(probe);
  const used = process.cpuUsage(start);
  const perUs = probe / (used.user + used.system);
  return (us: number) => loop(Math.round(us * perUs));
})();

/** When each call's request entered and left the transport, by the call's id (found in the body). */
const spans = new Map<string, { start: number; end: number }>();
let httpRequests = 0;
const transport = new NodeHttpHandler();
const timed = {
  handle: async (request: HttpRequest, options?: HttpHandlerOptions) => {
    httpRequests++;
    const body = request.body as Uint8Array | string;
    // Read as bytes: the SDK's JSON body is a Uint8Array whose string methods it warns about.
    const id = /ORDER#([a-z0-9]+-\d+)/.exec(typeof body === 'string' ? body : new TextDecoder().decode(body))?.[1];
    const start = performance.now();
    const response = await transport.handle(request as never, options);
    if (id !== undefined) spans.set(id, { start, end: performance.now() });
    return response;
  },
  updateHttpClientConfig: () => {},
  httpHandlerConfigs: () => ({}),
  destroy: () => transport.destroy(),
};

const ddb = await startDynamoDbLocal();
const base = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: ddb.endpoint, requestHandler: timed });
const document = DynamoDBDocumentClient.from(base);
try {
  const tableName = 'bench-write-concurrency';
  await createOutboxTable(base, tableName);
  const config = defineConfig({ source: 'urn:bench:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
  const sent = requests(new Outbox({ config, tableName, client: document }), tableName, config);
  const paths: Record<string, (id: string) => Promise<unknown>> = {
    same: (id) => sent.same(document, id),
    helper: (id) => sent.helper(document, id),
    ...Object.fromEntries(
      SPIN_US.map((us) => [
        `spin ${us}`,
        (id: string) => {
          spinner(us);
          return sent.same(document, id);
        },
      ]),
    ),
  };
  type Samples = { total: number[]; before: number[]; transport: number[]; after: number[]; elu: number[]; delay: number[] };
  const samples = Object.fromEntries(
    Object.keys(paths).map((path) => [path, { total: [], before: [], transport: [], after: [], elu: [], delay: [] } as Samples]),
  );
  const counts = Object.fromEntries(Object.keys(paths).map((path) => [path, { http: 0, cpu: 0, gcs: 0, gcMs: 0 }]));
  let current: string | undefined;
  new PerformanceObserver((list) => {
    const into = current === undefined ? undefined : counts[current];
    if (into === undefined) return;
    for (const entry of list.getEntries()) {
      into.gcs++;
      into.gcMs += entry.duration;
    }
  }).observe({ entryTypes: ['gc' as EntryType] });

  let n = 0;
  const run = async (path: string, count: number, record: boolean) => {
    const op = paths[path] as (id: string) => Promise<unknown>;
    const into = samples[path] as Samples;
    const tally = counts[path] as (typeof counts)[string];
    current = record ? path : undefined;
    const requestsBefore = httpRequests;
    const elu = performance.eventLoopUtilization();
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const cpu = process.cpuUsage();
    let issued = 0;
    const worker = async () => {
      while (issued < count) {
        issued++;
        const id = `${path.replace(/\W/g, '')}-${n++}`;
        const start = performance.now();
        await op(id);
        const end = performance.now();
        const span = spans.get(id);
        spans.delete(id);
        if (!record || span === undefined) continue;
        into.total.push(end - start);
        into.before.push(span.start - start);
        into.transport.push(span.end - span.start);
        into.after.push(end - span.end);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    delay.disable();
    current = undefined;
    if (!record) return;
    const used = process.cpuUsage(cpu);
    tally.cpu += used.user + used.system;
    tally.http += httpRequests - requestsBefore;
    into.elu.push(performance.eventLoopUtilization(elu).utilization);
    into.delay.push(delay.percentile(99) / 1e6);
  };

  for (const path of Object.keys(paths)) await run(path, BLOCK * 3, false);
  for (let done = 0; done < OPERATIONS; done += BLOCK) for (const path of Object.keys(paths)) await run(path, BLOCK, true);

  const p50 = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const same = p50((samples.same as Samples).total);
  for (const [path, s] of Object.entries(samples)) {
    const c = counts[path] as (typeof counts)[string];
    const calls = s.total.length;
    console.log(
      `${path} (${CONCURRENCY}-way): p50 ${p50(s.total).toFixed(2)} ms (${(p50(s.total) / same).toFixed(2)}× same) = ` +
        `before ${p50(s.before).toFixed(2)} + transport ${p50(s.transport).toFixed(2)} + after ${p50(s.after).toFixed(2)} ms; ` +
        `HTTP requests per call ${(c.http / calls).toFixed(3)}; event-loop utilisation ${p50(s.elu).toFixed(2)}, ` +
        `delay p99 ${p50(s.delay).toFixed(1)} ms; CPU ${(c.cpu / calls).toFixed(0)} µs per call; GC ${c.gcs} pauses, ${(c.gcMs / calls).toFixed(3)} ms per call`,
    );
  }
} finally {
  base.destroy();
  await ddb.stop();
}
