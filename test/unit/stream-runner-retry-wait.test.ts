import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { RETRY_BASE_DELAY_MS, RETRY_MAX_DELAY_MS, retryWaitMs } from '../../shared/local/event-source/retry-wait.js';
import { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { settlesWithin } from '../helpers/wait.js';

/*
 * A handler that fails without any I/O (it throws, or reports a failed record, at once) has its
 * batch retried by the local event source mapping. Each scenario runs in a process of its own,
 * killed after GUARD_MS: a runner that retried in a loop of microtasks would starve that
 * process's timers (vitest's timeout among them) and hang it, where here the test fails.
 */
const GUARD_MS = 20_000;
const children: ReturnType<typeof spawn>[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

type Failure = 'throws' | 'reports';
type Scenario = { failure: Failure; maxRetryAttempts: number } & ({ until: 'given-up' } | { until: 'stopped-by-timer' });

/** The scenario's script: a runner over an in-memory stream with one record, whose handler fails at once, always. */
function script({ failure, maxRetryAttempts, until }: Scenario): string {
  const module = (path: string) => JSON.stringify(resolve(path));
  return `
const { StreamRunner } = await import(${module('shared/local/event-source/stream-runner.ts')});
const { defineConfig } = await import(${module('shared/config.ts')});
const { relayEventSourceSettings } = await import(${module('shared/event-source.ts')});
const { SimulatedStream } = await import(${module('test/helpers/simulated-stream.ts')});
const config = defineConfig({ source: 'urn:test:retry-wait', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const stream = new SimulatedStream();
stream.commit({ type: 'order', id: 'o1' }, 1, 1);
let timerFired = false;
/** Per invocation: whether the timer set at the first one had fired by then. */
const timerFiredAtCall = [];
let done;
const finished = new Promise((resolve) => { done = resolve; });
const failures = [];
const runner = new StreamRunner({
  streams: stream,
  streamArn: stream.streamArn,
  settings: { ...relayEventSourceSettings(config), maxRetryAttempts: ${maxRetryAttempts}, maxRecordAgeSeconds: -1, bisectBatchOnError: false },
  pollIntervalMs: 10,
  handler: (event) => {
    if (timerFiredAtCall.length === 0) {
      setTimeout(() => {
        timerFired = true;
        ${until === 'stopped-by-timer' ? 'runner.stop().then(done);' : ''}
      }, 0);
    }
    timerFiredAtCall.push(timerFired);
    ${failure === 'throws' ? "throw new Error('failing at once');" : 'return Promise.resolve({ batchItemFailures: [{ itemIdentifier: event.Records[0].dynamodb.SequenceNumber }] });'}
  },
  onFailure: (record) => {
    failures.push({ timerFired, condition: record.requestContext.condition, invokeCount: record.requestContext.approximateInvokeCount });
    ${until === 'given-up' ? 'done();' : ''}
  },
});
runner.start();
await finished;
await runner.stop();
process.stdout.write(JSON.stringify({ timerFiredAtCall, failures, stats: runner.stats }), () => process.exit(0));
`;
}

interface Outcome {
  readonly timerFiredAtCall: boolean[];
  readonly failures: { timerFired: boolean; condition: string; invokeCount: number }[];
  readonly stats: { invocations: number; failedInvocations: number; batchesSentToOnFailure: number };
}

/** Runs the scenario in a child process; rejects when it has not ended within GUARD_MS (it is then killed). */
async function run(scenario: Scenario): Promise<Outcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(scenario)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const code = await settlesWithin(exited, GUARD_MS, 'end of the scenario process (the runner starved it)');
  expect({ code, err: err.trim() }).toEqual({ code: 0, err: '' });
  return JSON.parse(out) as Outcome;
}

describe('stream runner retrying a batch whose handler fails without I/O', () => {
  it.each<Failure>(['throws', 'reports'])(
    'waits before each retry (handler %s), so a timer set meanwhile fires; retries as many times as set, then gives the batch up',
    async (failure) => {
      const { timerFiredAtCall, failures, stats } = await run({ failure, maxRetryAttempts: 3, until: 'given-up' });

      // The first try and three retries, each after the timer set at the first one had fired.
      expect(timerFiredAtCall).toEqual([false, true, true, true]);
      expect(failures).toEqual([{ timerFired: true, condition: 'RetryAttemptsExhausted', invokeCount: 4 }]);
      expect(stats).toMatchObject({ invocations: 4, failedInvocations: 4, batchesSentToOnFailure: 1 });
    },
  );

  it('can be stopped by a timer while it retries without limit', async () => {
    const { timerFiredAtCall, failures } = await run({ failure: 'throws', maxRetryAttempts: -1, until: 'stopped-by-timer' });

    // The timer set at the first invocation ran and stopped the runner: every invocation after the first saw it fired.
    expect(timerFiredAtCall[0]).toBe(false);
    expect(timerFiredAtCall.slice(1).every(Boolean)).toBe(true);
    expect(failures).toEqual([]);
  });
});

describe('the wait after a failed invocation', () => {
  it('is a turn of the event loop with no retry, then backs off from the base delay, doubling, up to the bound', () => {
    const waits = [0, 1, 2, 3, 4, 5, 6, 10, 10_000].map(retryWaitMs);

    expect(waits).toEqual([0, RETRY_BASE_DELAY_MS, 20, 40, 80, 160, RETRY_MAX_DELAY_MS, RETRY_MAX_DELAY_MS, RETRY_MAX_DELAY_MS]);
  });
});

describe('the wait before a bisected half', () => {
  it('is a turn of the event loop, also after retries of the whole batch', async () => {
    const config = defineConfig({ source: 'urn:test:retry-wait', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
    const settings = { ...relayEventSourceSettings(config), maxRetryAttempts: 10, maxRecordAgeSeconds: -1, bisectBatchOnError: true };
    const stream = new SimulatedStream();
    stream.commit({ type: 'order', id: 'o1' }, 1, 1);
    stream.commit({ type: 'order', id: 'o1' }, 2, 1);
    // Each entry: a handler call (its batch's size), or a wait the runner started, in ms.
    const log: (string | number)[] = [];
    // The runner's own waits, recorded as they start and waited as they are.
    const runnerPrototype = StreamRunner.prototype as unknown as { sleep(ms: number): Promise<void> };
    const wait = runnerPrototype.sleep;
    const sleep = vi.spyOn(runnerPrototype, 'sleep').mockImplementation(function (this: unknown, ms: number) {
      log.push(ms);
      return wait.call(this, ms);
    });
    let calls = 0;
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      settings,
      pollIntervalMs: 10,
      // Three retries of the whole batch (its first record reported failed), then a throw that bisects it.
      handler: (event: DynamoDBStreamEvent) => {
        calls++;
        log.push(`invoke ${event.Records.length}`);
        if (calls <= 3)
          return Promise.resolve({ batchItemFailures: [{ itemIdentifier: event.Records[0]?.dynamodb?.SequenceNumber ?? '' }] });
        if (calls === 4) throw new Error('failing at once');
        if (calls === 6) done();
        return Promise.resolve({ batchItemFailures: [] });
      },
    });
    try {
      runner.start();
      await settlesWithin(finished, 20_000, 'both halves handled');
    } finally {
      await runner.stop();
      sleep.mockRestore();
    }

    const first = log.indexOf('invoke 2');
    const last = log.lastIndexOf('invoke 1');
    // The waits between the invocations, without each invocation's timeout.
    const waits = log.slice(first, last + 1).filter((entry) => entry !== settings.functionTimeoutSeconds * 1000);
    expect(waits).toEqual(['invoke 2', 10, 'invoke 2', 20, 'invoke 2', 40, 'invoke 2', 0, 'invoke 1', 'invoke 1']);
  });
});
