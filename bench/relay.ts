import { loadavg } from 'node:os';
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startFauxqs } from 'fauxqs';
import { v7 as uuidv7 } from 'uuid';
import { DEFAULT_RELAY_TUNING, defineConfig, type OutboxConfig } from '../shared/config.js';
import type { SlotMessage } from '../shared/envelope.js';
import { relayEventSourceSettings } from '../shared/event-source.js';
import { type LocalClients, localClients } from '../shared/local/clients.js';
import { type StreamHandler, StreamRunner } from '../shared/local/event-source/stream-runner.js';
import { startDynamoDbLocal } from '../shared/local/stack/dynamodb-local.js';
import { createOutboxTable } from '../shared/local/stack/table.js';
import { toLambdaRecord } from '../shared/on-failure/lambda-record.js';
import { decodeStreamRecord } from '../shared/relay/decode.js';
import { SLOT_KIND, slotKey } from '../shared/slot.js';
import { bareRelay, ceiling, handRolled, inParallel, pipe, queued, relayHandler, until } from './relay-paths.js';
import { machine, percentile, recordSection } from './report.js';

/*
 * Relay throughput and latency, side by side in one run:
 *  - relay: a backlog of EVENTS events drained from DynamoDB Local's stream through the local
 *    event-source-mapping runner and the real relay handler into a topic → raw-delivery queue (FIFO, then standard);
 *  - ceiling: the same envelopes, pre-built, sent straight to the emulator with PublishBatch at
 *    the relay's publish concurrency;
 *  - hand-rolled: the usual relay Lambda, one Publish per event, sequential, through the same runner;
 *  - bare: a batching relay with none of the relay's guarantees (order, retries, dead letters), through the same runner;
 *  - stream reading: the same runner handing the backlog to a handler that does nothing, for the
 *    event-loop time reading alone takes;
 *  - latency: commit → receivable in SQS at a steady RATE events/s through the runner.
 * Every timed path drains the whole backlog, ROUNDS times, each time into a topic and queue of its own.
 * Run: npm run bench:relay
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
/** Events of the untimed warm-up backlog every path drains first. */
const WARMUP_EVENTS = Math.min(EVENTS, 5_000);
const AGGREGATES = 2_000;
const ROUNDS = 3;
const RATE = 200;
const LATENCY_SECONDS = 20;
/** Untimed seconds at the same rate before the latency is measured, as the throughput paths first drain a warm-up backlog. */
const LATENCY_WARMUP_SECONDS = 5;
/** Relay tuning under test; the config defaults unless overridden. */
const TUNING = {
  batchSize: Number(process.env.BENCH_BATCH_SIZE ?? DEFAULT_RELAY_TUNING.batchSize),
  publishConcurrency: Number(process.env.BENCH_PUBLISH_CONCURRENCY ?? DEFAULT_RELAY_TUNING.publishConcurrency),
  parallelizationFactor: Number(process.env.BENCH_PARALLELIZATION_FACTOR ?? DEFAULT_RELAY_TUNING.parallelizationFactor),
};

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const SOURCE = 'urn:bench:shop';

