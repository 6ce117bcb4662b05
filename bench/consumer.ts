import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { v7 as uuidv7 } from 'uuid';
import { startDynamoDbLocal } from '../shared/local/stack/dynamodb-local.js';
import { boundSection } from './consumer-bound.js';
import { clientCpuPerMessage } from './consumer-cost.js';
import { type CrashResult, crashAndRedeliver } from './consumer-crash.js';
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
import { CONSUMER_SECTION_TITLE, type ConsumerRow, consumerResults, consumerSection } from './consumer-report.js';
import { type RequestCosts, type RequestName, requestCosts } from './consumer-requests.js';
import { percentile, recordSection } from './report.js';

/*
 * The consumer helper against what an AWS team uses today, Powertools idempotency
 * (`makeIdempotent` + `DynamoDBPersistenceLayer`, keyed by the event id), side by side in one run
 * on one DynamoDB Local: the same SQS-shaped batches of 10 (EVENTS messages, a tenth of them
 * redeliveries of earlier events), the same business write per event, each path with tables of
 * its own, in alternating blocks (the order rotating), after an untimed warm-up. Requests are
 * counted at each path's DynamoDB client. After each block, the requests alone (bench/consumer-requests.ts);
 * at the end each path's client CPU in memory (bench/consumer-cost.ts): the bound on one
 * transaction per event (bench/consumer-bound.ts). Then the crash comparison (bench/consumer-crash.ts).
 * The tables, the verdict and the section's text: bench/consumer-report.ts.
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
  const rows: ConsumerRow[] = [];
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
  const rateOf = (path: PathName) => (rows.find((r) => r.path === path) as ConsumerRow).rate;
  const { table, verdict, crashTable } = consumerResults(rows, crashes);
  const bound = boundSection({
    costs: Object.fromEntries(requestTotals) as RequestCosts,
    cpu,
    rate: { powertools: rateOf('powertools'), transaction: rateOf('transaction'), bare: rateOf('bare'), floor: rateOf('floor') },
    messages,
    unique,
    batches: timed.length,
    keysPerRead: BATCH * 2,
  });
  console.log(`${table}\n\n${verdict}\n\n${bound.text}\n\n${crashTable}`);
  recordSection(
    CONSUMER_SECTION_TITLE,
    consumerSection(
      {
        messages,
        unique,
        batch: BATCH,
        duplicateShare: DUPLICATE_SHARE,
        aggregates: AGGREGATES,
        warmupMessages: WARMUP_BATCHES * BATCH,
        blocks: BLOCKS,
      },
      { table, verdict, crashTable, bound: bound.text },
    ),
  );
} finally {
  for (const run of runs.values()) run.clients.destroy();
  requestClients.destroy();
  await ddb.stop();
}
