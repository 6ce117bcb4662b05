import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { marshall } from '@aws-sdk/util-dynamodb';
import { build } from 'esbuild';
import { startFauxqs } from 'fauxqs';
import { v7 as uuidv7 } from 'uuid';
import { assetBuildOptions, ownCodeSourceMap } from '../scripts/bundle-settings.mjs';
import { defineConfig, serializeConfig } from '../shared/config.js';
import { RELAY_ENV } from '../shared/event-source.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localClients } from '../shared/local/clients.js';
import { startDynamoDbLocal } from '../shared/local/stack/dynamodb-local.js';
import { createOutboxTable } from '../shared/local/stack/table.js';
import { SLOT_KIND, slotKey } from '../shared/slot.js';
import { BENCH_SOURCE, benchEnvelope, sqsRecord } from './consumer-paths.js';
import { machine, percentile, recordSection } from './report.js';

/*
 * Cold starts, side by side in one run: the shipped relay bundle (functions/relay/handler.ts built
 * with the asset settings of scripts/build.mjs, as dist/assets/relay) against a minimal hand-rolled
 * relay (SNS client + Publish loop) built with the same settings, and a consumer built with
 * `createConsumer` against a minimal SQS handler doing the same write without dedup. Each bundle is
 * imported by RUNS fresh `node` processes, the bundles alternating, once with the source maps on as
 * the deployed functions run (`NODE_OPTIONS=--enable-source-maps`) and once without; each process
 * reports the moment its bundle was loaded and the moment its first invocation was answered
 * (against the in-process SNS/SQS emulator and DynamoDB Local started here).
 * Run: npm run bench:coldstart
 */
const RUNS = Number(process.env.BENCH_COLDSTART_RUNS ?? 20);
const CHILD = fileURLToPath(new URL('./coldstart-child.mjs', import.meta.url));
const at = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const run = promisify(execFile);

type BundleName = 'relay' | 'minimal-relay' | 'consumer' | 'minimal-consumer';
const ENTRIES: Record<BundleName, string> = {
  relay: at('functions/relay/handler.ts'),
  'minimal-relay': at('bench/coldstart-minimal-relay.ts'),
  consumer: at('bench/coldstart-consumer.ts'),
  'minimal-consumer': at('bench/coldstart-minimal-consumer.ts'),
};
const NAMES = Object.keys(ENTRIES) as BundleName[];

interface Sample {
  readonly started: number;
  readonly loaded: number;
  readonly answered: number;
}

