import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localApp } from '../../examples/orders/local-app.js';
import { config as appConfig } from '../../examples/orders/outbox.config.js';
import { defineConfig } from '../../shared/config.js';
import { LocalStackError } from '../../shared/local/errors.js';
import { startOutboxTestStack } from '../../shared/local/index.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';
import { freePort, portBindError } from '../../shared/local/stack/ports.js';
import { abortWhileJavaStarts } from '../helpers/abort-while-java-starts.js';
import { freePorts } from '../helpers/free-ports.js';
import { dynamoDbLocalJavaOn as javaOn } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

/*
 * An abort at each step of the start stops what had started: DynamoDB Local's Java (a real
 * process, looked for by its port), the emulator and the API (their ports free again), the
 * pollers, and the --persist folder the start created. Every part runs: the example API, its
 * consumers, the archive, and the low-latency processor.
 */
const config = defineConfig({ ...appConfig, lowLatencyAggregateTypes: ['payment'] });
const parent = mkdtempSync(join(tmpdir(), 'outbox-start-abort-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const STEPS = [
  'loading the optional peer dependencies',
  'checking Java',
  "binding the example API's port",
  'checking the ports',
  'taking the --persist folder',
  'starting DynamoDB Local',
  'starting the SNS/SQS emulator',
  'creating the outbox table',
  'creating the topics, queues and subscriptions',
  'starting the relay',
  'starting the low-latency processor',
  'starting the consumers',
  'starting the archiver',
  'starting the example API',
];

/** Starts the whole stack and aborts it as `abortAt` begins; what the start rejected with, the steps begun and the ports. */
async function abortedStart(abortAt: string, run: number) {
  const [apiPort, dynamoDbPort, emulatorPort] = await freePorts(3);
  const persistDir = join(parent, `run-${run}`, 'data');
  const controller = new AbortController();
  const steps: string[] = [];
  const errors: unknown[] = [];
  const error = await startLocalStack({
    config,
    ...localApp(),
    apiPort,
    dynamoDbPort,
    emulatorPort,
    persistDir,
    archiverMetrics: 'discard',
    onError: (_source, e) => errors.push(e),
    signal: controller.signal,
    onStep: (step) => {
      steps.push(step);
      if (step === abortAt) controller.abort(new Error('the test is cancelled'));
    },
  }).then(
    async (stack) => {
      await stack.stop();
      return new Error('the start resolved');
    },
    (e: unknown) => e,
  );
  return { error, steps, errors, apiPort, dynamoDbPort, emulatorPort, persistDir };
}

describe('startLocalStack aborted by its signal', { timeout: 120_000 }, () => {
  it.each(STEPS.map((step, i) => [step, i] as const))('while %s, stops what had started and leaves nothing', async (step, i) => {
    const { error, steps, errors, apiPort, dynamoDbPort, emulatorPort, persistDir } = await abortedStart(step, i);

    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({
      code: 'START_ABORTED',
      message: `the start was aborted while ${step} (the test is cancelled); what it had started has been stopped, nothing is left running`,
    });
    expect((error as Error).cause).toEqual(new Error('the test is cancelled'));
    // No step began after the abort, and every step before it ran.
    expect(steps).toEqual(STEPS.slice(0, i + 1));
    expect(javaOn(dynamoDbPort)).toEqual([]);
    for (const port of [apiPort, dynamoDbPort, emulatorPort]) expect(await portBindError(port)).toBeUndefined();
    // The --persist folder (and the parent it made) is gone: the start created them.
    expect(existsSync(join(persistDir, '..'))).toBe(false);
    expect(errors).toEqual([]);
  });
});

describe('startDynamoDbLocal aborted by its signal', { timeout: 120_000 }, () => {
  it('ends Java at once while it is starting, and rejects with START_ABORTED', async () => {
    const { port, error } = await abortWhileJavaStarts(new AbortController());

    expect(error).toMatchObject({ name: 'LocalStackError', code: 'START_ABORTED' });
    expect((error as Error).message).toMatch(/^the start was aborted while starting DynamoDB Local \(This operation was aborted\)/);
    expect(javaOn(port)).toEqual([]);
    expect(await portBindError(port)).toBeUndefined();
  });
});

describe('startOutboxTestStack aborted by its signal', { timeout: 120_000 }, () => {
  it('stops DynamoDB Local once it is running and rejects with START_ABORTED', async () => {
    const dynamoDbPort = await freePort();
    const controller = new AbortController();
    const starting = startOutboxTestStack({
      config: appConfig,
      dynamoDbPort,
      subscribers: [{ name: 'audit', topic: 'orders.fifo' }],
      signal: controller.signal,
    }).then(
      async (stack) => {
        await stack.stop();
        return new Error('the start resolved');
      },
      (e: unknown) => e,
    );
    await waitFor(() => javaOn(dynamoDbPort).length > 0, { timeoutMs: 30_000, what: `a Java process for port ${dynamoDbPort}` });

    controller.abort(new Error('cancelled'));
    const error = await starting;

    expect(error).toMatchObject({ name: 'LocalStackError', code: 'START_ABORTED' });
    expect((error as Error).message).toContain('(cancelled); what it had started has been stopped');
    expect(javaOn(dynamoDbPort)).toEqual([]);
  });

  it('starts nothing when the signal has aborted already', async () => {
    const dynamoDbPort = await freePort();
    const error = await startOutboxTestStack({ config: appConfig, dynamoDbPort, signal: AbortSignal.abort('too late') }).catch(
      (e: unknown) => e,
    );

    expect(error).toMatchObject({
      code: 'START_ABORTED',
      message:
        'the start was aborted before anything had started (too late); what it had started has been stopped, nothing is left running',
    });
    expect(javaOn(dynamoDbPort)).toEqual([]);
  });
});
