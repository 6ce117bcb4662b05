import { pathToFileURL } from 'node:url';
import type { SQSEvent } from 'aws-lambda';
import { v7 as uuidv7 } from 'uuid';
import {
  type BatchHandler,
  benchEnvelope,
  type CountedClients,
  lambdaContext,
  type PathName,
  pathHandler,
  sqsRecord,
} from './consumer-paths.js';
import { inMemoryDocumentClient } from './write-cost.js';

/*
 * Each consumer path's own CPU per message, apart from DynamoDB: the paths of bench/consumer.ts
 * over a DocumentClient whose transport answers every request at once, in memory (an empty
 * success: no inbox record found, every write committed), so a message's CPU is the client side
 * alone: parsing, checks, the helper's work and the SDK's marshalling, serialisation and signing.
 * bench/consumer.ts prints it; alone: npx tsx bench/consumer-cost.ts (BENCH_PATH=transaction for one path, as for --cpu-prof).
 */
const BATCH = 10;

function inMemoryClients(): CountedClients {
  const document = inMemoryDocumentClient();
  // Powertools takes the low-level client; the DocumentClient is one, sharing its transport.
  return { dynamodb: document as never, document, requests: new Map(), total: () => 0, destroy: () => document.destroy() };
}

const batchesOf = (count: number, prefix: string): SQSEvent[] => {
  const events: SQSEvent[] = [];
  for (let i = 0; i < count; i += BATCH) {
    const records = [];
    for (let j = 0; j < BATCH; j++)
      records.push(sqsRecord(benchEnvelope(uuidv7(), `${prefix}-${(i + j) % 500}`, 1), `${prefix}-m${i + j}`));
    events.push({ Records: records });
  }
  return events;
};

/** Process CPU (user + system) in µs per message over `events`. */
async function cpuPerMessage(handler: BatchHandler, events: readonly SQSEvent[]): Promise<number> {
  const start = process.cpuUsage();
  for (const event of events) await handler(event, lambdaContext(30_000));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (events.length * BATCH);
}

/** Median CPU µs per message of each path, over `rounds` rounds of `perRound` messages, the order rotating, after a warm-up. */
export async function clientCpuPerMessage(paths: readonly PathName[], rounds: number, perRound: number): Promise<Map<PathName, number>> {
  const handlers = new Map(
    paths.map((path) => [path, pathHandler(path, inMemoryClients(), { business: 'business', idempotency: 'idempotency' })]),
  );
  for (const [path, handler] of handlers) await cpuPerMessage(handler, batchesOf(perRound, `w-${path}`));
  const samples = new Map<PathName, number[]>(paths.map((path) => [path, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < paths.length; i++) {
      const path = paths[(i + round) % paths.length] as PathName;
      samples.get(path)?.push(await cpuPerMessage(handlers.get(path) as BatchHandler, batchesOf(perRound, `r${round}-${path}`)));
    }
  }
  const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  return new Map([...samples].map(([path, values]) => [path, median(values)]));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.AWS_LAMBDA_FUNCTION_NAME ??= 'bench-consumer';
  const only = process.env.BENCH_PATH as PathName | undefined;
  const paths: readonly PathName[] = only === undefined ? ['bare', 'transaction', 'floor', 'batch', 'powertools'] : [only];
  const cpu = await clientCpuPerMessage(paths, 5, Number(process.env.BENCH_EVENTS ?? 20_000) / 5);
  const bare = cpu.get('bare');
  for (const [path, us] of cpu)
    console.log(
      `${path.padEnd(12)} ${us.toFixed(0).padStart(6)} µs CPU per message${bare === undefined ? '' : `  ${(us / bare).toFixed(2)}× bare`}`,
    );
}