const outdir = mkdtempSync(join(tmpdir(), 'coldstart-'));
const ddb = await startDynamoDbLocal();
const server = await startFauxqs({ port: 0, logger: false });
const clients = localClients({ dynamodb: ddb.endpoint, aws: server.address });
try {
  await build({ ...assetBuildOptions(), entryPoints: ENTRIES, outdir });
  // As scripts/build.mjs ships them: the maps keep only the mappings into the package's own code.
  for (const name of readdirSync(outdir).filter((n) => n.endsWith('.map'))) {
    writeFileSync(join(outdir, name), ownCodeSourceMap(readFileSync(join(outdir, name), 'utf8')));
  }
  const topic = server.createTopic('coldstart');
  const { queueUrl: dlqUrl } = server.createQueue('coldstart-relay-dlq');
  const tableName = 'coldstart-consumer';
  await createOutboxTable(clients.dynamodb, tableName);
  const config = defineConfig({ source: BENCH_SOURCE, topics: [{ name: 'coldstart' }], routes: { order: 'coldstart' } });

  const baseEnv = {
    PATH: process.env.PATH,
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_LAMBDA_FUNCTION_NAME: 'coldstart',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    AWS_ENDPOINT_URL_SNS: server.address,
    AWS_ENDPOINT_URL_SQS: server.address,
    AWS_ENDPOINT_URL_DYNAMODB: ddb.endpoint,
    [RELAY_ENV.config]: serializeConfig(config),
    [RELAY_ENV.topicArns]: JSON.stringify({ coldstart: topic.topicArn }),
    [RELAY_ENV.deadLetterQueueUrl]: dlqUrl,
    MINIMAL_TOPIC_ARN: topic.topicArn,
    BENCH_TABLE_NAME: tableName,
    BENCH_SOURCE,
  };

  /** The first event of each kind of function: a new slot image for the relays, an SQS message of a new event for the consumers. */
  const eventFor = (name: BundleName): unknown => {
    const id = uuidv7();
    if (name === 'consumer' || name === 'minimal-consumer') return { Records: [sqsRecord(benchEnvelope(id, `c-${id}`, 1), `m-${id}`)] };
    const now = new Date().toISOString();
    const slot = {
      ...slotKey({ type: 'order', id: `r-${id}` }),
      kind: SLOT_KIND,
      aggregateType: 'order',
      aggregateId: `r-${id}`,
      source: BENCH_SOURCE,
      seq: 1,
      createdAt: now,
      events: [{ id, type: 'order.placed', time: now, data: '{"total":4200,"currency":"EUR"}' }],
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    };
    return {
      Records: [
        {
          eventID: id,
          eventName: 'MODIFY',
          eventVersion: '1.1',
          eventSource: 'aws:dynamodb',
          awsRegion: LOCAL_REGION,
          eventSourceARN: `arn:aws:dynamodb:${LOCAL_REGION}:000000000000:table/coldstart/stream/2026-01-01T00:00:00.000`,
          dynamodb: {
            ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
            Keys: marshall(slotKey({ type: 'order', id: `r-${id}` })),
            NewImage: marshall(slot),
            SequenceNumber: String(Date.now()),
            SizeBytes: 400,
            StreamViewType: 'NEW_IMAGE',
          },
        },
      ],
    };
  };

  /** One fresh process: import the bundle, answer one event. */
  const coldStart = async (name: BundleName, sourceMaps: boolean): Promise<Sample> => {
    const env = {
      ...baseEnv,
      ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
      COLDSTART_BUNDLE: join(outdir, `${name}.mjs`),
      COLDSTART_EVENT: JSON.stringify(eventFor(name)),
    };
    const { stdout } = await run(process.execPath, [CHILD], { env, maxBuffer: 16 * 1024 * 1024 });
    const line = stdout.split('\n').find((l) => l.startsWith('COLDSTART '));
    if (line === undefined) throw new Error(`${name}: the process printed no timings:\n${stdout.slice(-2000)}`);
    const sample = JSON.parse(line.slice('COLDSTART '.length)) as Sample & { answer: unknown };
    const failures = (sample.answer as { batchItemFailures?: unknown[] } | undefined)?.batchItemFailures ?? [];
    if (failures.length > 0) throw new Error(`${name}: the first invocation failed: ${JSON.stringify(sample.answer)}`);
    return sample;
  };

  const samples = new Map<string, Sample[]>();
  const key = (name: BundleName, sourceMaps: boolean) => `${name}|${sourceMaps}`;
  console.log('one untimed start of each bundle…');
  for (const name of NAMES) for (const sourceMaps of [true, false]) await coldStart(name, sourceMaps);
  for (let round = 0; round < RUNS; round++) {
    if (round % 5 === 0) console.log(`round ${round + 1} of ${RUNS}…`);
    for (const sourceMaps of [true, false]) {
      // The order rotates, so a change of machine load weighs on every bundle alike.
      for (let i = 0; i < NAMES.length; i++) {
        const name = NAMES[(i + round) % NAMES.length] as BundleName;
        const list = samples.get(key(name, sourceMaps)) ?? [];
        list.push(await coldStart(name, sourceMaps));
        samples.set(key(name, sourceMaps), list);
      }
    }
  }

  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  const stats = (name: BundleName, sourceMaps: boolean) => {
    const list = samples.get(key(name, sourceMaps)) ?? [];
    return {
      loaded: median(list.map((s) => s.loaded)),
      importMs: median(list.map((s) => s.loaded - s.started)),
      answered: median(list.map((s) => s.answered)),
    };
  };
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  const size = (name: BundleName, ext = '.mjs') => statSync(join(outdir, `${name}${ext}`)).size;
  const pairs: [BundleName, BundleName][] = [
    ['relay', 'minimal-relay'],
    ['consumer', 'minimal-consumer'],
  ];
  const rows: string[] = [];
  const verdicts: string[] = [];
  for (const [ours, minimal] of pairs) {
    for (const sourceMaps of [true, false]) {
      const a = stats(ours, sourceMaps);
      const b = stats(minimal, sourceMaps);
      const mode = sourceMaps ? 'on (as deployed)' : 'off';
      rows.push(
        `| ${ours} | ${mode} | ${kib(size(ours))} (map ${kib(size(ours, '.mjs.map'))}) | ${a.loaded.toFixed(0)} | ${a.importMs.toFixed(0)} | ${a.answered.toFixed(0)} |`,
        `| ${minimal} | ${mode} | ${kib(size(minimal))} (map ${kib(size(minimal, '.mjs.map'))}) | ${b.loaded.toFixed(0)} | ${b.importMs.toFixed(0)} | ${b.answered.toFixed(0)} |`,
        `| **${ours} / ${minimal}** | ${mode} | **${(size(ours) / size(minimal)).toFixed(2)}×** | **${(a.loaded / b.loaded).toFixed(2)}×** | ${(a.importMs / b.importMs).toFixed(2)}× | ${(a.answered / b.answered).toFixed(2)}× |`,
      );
      if (ours === 'relay') {
        const met = (ok: boolean) => (ok ? 'met' : 'not met');
        verdicts.push(
          `Relay, source maps ${mode}: module loaded ${(a.loaded / b.loaded).toFixed(2)}× the minimal relay's (target ≤ 1.5×: ${met(a.loaded / b.loaded <= 1.5)}), ` +
            `bundle ${(size(ours) / size(minimal)).toFixed(2)}× its size (target ≤ 2×: ${met(size(ours) / size(minimal) <= 2)}).`,
        );
      }
    }
  }
  const table = [
    '| bundle | source maps | size (.mjs) | module loaded (ms, p50) | import alone (ms, p50) | first invocation answered (ms, p50) |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
  console.log(`${table}\n\n${verdicts.join(' ')}`);
  recordSection(
    'Cold start: relay and consumer bundles',
    `Command: \`npm run bench:coldstart\` — ${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadavg()[0]?.toFixed(1)} at the end.

Four bundles, each built with the settings of the shipped assets (\`scripts/bundle-settings.mjs\`, which \`scripts/build.mjs\`
uses: ESM, minified, the AWS SDK inside, a linked source map): the relay (\`functions/relay/handler.ts\`, as
\`dist/assets/relay/index.mjs\`); a minimal hand-rolled relay (\`bench/coldstart-minimal-relay.ts\`: an SNS client and a
\`Publish\` per event, nothing else); a consumer built with \`createConsumer\` (\`bench/coldstart-consumer.ts\`, the inbox by
transaction); and a minimal SQS handler doing the same write without dedup (\`bench/coldstart-minimal-consumer.ts\`). Each is
started in ${RUNS} fresh \`node\` processes (the bundles alternating, the order rotating), which import it and call its handler
once: the relays with one new outbox slot image (one event, published to a topic of the in-process SNS/SQS emulator), the
consumers with one SQS message of a new event (written to DynamoDB Local). Times are medians, in ms since the process
started (\`performance.now()\` in the process), so node's own start is in every figure; "import alone" leaves it out. The
deployed functions run with \`NODE_OPTIONS=--enable-source-maps\` (\`OutboxFunction\`), so both ways are measured.

${table}

${verdicts.join(' ')}

What the difference buys: the relay bundle holds, besides the SNS client the minimal one has, an SQS client (the relay
DLQ), Powertools Logger and Metrics (the structured log lines and the metrics the construct's alarms and dashboard read), the
config's validation, the envelope, routing, FIFO grouping, batching, retries and order per aggregate. The consumer bundle adds
to the minimal one the envelope's parsing and limits, the trust checks, the inbox and sequence records, and Powertools Logger
and Metrics. On Lambda the first invocation also waits for the function's code download and runtime start, which
this benchmark does not see, and the SDK's first request there opens a TLS connection; both weigh alike on either bundle.`,
  );
} finally {
  clients.destroy();
  await server.stop();
  await ddb.stop();
  rmSync(outdir, { recursive: true, force: true });
}
