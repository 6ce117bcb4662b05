import { loadavg } from 'node:os';
import { CRASHED_INVOCATION_MS, type CrashResult } from './consumer-crash.js';
import type { PathName } from './consumer-paths.js';
import { machine } from './report.js';

/*
 * What bench/consumer.ts prints and records: its tables, the verdict on its targets, and the
 * section's fixed text that says how the figures were measured.
 */

export const CONSUMER_SECTION_TITLE = 'Consumer: inbox in the transaction vs Powertools idempotency';

/** One path's figures over the timed messages. */
export interface ConsumerRow {
  readonly path: PathName;
  /** Messages per second. */
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly p99AfterFirst: number;
  readonly p50SinceStart: number;
  readonly p50Batch: number;
  /** DynamoDB requests per message. */
  readonly perMessage: number;
  readonly applied: number;
  readonly failures: number;
}

/** What the run was made of, as the section's text tells it. */
export interface ConsumerSetup {
  readonly messages: number;
  readonly unique: number;
  readonly batch: number;
  readonly duplicateShare: number;
  readonly aggregates: number;
  readonly warmupMessages: number;
  readonly blocks: number;
}

/** The printed and recorded parts of a run's results. */
export interface ConsumerResults {
  readonly table: string;
  readonly verdict: string;
  readonly crashTable: string;
}

/** How the tables name each path. */
const label: Record<PathName, string> = {
  powertools: 'Powertools idempotency (`makeIdempotent`, DynamoDB persistence)',
  transaction: '`createConsumer`, inbox by transaction',
  batch: "`createConsumer`, inbox by transaction, `commit: 'batch'`",
  claim: '`createConsumer`, inbox by claim',
  bare: 'bare handler, no dedup',
  floor: 'bare transaction: one TransactWriteItems (write + conditional dedup Put), no read',
};

/** The results table, the verdict on the targets, and the crash table. */
export function consumerResults(rows: readonly ConsumerRow[], crashes: readonly CrashResult[]): ConsumerResults {
  const row = (path: PathName) => rows.find((r) => r.path === path) as ConsumerRow;
  const pt = row('powertools');
  const tx = row('transaction');
  const batch = row('batch');
  const bare = row('bare');
  const floor = row('floor');
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
  const targetsMet = (r: ConsumerRow) =>
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
  return { table, verdict, crashTable };
}

/** The section's body for BENCHMARKS.md; `bound` is bench/consumer-bound.ts's text. */
export function consumerSection(setup: ConsumerSetup, parts: ConsumerResults & { readonly bound: string }): string {
  return `Command: \`npm run bench:consumer\` — ${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadavg()[0]?.toFixed(1)} at the end, DynamoDB Local in memory.

${setup.messages} SQS-shaped messages in batches of ${setup.batch} (raw delivery, as Lambda passes them): ${setup.unique} events and ${setup.messages - setup.unique}
redeliveries of earlier events (${setup.duplicateShare * 100}%, at fixed pseudo-random places, some in the same batch as the first delivery), over ${setup.aggregates}
aggregates. Every consumer is a Lambda SQS handler doing the same business write per event (\`ADD applied :one\` on the
aggregate's counter item) with a partial batch response, the records of a batch handled in turn (the consumer helper's
default concurrency of 1), through a DynamoDB client of its own whose middleware counts every command. Powertools
idempotency 2.x: \`makeIdempotent\` around the record handler, \`eventKeyJmesPath: 'powertools_json(body).id'\`, its
\`DynamoDBPersistenceLayer\` on a table of its own keyed by \`id\`, the invocation's context registered as its docs ask for a
batch. The consumer helper: \`createConsumer\` with its defaults (the inbox in the business table, \`legacyKeyCheck\` on),
a silent logger and a metrics sink that marks each message as done. Each path has tables of its own on the one DynamoDB
Local; every path first handles ${setup.warmupMessages} other messages untimed, then the timed messages go through in ${setup.blocks} blocks, every path
taking each block in turn, the order rotating. A message's time runs from the end of the one before it in its batch (or
the batch's start) to its own end, so the batch's shared work (the helper's one read of the batch's inbox records) is in
its first message's time. With \`commit: 'batch'\` a message is done when its group commits, so most of a batch's messages
end at one commit and that time says nothing: its "p50 per message" and p99 are left out. Two columns time every path
alike: "p50 from batch start", each message's time from its batch's start to its own end (half a sequential batch, or the
whole of a batch that commits at its end), and "p50 per batch", the handler's call for the whole batch of ${setup.batch}; the latency
target is read per message for one commit per event and per batch for the batch commit. "Effects applied" sums the
counters: ${setup.unique} is each event once.

\`commit: 'batch'\` runs the same handlers in the same order but commits a batch's events together: one
\`TransactWriteItems\` per batch, split where an aggregate repeats (${setup.aggregates} aggregates here: a batch of ${setup.batch} seldom holds
two events of one) and where a redelivery follows its first delivery in the same batch. A handler does not see the
writes of other aggregates' events of its batch before they commit: for handlers that read only their own aggregate's state
(docs/consumers.md, "Batch commit").

${parts.table}

${parts.verdict}

${parts.bound}

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

${parts.crashTable}

How to read it: every request here is a round trip to DynamoDB Local on the same machine, sharing its cores. The bare
transaction row is the inbox's transaction without the helper: one \`TransactWriteItems\` per message and no read, so
each duplicate reaches DynamoDB as a cancelled transaction, where the helper's batch read skips it before any write; its
p50 against the bare handler's shows what a transaction costs here over a single \`UpdateItem\`. Requests per message do
not depend on the backend: on AWS each saved request is a network round trip saved (capacity units are another count:
docs/consumers.md, "Compared with Powertools idempotency").`;
}
