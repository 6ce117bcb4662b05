import type { DynamoDBBatchResponse } from 'aws-lambda';
import { defineConfig } from 'dynamodb-outbox';
import { type RelayEventSourceSettings, relayEventSourceSettings } from 'dynamodb-outbox/relay';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamRunnerOptionsError } from '../../shared/local/event-source/errors.js';
import { type StreamHandler, StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import type { StreamBatchFailureRecord } from '../../shared/on-failure/batch-record.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

const outbox = { source: 'urn:test:timeout', topics: [{ name: 'orders' }], routes: { order: 'orders' } };
const config = defineConfig(outbox);

let runner: StreamRunner | undefined;
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
});

const idOf = (records: Parameters<StreamHandler>[0]['Records']) => records.map((r) => r.dynamodb?.NewImage?.aggregateId?.S);

describe('stream runner function timeout', () => {
  it('retries a timed-out batch only once the late invocation has ended, as Lambda ends it before the retry', async () => {
    const stream = new SimulatedStream();
    stream.commit({ type: 'order', id: 'o1' }, 1, 1);
    const steps: string[] = [];
    let release = (): void => {};
    const late = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handler: StreamHandler = async () => {
      const call = steps.filter((step) => step.endsWith('began')).length + 1;
      steps.push(`call ${call} began`);
      if (call === 1) {
        await late;
        steps.push('call 1 ended');
      }
      return { batchItemFailures: [] };
    };
    const errors: unknown[] = [];
    runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      settings: { ...relayEventSourceSettings(config), functionTimeoutSeconds: 1 },
      handler,
      onError: (error) => errors.push(error),
      pollIntervalMs: 10,
    });
    runner.start();
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(1);
    release();
    await expect.poll(() => steps.length, { timeout: 10_000 }).toBe(3);

    expect(steps).toEqual(['call 1 began', 'call 1 ended', 'call 2 began']);
    expect(String(errors[0])).toMatch(/^Error: Task timed out after 1\.00 seconds/);
    expect(errors).toHaveLength(1);
  });

  it('passes a context whose remaining time counts down from the function timeout', async () => {
    const stream = new SimulatedStream();
    stream.commit({ type: 'order', id: 'o1' }, 1, 1);
    const remaining: number[] = [];
    const handler: StreamHandler = async (_event, context) => {
      remaining.push(context.getRemainingTimeInMillis());
      return { batchItemFailures: [] };
    };
    runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      settings: relayEventSourceSettings(config),
      handler,
      pollIntervalMs: 10,
    });
    runner.start();
    await expect.poll(() => remaining.length, { timeout: 10_000 }).toBe(1);

    expect(remaining[0]).toBeGreaterThan(0);
    expect(remaining[0]).toBeLessThanOrEqual(60_000);
  });

  it('ends an invocation that does not answer within the timeout as a function error: bisected, retried, then given up on', async () => {
    const stream = new SimulatedStream();
    for (const id of ['o1', 'o2', 'hang', 'o4']) stream.commit({ type: 'order', id }, 1, 1);
    const invocations: (string | undefined)[][] = [];
    const abandoned: ((response: DynamoDBBatchResponse) => void)[] = [];
    const handler: StreamHandler = ({ Records }) => {
      invocations.push(idOf(Records));
      // Any batch with the hanging record never answers (until the test answers it, too late).
      if (idOf(Records).includes('hang')) return new Promise((resolve) => abandoned.push(resolve));
      return Promise.resolve({ batchItemFailures: [] });
    };
    const failures: StreamBatchFailureRecord[] = [];
    const errors: unknown[] = [];
    runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      settings: { ...relayEventSourceSettings(config), bisectBatchOnError: true, maxRetryAttempts: 1, functionTimeoutSeconds: 0.2 },
      handler,
      onFailure: (record) => {
        failures.push(record);
      },
      onError: (error) => errors.push(error),
      pollIntervalMs: 10,
    });
    runner.start();
    await expect.poll(() => failures.length, { timeout: 20_000 }).toBe(1);
    await runner.idle();

    // 4 times out → halves of 2 (the first succeeds) → the hanging half in 1s → 'hang' alone, retried once → 'o4'.
    expect(invocations).toEqual([['o1', 'o2', 'hang', 'o4'], ['o1', 'o2'], ['hang', 'o4'], ['hang'], ['hang'], ['o4']]);
    expect(failures[0]).toMatchObject({
      requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 2 },
      responseContext: { functionError: 'Unhandled' },
      DDBStreamBatchInfo: { batchSize: 1 },
    });
    expect(runner.stats).toMatchObject({ invocations: 6, failedInvocations: 4, batchesSentToOnFailure: 1 });
    const timeouts = errors.filter((e) => String(e).includes('Task timed out'));
    expect(timeouts).toHaveLength(4);
    expect(String(timeouts[0])).toMatch(
      /^Error: Task timed out after 0\.20 seconds: the invocation with 4 records of shardId-\d+ is a function error$/,
    );
    // Each hanging call was waited for one more timeout, then its retry went ahead, saying so.
    expect(
      errors.filter((e) =>
        /is still running 0\.40 seconds after it began \(Lambda would have ended it\); its retry runs alongside it$/.test(String(e)),
      ),
    ).toHaveLength(4);

    // The abandoned invocations answer at last; their answers change nothing.
    for (const resolve of abandoned) resolve({ batchItemFailures: [{ itemIdentifier: 'bogus' }] });
    stream.commit({ type: 'order', id: 'o5' }, 1, 1);
    await expect.poll(() => invocations.length, { timeout: 10_000 }).toBe(7);
    await runner.idle();
    expect(invocations.at(-1)).toEqual(['o5']);
    expect(runner.stats).toMatchObject({ invocations: 7, failedInvocations: 4, batchesSentToOnFailure: 1 });
  });
});