/** One commit of one event into the aggregate's outbox slot, in the slot format the write helper produces. */
async function commit(document: DynamoDBDocumentClient, tableName: string, aggregateId: string, n: number): Promise<string> {
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

/** Seconds until `done` holds, with a runner draining the stream into the handler from its oldest record. */
async function drainUntil(clients: LocalClients, streamArn: string, handler: StreamHandler, done: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  const runner = new StreamRunner({ streams: clients.streams, streamArn, settings: relayEventSourceSettings(configFor(true)), handler });
  runner.start();
  await until(done, 600_000);
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  return seconds;
}

/** Seconds until the queue holds `target` messages, with a runner draining the stream into the handler. */
const drain = (clients: LocalClients, streamArn: string, handler: StreamHandler, queueUrl: string, target: number): Promise<number> =>
  drainUntil(clients, streamArn, handler, async () => (await queued(clients, queueUrl)) >= target);

/**
 * Milliseconds of this event loop's time that reading `target` records takes: the runner
 * (GetRecords, the Lambda shape, the filter, the batches) handing them to a handler that does nothing.
 */
async function readingTime(clients: LocalClients, streamArn: string, target: number): Promise<number> {
  let handed = 0;
  const handler: StreamHandler = async ({ Records }) => {
    handed += Records.length;
    return { batchItemFailures: [] };
  };
  const before = performance.eventLoopUtilization();
  await drainUntil(clients, streamArn, handler, async () => handed >= target);
  return performance.eventLoopUtilization(before).active;
}

/**
 * Commit → receivable latency at a steady rate. It gets a DynamoDB Local of its own: the
 * instance that held the backlogs writes several times slower than a fresh one, too slow for
 * the rate to be kept.
 */
async function latency(): Promise<{ p50: number; p99: number; count: number; writeRate: number }> {
  const fresh = await startDynamoDbLocal();
  try {
    return await measureLatency(fresh.endpoint);
  } finally {
    await fresh.stop();
  }
}

async function measureLatency(ddbEndpoint: string): Promise<{ p50: number; p99: number; count: number; writeRate: number }> {
  const server = await startFauxqs({
    port: 0,
    logger: false,
    messageSpies: { bufferSize: RATE * (LATENCY_WARMUP_SECONDS + LATENCY_SECONDS) * 2 },
  });
  const clients = localClients({ dynamodb: ddbEndpoint, aws: server.address });
  const tableName = 'bench-relay-latency';
  const { streamArn } = await createOutboxTable(clients.dynamodb, tableName);
  const { topicArn, queueUrl: latencyQueue } = pipe(server, 'latency', true);
  const cfg = configFor(true);
  const { queueUrl } = server.createQueue('latency-dlq');
  const runner = new StreamRunner({
    streams: clients.streams,
    streamArn,
    settings: relayEventSourceSettings(cfg),
    handler: relayHandler(clients, cfg, topicArn, queueUrl),
  });
  runner.start();
  /** Commit times of the measured events; the warm-up's events are not in it, so they count nowhere. */
  const committedAt = new Map<string, number>();
  const warmup = RATE * LATENCY_WARMUP_SECONDS;
  const total = RATE * LATENCY_SECONDS;
  const start = Date.now();
  const measuredFrom = start + (warmup * 1000) / RATE;
  const writes: Promise<void>[] = [];
  for (let i = 0; i < warmup + total; i++) {
    const due = start + (i * 1000) / RATE;
    if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    writes.push(
      commit(clients.document, tableName, `l-${i % AGGREGATES}`, i).then((id) => {
        if (i >= warmup) committedAt.set(id, Date.now());
      }),
    );
  }
  await Promise.all(writes);
  // The rate the measured commits were kept at: every one done, over the time they were due in.
  const writeRate = total / ((Math.max(...committedAt.values()) - measuredFrom) / 1000);
  await until(async () => (await queued(clients, latencyQueue)) >= warmup + total, 120_000);
  await runner.stop();
  const latencies = server.spy
    .getAllMessages()
    .flatMap((m) => (m.service === 'sqs' && m.status === 'published' ? [m] : []))
    .map((m) => m.timestamp - (committedAt.get(JSON.parse(m.body).id as string) ?? Number.NaN))
    .filter((ms) => Number.isFinite(ms))
    .sort((a, b) => a - b);
  clients.destroy();
  await server.stop();
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: latencies.length, writeRate };
}

interface Result {
  kind: string;
  /** Events per second over all timed rounds. */
  relay: number;
  top: number;
  naive: number;
  bare: number;
  /** The relay's ratios to the hand-rolled relay, to the ceiling and to the bare batching relay, round by round. */
  byRound: { naive: number[]; top: number[]; bare: number[] };
  /** Event-loop µs that reading the stream alone takes per record, over all rounds. */
  readingMicros: number;
  /** Events per second of a relay with no work of its own besides reading: the ceiling's time per event plus the reading's. */
  bound: number;
}

