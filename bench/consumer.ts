import { loadavg } from 'node:os';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { v7 as uuidv7 } from 'uuid';
import { startDynamoDbLocal } from '../shared/local/stack/dynamodb-local.js';
import { boundSection } from './consumer-bound.js';
import { clientCpuPerMessage } from './consumer-cost.js';
import { CRASHED_INVOCATION_MS, type CrashResult, crashAndRedeliver } from './consumer-crash.js';
import {
  type BatchHandler,
  benchEnvelope,
  type CountedClients,
  countedClients,
  createPathTables,
  lambdaContext,
  type PathName,
  type PathTables,
  pathHandler,
  sqsRecord,
} from './consumer-paths.js';
import { type RequestCosts, type RequestName, requestCosts } from './consumer-requests.js';
import { machine, percentile, recordSection } from './report.js';

/*
 * The consumer helper against what an AWS team uses today, Powertools idempotency
 * (`makeIdempotent` + `DynamoDBPersistenceLayer`, keyed by the event id), side by side in one run
 * on one DynamoDB Local: the same SQS-shaped batches of 10 (EVENTS messages, a tenth of them
 * redeliveries of earlier events), the same business write per event, each path with tables of
 * its own, in alternating blocks (the order rotating), after an untimed warm-up. Requests are
 * counted at each path's DynamoDB client. After each block, the requests alone (bench/consumer-requests.ts);
 * at the end each path's client CPU in memory (bench/consumer-cost.ts): the bound on one
 * transaction per event (bench/consumer-bound.ts). Then the crash comparison (bench/consumer-crash.ts).
 * Run: npm run bench:consumer
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000);
const BATCH = 10;
const DUPLICATE_SHARE = 0.1;
const BLOCKS = 10;
const WARMUP_BATCHES = 30;
const AGGREGATES = 500;
const PATHS: readonly PathName[] = ['powertools', 'transaction', 'batch', 'claim', 'bare', 'floor'];
/** Each request of bench/consumer-requests.ts is timed this many times after every block. */
const REQUESTS_PER_BLOCK = 20;
/** Client CPU per message, in memory: rounds of messages per path. */
const CPU_ROUNDS = 5;
const CPU_MESSAGES = 400;

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// Powertools' idempotency keys carry the function's name, as in Lambda.
process.env.AWS_LAMBDA_FUNCTION_NAME ??= 'bench-consumer';

/** A deterministic generator, so every run sends the same duplicates at the same places. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** `count` messages in batches of BATCH: unique events, and a DUPLICATE_SHARE of redeliveries of an earlier event each. */
function batches(count: number, prefix: string, seed: number): SQSEvent[] {
  const next = random(seed);
  const bodies: { body: string; receiveCount: number }[] = [];
  const duplicates = Math.round(count * DUPLICATE_SHARE);
  for (let i = 0; i < count - duplicates; i++)
    bodies.push({ body: benchEnvelope(uuidv7(), `${prefix}-${i % AGGREGATES}`, 1), receiveCount: 1 });
  for (let d = 0; d < duplicates; d++) {
    const at = 1 + Math.floor(next() * bodies.length);
    const original = bodies[Math.floor(next() * at)] as { body: string };
    bodies.splice(at, 0, { body: original.body, receiveCount: 2 });
  }
  const events: SQSEvent[] = [];
  for (let i = 0; i < bodies.length; i += BATCH) {
    events.push({ Records: bodies.slice(i, i + BATCH).map((m, j) => sqsRecord(m.body, `${prefix}-m${i + j}`, m.receiveCount)) });
  }
  return events;
}

interface PathRun {
  readonly clients: CountedClients;
  readonly tables: PathTables;
  readonly handler: BatchHandler;
  /** Per-message milliseconds: from the batch's start or the previous message's end to this message's end. */
  readonly latencies: number[];
  /** The same, of the messages after the first of their batch (which carries the batch's shared work). */
  readonly afterFirst: number[];
  /** Per-message milliseconds from its batch's start to its own end. */
  readonly sinceStart: number[];
  /** Per-batch milliseconds: the handler's whole call. */
  readonly batchTimes: number[];
  seconds: number;
  requests: number;
  failures: number;
}

async function runBatches(run: PathRun, events: readonly SQSEvent[]): Promise<{ seconds: number; requests: number; failures: number }> {
  const requestsBefore = run.clients.total();
  let failures = 0;
  const started = performance.now();
  for (const event of events) {
    mark.start = mark.last = performance.now();
    mark.into = run;
    const { batchItemFailures } = await run.handler(event, lambdaContext(30_000));
    run.batchTimes.push(performance.now() - mark.start);
    failures += batchItemFailures.length;
  }
  mark.into = undefined;
  return { seconds: (performance.now() - started) / 1000, requests: run.clients.total() - requestsBefore, failures };
}

