import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteQueueCommand, SendMessageBatchCommand, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { v7 as uuidv7 } from 'uuid';
import { archiveObjectKey, archivePartitionOf, archivePartitionPrefix, encodeArchiveObject } from '../shared/archive/layout.js';
import type { ArchivedEvent } from '../shared/archive/reader-decode.js';
import { replayArchive } from '../shared/archive/replay.js';
import { DEFAULT_CONCURRENCY } from '../shared/archive/replay-options.js';
import { replayEntry } from '../shared/archive/replay-send.js';
import { envelopeJson } from '../shared/envelope.js';
import { localClients } from '../shared/local/clients.js';
import { machine, recordSection } from './report.js';

/*
 * Replay throughput against its ceiling, side by side in one run, on fauxqs's S3 and SQS:
 *  - replay: replayArchive reads EVENTS archived events (AGGREGATES aggregates, three types, a
 *    day of hours, one object per partition hour as the archiver's batches leave them) and sends
 *    them to a standard queue at the default concurrency;
 *  - ceiling: the same messages (bodies and attributes), pre-built, sent with SendMessageBatch in
 *    tens at the same concurrency, with no reading, ordering or checkpoint.
 * Blocks alternate, ROUNDS times, each into a queue of its own, deleted once timed.
 * Run: npm run bench:replay
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const AGGREGATES = 2_000;
const ROUNDS = 3;
const TYPES = ['order.placed', 'order.paid', 'order.shipped'];
const START = Date.parse('2026-03-01T00:00:00.000Z');

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const server = await startFauxqs({ port: 0, logger: false });
const clients = localClients({ dynamodb: 'http://127.0.0.1:1', aws: server.address });
const BUCKET = 'bench-archive';
server.createBucket(BUCKET);

// Each aggregate's events at growing times over the day, types in turn.
const events: ArchivedEvent[] = [];
const perAggregate = EVENTS / AGGREGATES;
for (let a = 0; a < AGGREGATES; a++) {
  for (let s = 1; s <= perAggregate; s++) {
    const timeMs = START + Math.floor(((s - 1 + a / AGGREGATES) / perAggregate) * 86_400_000);
    const id = uuidv7();
    const type = TYPES[(a + s) % TYPES.length] as string;
    const body = envelopeJson(
      { source: 'urn:bench:shop', aggregateType: 'order', aggregateId: `o-${a}`, sequenceEpoch: '2026-01-01T00:00:00.000Z' },
      { id, type, time: new Date(timeMs).toISOString(), data: JSON.stringify({ n: s, total: 4200, currency: 'EUR' }) },
      s,
    );
    events.push({ id, type, aggregateType: 'order', aggregateId: `o-${a}`, epoch: '2026-01-01T00:00:00.000Z', sequence: s, timeMs, body });
  }
}
const partitions = new Map<string, { key: string; lines: string[] }>();
for (const event of events) {
  const partition = archivePartitionOf({ aggregatetype: 'order', type: event.type, time: new Date(event.timeMs).toISOString() });
  if (partition === undefined) throw new Error('no partition');
  const prefix = archivePartitionPrefix(partition);
  const entry = partitions.get(prefix) ?? { key: archiveObjectKey(partition, 'batch-1'), lines: [] };
  entry.lines.push(event.body);
  partitions.set(prefix, entry);
}
for (const { key, lines } of partitions.values()) {
  await clients.s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: encodeArchiveObject(lines) }));
}

// The CLI always keeps a checkpoint: one line appended per acknowledged batch, timed with the rest.
const CHECKPOINT = join(mkdtempSync(join(tmpdir(), 'bench-replay-')), 'replay.checkpoint');
let queues = 0;
const freshQueue = () => server.createQueue(`bench-replay-${++queues}`).queueUrl;
const dropQueue = (queueUrl: string) => clients.sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));

async function replayPath(): Promise<number> {
  const queueUrl = freshQueue();
  const started = performance.now();
  const summary = await replayArchive({
    s3: clients.s3,
    sqs: clients.sqs,
    bucket: BUCKET,
    from: '2026-03-01',
    to: '2026-03-02',
    queueUrl,
    checkpointPath: CHECKPOINT,
    restart: true,
  });
  const seconds = (performance.now() - started) / 1000;
  if (summary.sent !== EVENTS) throw new Error(`replay sent ${summary.sent} of ${EVENTS}`);
  await dropQueue(queueUrl);
  return seconds;
}

const prebuilt: SendMessageBatchRequestEntry[][] = [];
for (let i = 0; i < events.length; i += 10) {
  prebuilt.push(events.slice(i, i + 10).map((event, j) => replayEntry(event, String(j), 'bench-replay', false)));
}

async function ceilingPath(): Promise<number> {
  const queueUrl = freshQueue();
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < prebuilt.length) {
      const entries = prebuilt[next++] as SendMessageBatchRequestEntry[];
      const output = await clients.sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      if ((output.Failed ?? []).length > 0) throw new Error('ceiling: entries failed');
    }
  };
  await Promise.all(Array.from({ length: DEFAULT_CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await dropQueue(queueUrl);
  return seconds;
}

// Untimed warm-up of both paths, so neither is timed while its code is still being compiled.
await replayPath();
await ceilingPath();
const replaySeconds: number[] = [];
const ceilingSeconds: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const first = round % 2 === 0;
  const a = first ? await replayPath() : await ceilingPath();
  const b = first ? await ceilingPath() : await replayPath();
  const [replay, ceiling] = first ? [a, b] : [b, a];
  replaySeconds.push(replay);
  ceilingSeconds.push(ceiling);
  ratios.push(ceiling / replay);
  console.error(`round ${round + 1}: replay ${(EVENTS / replay).toFixed(0)} events/s, ceiling ${(EVENTS / ceiling).toFixed(0)} events/s`);
}
const median = (values: readonly number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
const replayRate = EVENTS / median(replaySeconds);
const ceilingRate = EVENTS / median(ceilingSeconds);
// Paired within a round, a ratio is measured under one load: their median is the figure.
const ratio = median(ratios);
const table = `| path | events/s (median of ${ROUNDS}) | of the ceiling (median of the rounds' ratios) | by round |
| --- | --- | --- | --- |
| replay (read, dedup, order, send, checkpoint) | ${replayRate.toFixed(0)} | ${(ratio * 100).toFixed(0)}% | ${(Math.min(...ratios) * 100).toFixed(0)}–${(Math.max(...ratios) * 100).toFixed(0)}% |
| ceiling: pre-built SendMessageBatch | ${ceilingRate.toFixed(0)} | 100% | |`;
console.log(table);
recordSection(
  'Replay: archive → one queue',
  `Command: \`npm run bench:replay\` — ${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadavg()[0]?.toFixed(1)} at the end, fauxqs (S3 and SQS) in process.

${EVENTS} archived events (${AGGREGATES} aggregates, ${TYPES.length} types, one day: ${partitions.size} objects, one per partition hour) are replayed
by \`replayArchive\` to a standard queue at its default concurrency (${DEFAULT_CONCURRENCY} \`SendMessageBatch\` requests at once): listing, reading,
gunzip, envelope checks, dedup, per-aggregate order, the hour-end hold-back and the checkpoint (a line per acknowledged batch, as the
CLI keeps it) included; the time runs until the last batch is acknowledged. The ceiling sends the same messages (bodies and attributes), pre-built in tens, with \`SendMessageBatch\` at the
same concurrency. Both paths run once untimed, then alternate ${ROUNDS} times, each into a queue of its own deleted once timed.
Target: at least 70% of the ceiling.

${table}`,
);
clients.destroy();
await server.stop();