const spread = (values: readonly number[], format: (value: number) => string): string =>
  `${format(Math.min(...values))}–${format(Math.max(...values))}`;

/** Which throughput targets this run met. */
function verdict(results: readonly Result[]): string {
  const met = (ok: boolean) => (ok ? 'met' : 'not met');
  return results
    .map(
      (r) => `${r.kind}: ≥ 5× the hand-rolled relay ${met(r.relay / r.naive >= 5)}, ≥ 60% of the ceiling ${met(r.relay / r.top >= 0.6)}.`,
    )
    .join(' ');
}

/** Every message of the backlog, read straight from the stream and decoded, for the ceiling. */
async function backlogMessages(clients: LocalClients, streamArn: string, cfg: OutboxConfig): Promise<SlotMessage[]> {
  const { StreamDescription } = await clients.streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const messages: SlotMessage[] = [];
  for (const shard of StreamDescription?.Shards ?? []) {
    let { ShardIterator } = await clients.streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    while (ShardIterator !== undefined) {
      const page = await clients.streams.send(new GetRecordsCommand({ ShardIterator }));
      for (const record of page.Records ?? []) {
        const decoded = decodeStreamRecord(toLambdaRecord(record, streamArn), cfg);
        if (decoded.status === 'decoded') messages.push(...decoded.messages);
      }
      if ((page.Records ?? []).length === 0) break;
      ShardIterator = page.NextShardIterator;
    }
  }
  return messages;
}

const configFor = (fifo: boolean): OutboxConfig =>
  defineConfig({
    source: 'urn:bench:shop',
    topics: [{ name: fifo ? 'bench.fifo' : 'bench', fifo }],
    routes: { order: fifo ? 'bench.fifo' : 'bench' },
    relay: TUNING,
  });

/** Writes `count` one-event commits over the aggregates into a new table; returns its stream. */
async function backlog(clients: LocalClients, tableName: string, count: number): Promise<string> {
  const { streamArn } = await createOutboxTable(clients.dynamodb, tableName);
  await inParallel(32, count, async (i) => {
    await commit(clients.document, tableName, `o-${i % AGGREGATES}`, i);
  });
  return streamArn;
}

type PathName = 'relay' | 'top' | 'naive' | 'bare' | 'reading';

/**
 * The paths side by side, round by round, for each kind of topic. Every timed drain takes the
 * whole backlog, into a topic and queue of its own that are deleted afterwards, so no path runs
 * with another's messages in the emulator (which keeps them in this process's memory). Its
 * DynamoDB Local and emulator are stopped before the latency run, which gets its own.
 */