/** Where the message being timed goes: the handlers call `done` as each message is done. */
const mark: { start: number; last: number; into: Pick<PathRun, 'latencies' | 'afterFirst' | 'sinceStart'> | undefined } = {
  start: 0,
  last: 0,
  into: undefined,
};
const done = () => {
  const now = performance.now();
  mark.into?.latencies.push(now - mark.last);
  if (mark.last !== mark.start) mark.into?.afterFirst.push(now - mark.last);
  mark.into?.sinceStart.push(now - mark.start);
  mark.last = now;
};

/** How many times the effects of a path's timed events were applied, over their counter items (the warm-up's are `w-`). */
async function appliedEffects(run: PathRun): Promise<number> {
  let total = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await run.clients.document.send(
      new ScanCommand({
        TableName: run.tables.business,
        FilterExpression: 'begins_with(pk, :counter)',
        ExpressionAttributeValues: { ':counter': 'COUNTER#o-' },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) total += Number(item.applied ?? 0);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey !== undefined);
  return total;
}

const ddb = await startDynamoDbLocal();
const runs = new Map<PathName, PathRun>();
let crashes: CrashResult[] = [];
const requestClients = countedClients(ddb.endpoint);
const requestTotals = new Map<RequestName, number>();
const timed = batches(EVENTS, 'o', 27);
try {
  for (const path of PATHS) {
    const clients = countedClients(ddb.endpoint);
    const tables = await createPathTables(clients.dynamodb, `bench-consumer-${path}`);
    runs.set(path, {
      clients,
      tables,
      handler: pathHandler(path, clients, tables, done),
      latencies: [],
      afterFirst: [],
      sinceStart: [],
      batchTimes: [],
      seconds: 0,
      requests: 0,
      failures: 0,
    });
  }
  const requestTables = await createPathTables(requestClients.dynamodb, 'bench-consumer-requests');
  await requestCosts(requestClients, requestTables, 1, REQUESTS_PER_BLOCK, BATCH * 2);
  console.log(`warming up every path with ${WARMUP_BATCHES * BATCH} messages…`);
  const warmup = batches(WARMUP_BATCHES * BATCH, 'w', 1);
  for (const path of PATHS) {
    const run = runs.get(path) as PathRun;
    await runBatches(run, warmup);
    run.latencies.length = 0;
    run.afterFirst.length = 0;
    run.sinceStart.length = 0;
    run.batchTimes.length = 0;
  }
  const perBlock = Math.ceil(timed.length / BLOCKS);
  for (let block = 0; block < BLOCKS; block++) {
    const events = timed.slice(block * perBlock, (block + 1) * perBlock);
    console.log(`block ${block + 1} of ${BLOCKS}: ${events.length} batches through each path…`);
    for (let i = 0; i < PATHS.length; i++) {
      const run = runs.get(PATHS[(i + block) % PATHS.length] as PathName) as PathRun;
      const measured = await runBatches(run, events);
      run.seconds += measured.seconds;
      run.requests += measured.requests;
      run.failures += measured.failures;
    }
    // The requests alone, under the same load as the block they follow.
    const costs = await requestCosts(requestClients, requestTables, 1, REQUESTS_PER_BLOCK, BATCH * 2);
    for (const [name, ms] of Object.entries(costs))
      requestTotals.set(name as RequestName, (requestTotals.get(name as RequestName) ?? 0) + ms / BLOCKS);
  }
  console.log(`client CPU per message, in memory…`);
  const cpu = await clientCpuPerMessage(['bare', 'transaction', 'floor'], CPU_ROUNDS, CPU_MESSAGES);
  console.log(`crash between the business write and the dedup record, then redeliveries…`);
  const admin = runs.get('bare')?.clients.dynamodb;
  if (admin === undefined) throw new Error('no client');
  crashes = [];
  for (const path of ['powertools', 'transaction', 'batch', 'claim'] as const)
    crashes.push(await crashAndRedeliver(path, ddb.endpoint, admin));

  const messages = timed.reduce((n, e) => n + e.Records.length, 0);
  const unique = new Set(timed.flatMap((e) => e.Records.map((r) => JSON.parse(r.body).id as string))).size;
  const rows: {
    path: PathName;
    rate: number;
    p50: number;
    p99: number;
    p99AfterFirst: number;
    p50SinceStart: number;
    p50Batch: number;
    perMessage: number;
    applied: number;
    failures: number;
  }[] = [];
  const median = (values: readonly number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  for (const path of PATHS) {
    const run = runs.get(path) as PathRun;
    const sorted = [...run.latencies].sort((a, b) => a - b);
    rows.push({
      path,
      rate: messages / run.seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      p99AfterFirst: percentile(
        [...run.afterFirst].sort((a, b) => a - b),
        99,
      ),
      p50SinceStart: median(run.sinceStart),
      p50Batch: median(run.batchTimes),
      perMessage: run.requests / messages,
      applied: await appliedEffects(run),
      failures: run.failures,
    });
  }
  const row = (path: PathName) => rows.find((r) => r.path === path) as (typeof rows)[number];
  const pt = row('powertools');
  const tx = row('transaction');
  const batch = row('batch');
  const bare = row('bare');
  const floor = row('floor');
  const label: Record<PathName, string> = {
    powertools: 'Powertools idempotency (`makeIdempotent`, DynamoDB persistence)',
    transaction: '`createConsumer`, inbox by transaction',
    batch: "`createConsumer`, inbox by transaction, `commit: 'batch'`",
    claim: '`createConsumer`, inbox by claim',
    bare: 'bare handler, no dedup',
    floor: 'bare transaction: one TransactWriteItems (write + conditional dedup Put), no read',
  };
  const table = [
    '| consumer | messages/s | vs Powertools | p50 per message (ms) | p99 (ms) | p50 from batch start (ms) | p50 per batch (ms) | DynamoDB requests per message | vs Powertools | effects applied |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${label[r.path]} | ${r.rate.toFixed(0)} | ${(r.rate / pt.rate).toFixed(2)}× | ${r.path === 'batch' ? '–' : r.p50.toFixed(2)} | ` +
        `${r.path === 'batch' ? '–' : r.p99.toFixed(2)} | ${r.p50SinceStart.toFixed(2)} | ${r.p50Batch.toFixed(2)} | ` +
        `${r.perMessage.toFixed(2)} | ${(r.perMessage / pt.perMessage).toFixed(2)}× | ${r.applied}${r.failures > 0 ? ` (${r.failures} failed)` : ''} |`,
    ),
  ].join('\n');
  const crashTable = [
    '| consumer | effect applied | deliveries until acknowledged |',
    '| --- | ---: | ---: |',
    ...crashes.map((c) => `| ${label[c.path]} | **${c.applied}×** | ${c.deliveries} |`),
  ].join('\n');
  const met = (ok: boolean) => (ok ? 'met' : 'not met');
  // Per message for one commit per event; per batch for the batch commit, whose messages all end at one commit.
  const targetsMet = (r: (typeof rows)[number]) =>
    r.rate / pt.rate >= 1.5 &&
    r.perMessage / pt.perMessage <= 0.5 &&
    (r.path === 'batch' ? r.p50Batch / bare.p50Batch : r.p50 / bare.p50) <= 1.15;
  const verdict =
    `Inbox by transaction: throughput ${(tx.rate / pt.rate).toFixed(2)}× Powertools' (target ≥ 1.5×: ${met(tx.rate / pt.rate >= 1.5)}), ` +
    `${(tx.perMessage / pt.perMessage).toFixed(2)}× its DynamoDB requests per message (target ≤ 0.5×: ${met(tx.perMessage / pt.perMessage <= 0.5)}), ` +
    `p50 ${(tx.p50 / bare.p50).toFixed(2)}× the bare handler's (target ≤ 1.15×: ${met(tx.p50 / bare.p50 <= 1.15)}); ` +
    `a bare transaction per message (no read) has p50 ${(floor.p50 / bare.p50).toFixed(2)}× the bare handler's. ` +
    `With \`commit: 'batch'\`: throughput ${(batch.rate / pt.rate).toFixed(2)}× Powertools' (target ≥ 1.5×: ${met(batch.rate / pt.rate >= 1.5)}), ` +
    `${(batch.perMessage / pt.perMessage).toFixed(2)}× its DynamoDB requests per message (target ≤ 0.5×: ${met(batch.perMessage / pt.perMessage <= 0.5)}), ` +
    `p50 per batch ${(batch.p50Batch / bare.p50Batch).toFixed(2)}× the bare handler's (target ≤ 1.15×: ${met(batch.p50Batch / bare.p50Batch <= 1.15)}). ` +
    `The default's p99 (${tx.p99.toFixed(2)} ms, the bare handler's ${bare.p99.toFixed(2)} ms) is its batches' first messages, which wait for the batch read before their transaction: ` +
    `over the messages after the first of their batch it is ${tx.p99AfterFirst.toFixed(2)} ms (the bare handler's ${bare.p99AfterFirst.toFixed(2)} ms). ` +
    `The targets are met ${targetsMet(tx) ? 'by the default' : targetsMet(batch) ? "only with `commit: 'batch'`, not by the default (`commit: 'event'`)" : "neither by the default nor with `commit: 'batch'`"}.`;
  const bound = boundSection({
    costs: Object.fromEntries(requestTotals) as RequestCosts,
    cpu,
    rate: { powertools: pt.rate, transaction: tx.rate, bare: bare.rate, floor: floor.rate },
    messages,
    unique,
    batches: timed.length,
    keysPerRead: BATCH * 2,
  });
  console.log(`${table}\n\n${verdict}\n\n${bound.text}\n\n${crashTable}`);
  recordSection(
    'Consumer: inbox in the transaction vs Powertools idempotency',
    `Command: \`npm run bench:consumer\` — ${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadavg()[0]?.toFixed(1)} at the end, DynamoDB Local in memory.

${messages} SQS-shaped messages in batches of ${BATCH} (raw delivery, as Lambda passes them): ${unique} events and ${messages - unique}
redeliveries of earlier events (${DUPLICATE_SHARE * 100}%, at fixed pseudo-random places, some in the same batch as the first delivery), over ${AGGREGATES}
aggregates. Every consumer is a Lambda SQS handler doing the same business write per event (\`ADD applied :one\` on the
aggregate's counter item) with a partial batch response, the records of a batch handled in turn (the consumer helper's
default concurrency of 1), through a DynamoDB client of its own whose middleware counts every command. Powertools
idempotency 2.x: \`makeIdempotent\` around the record handler, \`eventKeyJmesPath: 'powertools_json(body).id'\`, its
\`DynamoDBPersistenceLayer\` on a table of its own keyed by \`id\`, the invocation's context registered as its docs ask for a
batch. The consumer helper: \`createConsumer\` with its defaults (the inbox in the business table, \`legacyKeyCheck\` on),
a silent logger and a metrics sink that marks each message as done. Each path has tables of its own on the one DynamoDB
Local; every path first handles ${WARMUP_BATCHES * BATCH} other messages untimed, then the timed messages go through in ${BLOCKS} blocks, every path
taking each block in turn, the order rotating. A message's time runs from the end of the one before it in its batch (or
the batch's start) to its own end, so the batch's shared work (the helper's one read of the batch's inbox records) is in
its first message's time. With \`commit: 'batch'\` a message is done when its group commits, so most of a batch's messages
end at one commit and that time says nothing: its "p50 per message" and p99 are left out. Two columns time every path
alike: "p50 from batch start", each message's time from its batch's start to its own end (half a sequential batch, or the
whole of a batch that commits at its end), and "p50 per batch", the handler's call for the whole batch of ${BATCH}; the latency
target is read per message for one commit per event and per batch for the batch commit. "Effects applied" sums the
counters: ${unique} is each event once.

\`commit: 'batch'\` runs the same handlers in the same order but commits a batch's events together: one
\`TransactWriteItems\` per batch, split where an aggregate repeats (${AGGREGATES} aggregates here: a batch of ${BATCH} seldom holds
two events of one) and where a redelivery follows its first delivery in the same batch. A handler does not see the
writes of other aggregates' events of its batch before they commit: for handlers that read only their own aggregate's state
(docs/consumers.md, "Batch commit").

${table}

${verdict}

${bound.text}

**A crash between the business write and the dedup record.** The process dies as soon as the request that makes the
business effect durable is answered (Powertools' and the claim's \`UpdateItem\` of the business item; the inbox
transaction's \`TransactWriteItems\`, which holds the effect and the inbox record together, with \`commit: 'batch'\` those of
every event of its group): nothing it would still send
reaches DynamoDB. The message is not acknowledged; SQS delivers it again to a new process once its visibility timeout is
over: after the crashed invocation's timeout (${CRASHED_INVOCATION_MS} ms here) and after what the invocation left in progress
lapsed (a subscriber queue's visibility timeout is longer than its function's and than the claims it takes; the
benchmark reads the lapse from the tables). Powertools' record is left \`INPROGRESS\` with the invocation's end as its
in-progress expiry, so the redelivery runs the handler again. The claim is left \`IN_PROGRESS\` until it lapses (the
invocation's end + 1 s, to the second), then the redelivery runs the handler again, as docs/consumers.md says a claim
must. The inbox by transaction has no moment between the two: the redelivery
finds the inbox record and skips the event; with \`commit: 'batch'\` a crash before the group's transaction writes nothing
of the group, so each of its messages is delivered again and handled once. The same comparison runs in \`test/integration/consumer-crash-comparison.test.ts\`.

${crashTable}

How to read it: every request here is a round trip to DynamoDB Local on the same machine, sharing its cores. The bare
transaction row is the inbox's transaction without the helper: one \`TransactWriteItems\` per message and no read, so
each duplicate reaches DynamoDB as a cancelled transaction, where the helper's batch read skips it before any write; its
p50 against the bare handler's shows what a transaction costs here over a single \`UpdateItem\`. Requests per message do
not depend on the backend: on AWS each saved request is a network round trip saved (capacity units are another count:
docs/consumers.md, "Compared with Powertools idempotency").`,
  );
} finally {
  for (const run of runs.values()) run.clients.destroy();
  requestClients.destroy();
  await ddb.stop();
}
