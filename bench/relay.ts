import { startFauxqs } from 'fauxqs';
import { DEFAULT_RELAY_TUNING, defineConfig, type OutboxConfig } from '../shared/config.js';
import type { SlotMessage } from '../shared/envelope.js';
import { relayEventSourceSettings } from '../shared/event-source.js';
import { type LocalClients, localClients } from '../shared/local/clients.js';
import { type StreamHandler, StreamRunner } from '../shared/local/event-source/stream-runner.js';
import { startDynamoDbLocal } from '../shared/local/stack/dynamodb-local.js';
import { createOutboxTable } from '../shared/local/stack/table.js';
import { backlog, backlogMessages, commit } from './relay-backlog.js';
import { bareRelay, ceiling, handRolled, pipe, queued, relayHandler, until } from './relay-paths.js';
import {
  type LatencyResult,
  RELAY_SECTION_TITLE,
  type RelaySetup,
  relaySection,
  relayTables,
  type ThroughputResult,
} from './relay-report.js';
import { percentile, recordSection } from './report.js';

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
 * The events it commits: bench/relay-backlog.ts; its tables, verdict and section text: bench/relay-report.ts.
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
async function latency(): Promise<LatencyResult> {
  const fresh = await startDynamoDbLocal();
  try {
    return await measureLatency(fresh.endpoint);
  } finally {
    await fresh.stop();
  }
}

async function measureLatency(ddbEndpoint: string): Promise<LatencyResult> {
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

const configFor = (fifo: boolean): OutboxConfig =>
  defineConfig({
    source: 'urn:bench:shop',
    topics: [{ name: fifo ? 'bench.fifo' : 'bench', fifo }],
    routes: { order: fifo ? 'bench.fifo' : 'bench' },
    relay: TUNING,
  });

type PathName = 'relay' | 'top' | 'naive' | 'bare' | 'reading';

/**
 * The paths side by side, round by round, for each kind of topic. Every timed drain takes the
 * whole backlog, into a topic and queue of its own that are deleted afterwards, so no path runs
 * with another's messages in the emulator (which keeps them in this process's memory). Its
 * DynamoDB Local and emulator are stopped before the latency run, which gets its own.
 */
async function throughput(): Promise<ThroughputResult[]> {
  const ddb = await startDynamoDbLocal();
  const server = await startFauxqs({ port: 0, logger: false });
  const clients = localClients({ dynamodb: ddb.endpoint, aws: server.address });
  try {
    const { queueUrl: dlqUrl } = server.createQueue('relay-dlq');
    console.log(`writing a backlog of ${EVENTS} events over ${AGGREGATES} aggregates, and a warm-up backlog of ${WARMUP_EVENTS}…`);
    const warmStream = await backlog(clients, 'bench-relay-warm-up', WARMUP_EVENTS, AGGREGATES);
    const timedStream = await backlog(clients, 'bench-relay', EVENTS, AGGREGATES);

    const results: ThroughputResult[] = [];
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

const setup: RelaySetup = {
  events: EVENTS,
  warmupEvents: WARMUP_EVENTS,
  aggregates: AGGREGATES,
  rounds: ROUNDS,
  rate: RATE,
  latencySeconds: LATENCY_SECONDS,
  latencyWarmupSeconds: LATENCY_WARMUP_SECONDS,
  tuning: TUNING,
};
const table = relayTables(setup, results, lat);
console.log(table);
recordSection(RELAY_SECTION_TITLE, relaySection(setup, results, table));