async function throughput(): Promise<Result[]> {
  const ddb = await startDynamoDbLocal();
  const server = await startFauxqs({ port: 0, logger: false });
  const clients = localClients({ dynamodb: ddb.endpoint, aws: server.address });
  try {
    const { queueUrl: dlqUrl } = server.createQueue('relay-dlq');
    console.log(`writing a backlog of ${EVENTS} events over ${AGGREGATES} aggregates, and a warm-up backlog of ${WARMUP_EVENTS}…`);
    const warmStream = await backlog(clients, 'bench-relay-warm-up', WARMUP_EVENTS);
    const timedStream = await backlog(clients, 'bench-relay', EVENTS);

    const results: Result[] = [];
    for (const fifo of [true, false]) {
      const kind = fifo ? 'FIFO' : 'standard';
      const cfg = configFor(fifo);
      /** Seconds (event-loop ms for reading) of one path's drain of a stream, into a pipe of its own. */
      const run = async (path: PathName, streamArn: string, messages: readonly SlotMessage[], name: string): Promise<number> => {
        if (path === 'reading') return readingTime(clients, streamArn, messages.length);
        const out = pipe(server, `${name}-${kind}`, fifo);
        try {
          if (path === 'top') return await ceiling(clients, messages, cfg, out.topicArn, out.queueUrl, messages.length);
          const handler =
            path === 'relay'
              ? relayHandler(clients, cfg, out.topicArn, dlqUrl)
              : path === 'bare'
                ? bareRelay(clients, cfg, out.topicArn)
                : handRolled(clients, cfg, out.topicArn);
          return await drain(clients, streamArn, handler, out.queueUrl, messages.length);
        } finally {
          out.remove();
        }
      };
      const paths: PathName[] = ['top', 'relay', 'naive', 'bare', 'reading'];
      console.log(`${kind}: warming up every path…`);
      const warmMessages = await backlogMessages(clients, warmStream, cfg);
      for (const path of paths) await run(path, warmStream, warmMessages, `warm-${path}`);
      const messages = await backlogMessages(clients, timedStream, cfg);
      /** Seconds each path took (event-loop ms for reading), round by round. */
      const rounds: Record<PathName, number>[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        console.log(`${kind}: round ${round + 1} of ${ROUNDS}…`);
        const measured = { relay: 0, top: 0, naive: 0, bare: 0, reading: 0 };
        // The order rotates, so a change of machine load weighs on every path alike.
        for (let i = 0; i < paths.length; i++) {
          const path = paths[(i + round) % paths.length]!;
          measured[path] = await run(path, timedStream, messages, `${path}-${round}`);
        }
        rounds.push(measured);
      }
      const total = messages.length * ROUNDS;
      const sum = (path: PathName) => rounds.reduce((seconds, r) => seconds + r[path], 0);
      const readingMicros = (sum('reading') * 1000) / total;
      results.push({
        kind,
        relay: total / sum('relay'),
        top: total / sum('top'),
        naive: total / sum('naive'),
        bare: total / sum('bare'),
        // Ratios of events/s within each round: a path's time over the relay's.
        byRound: {
          naive: rounds.map((r) => r.naive / r.relay),
          top: rounds.map((r) => r.top / r.relay),
          bare: rounds.map((r) => r.bare / r.relay),
        },
        readingMicros,
        bound: 1e6 / ((sum('top') * 1e6) / total + readingMicros),
      });
    }
    return results;
  } finally {
    clients.destroy();
    await server.stop();
    await ddb.stop();
  }
}

const results = await throughput();
console.log(`latency: ${RATE} events/s for ${LATENCY_SECONDS} s after ${LATENCY_WARMUP_SECONDS} s of warm-up…`);
const lat = await latency();

