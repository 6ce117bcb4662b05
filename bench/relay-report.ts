import { loadavg } from 'node:os';
import { machine } from './report.js';

/*
 * What bench/relay.ts prints and records: its tables, the verdict on its targets, and the
 * section's fixed text that says how the figures were measured.
 */

export const RELAY_SECTION_TITLE = 'Relay: stream → SNS';

/** One kind of topic's throughput figures. */
export interface ThroughputResult {
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
function verdict(results: readonly ThroughputResult[]): string {
  const met = (ok: boolean) => (ok ? 'met' : 'not met');
  return results
    .map(
      (r) => `${r.kind}: ≥ 5× the hand-rolled relay ${met(r.relay / r.naive >= 5)}, ≥ 60% of the ceiling ${met(r.relay / r.top >= 0.6)}.`,
    )
    .join(' ');
}

/** Commit → receivable in SQS at a steady rate. */
export interface LatencyResult {
  readonly p50: number;
  readonly p99: number;
  readonly count: number;
  /** Events per second the measured commits kept. */
  readonly writeRate: number;
}

/** What the run was made of, as the tables and the section's text tell it. */
export interface RelaySetup {
  readonly events: number;
  readonly warmupEvents: number;
  readonly aggregates: number;
  readonly rounds: number;
  readonly rate: number;
  readonly latencySeconds: number;
  readonly latencyWarmupSeconds: number;
  readonly tuning: { readonly batchSize: number; readonly publishConcurrency: number; readonly parallelizationFactor: number };
}

/** The throughput tables and the latency line, as printed and recorded. */
export function relayTables(setup: RelaySetup, results: readonly ThroughputResult[], lat: LatencyResult): string {
  return [
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
    `Commit → receivable in SQS at a steady ${setup.rate} events/s for ${setup.latencySeconds} s (${lat.count} events, FIFO, runner polling 4×/s; ` +
      `the commits kept ${lat.writeRate.toFixed(0)} events/s): p50 **${lat.p50.toFixed(0)} ms**, p99 **${lat.p99.toFixed(0)} ms**.`,
  ].join('\n');
}

/** The section's body for BENCHMARKS.md. */
export function relaySection(setup: RelaySetup, results: readonly ThroughputResult[], table: string): string {
  return `Command: \`npm run bench:relay\` — ${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadavg()[0]?.toFixed(1)} at the end, DynamoDB Local in memory, fauxqs in process.

A backlog of ${setup.events} events (one event per commit, ${setup.aggregates} aggregates) is drained from DynamoDB Local's stream by the
local event-source-mapping runner and the real relay handler (batch size ${setup.tuning.batchSize}, publish
concurrency ${setup.tuning.publishConcurrency}, parallelization factor ${setup.tuning.parallelizationFactor}) into a topic with a raw-delivery queue behind it; the time runs until every event is in
the queue. The ceiling sends the same envelopes, pre-built, with \`PublishBatch\` at the same concurrency and no
stream reading at all. The hand-rolled relay is the usual Lambda: one \`Publish\` per event, awaited in turn,
through the same runner. The bare batching relay is the least a batching relay does, through the same runner: each record
decoded and its envelopes sent with \`PublishBatch\` in tens at the same concurrency, with none of the relay's guarantees
(no order per aggregate, no retries, no dead letters). For each kind of topic, every path first drains a warm-up backlog of ${setup.warmupEvents} events
untimed, so no path is timed while its code is still being compiled; then, in each of ${setup.rounds} rounds, every path drains the
whole backlog in turn (the order rotating), so a change of machine load weighs on all of them alike. Each drain
goes to a topic and queue of its own, deleted once it is timed: the emulator keeps messages in this process's
memory, and no path should run with another's in it. The "by round" columns
give the lowest and highest of the ratios measured within one round, the spread that load adds. The backlog is written with
single-item slot updates in the slot format (not the write helper) so that DynamoDB Local's slow transactions
do not pace the latency run. That run gets a DynamoDB Local and an emulator of its own, started once the throughput
run's are stopped, so nothing of the throughput run is left to share the machine with it; the DynamoDB Local holding the
backlogs would also write several times slower, too slow to keep the rate (the line says the rate the commits kept). Like
the throughput paths, it warms up untimed: it commits at the same rate for ${setup.latencyWarmupSeconds} s before the events it counts.

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
it is a floor for AWS, not a forecast; rerun on a quiet machine before reading much into them.`;
}
