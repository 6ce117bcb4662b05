import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type OutboxConfig, serializeConfig } from '../../shared/config.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { PROCESSOR_ENV } from '../../shared/processor/index.js';
import type { RelayTestStack } from './relay-stack.js';

/**
 * The processor as its image runs it: the bundle of functions/processor/main.ts that the tests'
 * global setup builds, under plain `node`. Some four times faster to start than the sources
 * under tsx (about 0.25 s against 1 s a process), and it is what is deployed.
 */
const MAIN = fileURLToPath(new URL('../../dist/assets/processor/main.mjs', import.meta.url));

/** The ECS entry point run as its own process, pointed at the local parts through the SDK's endpoint variables. */
export interface ProcessorProcess {
  readonly workerId: string;
  readonly child: ChildProcess;
  /** Resolves when the worker logged that it started. */
  readonly started: Promise<void>;
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  readonly output: string[];
}

/** A port free at the time of asking, for a process's health endpoint (which must name its port: 1–65535). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function spawnProcessor(
  stack: RelayTestStack,
  config: OutboxConfig,
  options: {
    workerId: string;
    leaseTableName: string;
    dynamodbEndpoint: string;
    failoverMs: number;
    /** Let Powertools write its EMF metrics to stdout (into `output`). @default false */
    metrics?: boolean;
  },
): Promise<ProcessorProcess> {
  return spawnMain({
    AWS_ENDPOINT_URL_DYNAMODB: options.dynamodbEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB_STREAMS: options.dynamodbEndpoint,
    AWS_ENDPOINT_URL_SNS: stack.server.address,
    AWS_ENDPOINT_URL_SQS: stack.server.address,
    AWS_ENDPOINT_URL_S3: stack.server.address,
    POWERTOOLS_METRICS_DISABLED: options.metrics === true ? 'false' : 'true',
    [RELAY_ENV.config]: serializeConfig(config),
    [RELAY_ENV.topicArns]: JSON.stringify(stack.topicArns),
    [RELAY_ENV.deadLetterQueueUrl]: stack.deadLetterQueueUrl,
    [PROCESSOR_ENV.streamArn]: stack.streamArn,
    [PROCESSOR_ENV.leaseTable]: options.leaseTableName,
    [PROCESSOR_ENV.failedBatchBucket]: 'outbox-failed-batches',
    [PROCESSOR_ENV.workerId]: options.workerId,
    [PROCESSOR_ENV.failoverMs]: String(options.failoverMs),
    [PROCESSOR_ENV.healthPort]: String(await freePort()),
  });
}

/**
 * The ECS entry point with the given environment (besides local credentials and region); the
 * worker id is `env`'s. For entry-point behaviour that needs no local stack.
 */
export function spawnMain(env: NodeJS.ProcessEnv): ProcessorProcess {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: the tests' global setup builds it (node scripts/build.mjs --assets)`);
  const child = spawn(process.execPath, ['--enable-source-maps', MAIN], {
    env: {
      ...process.env,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_METRICS_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      output.push(line);
      if (line.includes('"processor started"')) markStarted();
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return { workerId: env[PROCESSOR_ENV.workerId] ?? '', child, started, exited, output };
}