const table = [
  '| topic → queue | relay (events/s) | ceiling (events/s) | hand-rolled (events/s) | relay / hand-rolled (target ≥ 5×) | by round | relay / ceiling (target ≥ 60%) | by round | ceiling / hand-rolled |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...results.map(
    (r) =>
      `| ${r.kind} | ${r.relay.toFixed(0)} | ${r.top.toFixed(0)} | ${r.naive.toFixed(0)} | **${(r.relay / r.naive).toFixed(2)}×** | ` +
      `${spread(r.byRound.naive, (x) => `${x.toFixed(1)}×`)} | **${((r.relay / r.top) * 100).toFixed(0)}%** | ` +
      `${spread(r.byRound.top, (x) => `${(x * 100).toFixed(0)}%`)} | ${(r.top / r.naive).toFixed(1)}× |`,
  ),
  '',
  '| topic → queue | bare batching relay (events/s) | relay / bare | by round | stream reading alone (event-loop µs per record) | a relay doing nothing but read and publish (events/s, estimated) | its share of the ceiling |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...results.map(
    (r) =>
      `| ${r.kind} | ${r.bare.toFixed(0)} | **${((r.relay / r.bare) * 100).toFixed(0)}%** | ${spread(r.byRound.bare, (x) => `${(x * 100).toFixed(0)}%`)} | ` +
      `${r.readingMicros.toFixed(1)} | ${r.bound.toFixed(0)} | ${((r.bound / r.top) * 100).toFixed(0)}% |`,
  ),
  '',
  `Commit → receivable in SQS at a steady ${RATE} events/s for ${LATENCY_SECONDS} s (${lat.count} events, FIFO, runner polling 4×/s; ` +
    `the commits kept ${lat.writeRate.toFixed(0)} events/s): p50 **${lat.p50.toFixed(0)} ms**, p99 **${lat.p99.toFixed(0)} ms**.`,
].join('\n');
console.log(table);
recordSection(
  'Relay: stream → SNS',
  `Command: \`npm run bench:relay\` — ${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadavg()[0]?.toFixed(1)} at the end, DynamoDB Local in memory, fauxqs in process.

A backlog of ${EVENTS} events (one event per commit, ${AGGREGATES} aggregates) is drained from DynamoDB Local's stream by the
local event-source-mapping runner and the real relay handler (batch size ${TUNING.batchSize}, publish
concurrency ${TUNING.publishConcurrency}, parallelization factor ${TUNING.parallelizationFactor}) into a topic with a raw-delivery queue behind it; the time runs until every event is in
the queue. The ceiling sends the same envelopes, pre-built, with \`PublishBatch\` at the same concurrency and no
stream reading at all. The hand-rolled relay is the usual Lambda: one \`Publish\` per event, awaited in turn,
through the same runner. The bare batching relay is the least a batching relay does, through the same runner: each record
decoded and its envelopes sent with \`PublishBatch\` in tens at the same concurrency, with none of the relay's guarantees
(no order per aggregate, no retries, no dead letters). For each kind of topic, every path first drains a warm-up backlog of ${WARMUP_EVENTS} events
untimed, so no path is timed while its code is still being compiled; then, in each of ${ROUNDS} rounds, every path drains the
whole backlog in turn (the order rotating), so a change of machine load weighs on all of them alike. Each drain
goes to a topic and queue of its own, deleted once it is timed: the emulator keeps messages in this process's
memory, and no path should run with another's in it. The "by round" columns
give the lowest and highest of the ratios measured within one round, the spread that load adds. The backlog is written with
single-item slot updates in the slot format (not the write helper) so that DynamoDB Local's slow transactions
do not pace the latency run. That run gets a DynamoDB Local and an emulator of its own, started once the throughput
run's are stopped, so nothing of the throughput run is left to share the machine with it; the DynamoDB Local holding the
backlogs would also write several times slower, too slow to keep the rate (the line says the rate the commits kept). Like
the throughput paths, it warms up untimed: it commits at the same rate for ${LATENCY_WARMUP_SECONDS} s before the events it counts.

${table}

${verdict(results)}

How to read it: the emulator runs in process, so on this machine a message costs CPU rather than a network
round trip, and every path is bound by the one event loop it shares with the emulator. The last column of the first
table bounds what any relay can reach against the hand-rolled one here, as no relay publishes faster than the ceiling.
The relay also reads the stream on that event loop (\`GetRecords\` through \`streamsClient\`, the runner's conversion to
the Lambda shape and its filter), which the ceiling skips, and which on AWS is the event source mapping's work, not the
function's. The second table measures that two ways. The bare batching relay shows what the runner leaves to any
batching relay here: the relay's share of it is what its guarantees cost. And the same runner drains the backlog into
a handler that does nothing: its event-loop time per record, added to the ceiling's time per event, gives the rate of a
relay whose decoding, envelopes and scheduling cost nothing (an estimate from the two measurements, not a measured
path). On AWS, a
hand-rolled relay waits one network round trip per \`Publish\`, which batching and concurrency hide, so the ratio to
it is a floor for AWS, not a forecast; rerun on a quiet machine before reading much into them.`,
);