describe('stream runner function timeout, defined once in the settings', () => {
  it("times an invocation out after the config's relay.timeoutSeconds when given only relayEventSourceSettings(config)", async () => {
    const stream = new SimulatedStream();
    stream.commit({ type: 'order', id: 'o1' }, 1, 1);
    const remaining: number[] = [];
    let release = (): void => {};
    const late = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handler: StreamHandler = async (_event, context) => {
      remaining.push(context.getRemainingTimeInMillis());
      // The first call answers only once the test has seen it time out.
      if (remaining.length === 1) await late;
      return { batchItemFailures: [] };
    };
    const errors: unknown[] = [];
    runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      settings: relayEventSourceSettings(defineConfig({ ...outbox, relay: { timeoutSeconds: 1 } })),
      handler,
      onError: (error) => errors.push(error),
      pollIntervalMs: 10,
    });
    runner.start();
    try {
      await expect.poll(() => errors.length, { timeout: 10_000 }).toBeGreaterThan(0);
    } finally {
      // Answered either way, so stopping the runner never waits on the call.
      release();
    }
    await expect.poll(() => remaining.length, { timeout: 10_000 }).toBe(2);

    expect(String(errors[0])).toMatch(/^Error: Task timed out after 1\.00 seconds/);
    expect(remaining[0]).toBeGreaterThan(0);
    expect(remaining[0]).toBeLessThanOrEqual(1_000);
  });

  it("accepts a timeoutMs equal to the settings' function timeout", () => {
    const stream = new SimulatedStream();
    const handler: StreamHandler = async () => ({ batchItemFailures: [] });
    const settings = relayEventSourceSettings(config);
    expect(
      () =>
        new StreamRunner({
          streams: stream,
          streamArn: stream.streamArn,
          settings,
          handler,
          timeoutMs: config.relay.timeoutSeconds * 1000,
        }),
    ).not.toThrow();
  });

  it("rejects a timeoutMs that differs from the settings' function timeout, naming both", () => {
    const stream = new SimulatedStream();
    const handler: StreamHandler = async () => ({ batchItemFailures: [] });
    const create = () =>
      new StreamRunner({
        streams: stream,
        streamArn: stream.streamArn,
        settings: relayEventSourceSettings(config),
        handler,
        timeoutMs: 30_000,
      });

    expect(create).toThrow(StreamRunnerOptionsError);
    expect(create).toThrow(
      'Invalid stream runner option timeoutMs: got 30000, but settings.functionTimeoutSeconds is 60 (60000 ms); allowed: leave timeoutMs out',
    );
    expect(create).toThrow(expect.objectContaining({ code: 'INVALID_STREAM_RUNNER_OPTIONS', field: 'timeoutMs' }));
  });

  it.each([
    ['missing', undefined],
    ['zero', 0],
    ['negative', -1],
    ['not a number', '60'],
    ['infinite', Number.POSITIVE_INFINITY],
  ])('rejects settings whose function timeout is %s', (_what, functionTimeoutSeconds) => {
    const stream = new SimulatedStream();
    const handler: StreamHandler = async () => ({ batchItemFailures: [] });
    const settings = { ...relayEventSourceSettings(config), functionTimeoutSeconds } as unknown as RelayEventSourceSettings;

    expect(() => new StreamRunner({ streams: stream, streamArn: stream.streamArn, settings, handler })).toThrow(
      expect.objectContaining({ name: 'StreamRunnerOptionsError', field: 'settings.functionTimeoutSeconds' }),
    );
  });
});
