import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RELAY_TUNING, defineConfig } from '../../shared/config.js';
import { type RelayEventSourceSettings, relayEventSourceSettings } from '../../shared/event-source.js';
import { type StreamHandler, StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import type { StreamBatchFailureRecord } from '../../shared/on-failure/batch-record.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

const config = defineConfig({ source: 'urn:test:record-age', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const MAX_RECORD_AGE_SECONDS = 60;
const idOf = (r: DynamoDBRecord) => r.dynamodb?.NewImage?.aggregateId?.S;
const commit = (stream: SimulatedStream, ...ids: string[]) => {
  for (const id of ids) stream.commit({ type: 'order', id }, 1, 1);
};
/** Moves the clock past the maximum record age of every record written so far. */
const ageRecords = () => vi.setSystemTime(Date.now() + (MAX_RECORD_AGE_SECONDS + 2) * 1000);

/** A handler that throws on every batch, noting the ids it was given; at the given call, it ages every record so far. */
function failingHandler({ ageRecordsAtCall }: { ageRecordsAtCall: number }): { sent: (string | undefined)[][]; handler: StreamHandler } {
  const sent: (string | undefined)[][] = [];
  const handler: StreamHandler = async ({ Records }) => {
    sent.push(Records.map(idOf));
    if (sent.length === ageRecordsAtCall) ageRecords();
    throw new Error('failing');
  };
  return { sent, handler };
}

let runner: StreamRunner | undefined;

beforeEach(() => {
  // Only `Date` is faked, and it keeps running: the runner's timers and polling stay real.
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
});

afterEach(async () => {
  await runner?.stop();
  runner = undefined;
  vi.useRealTimers();
});

function start(stream: SimulatedStream, handler: StreamHandler, settings: Partial<RelayEventSourceSettings>): StreamBatchFailureRecord[] {
  const failures: StreamBatchFailureRecord[] = [];
  runner = new StreamRunner({
    streams: stream,
    streamArn: stream.streamArn,
    settings: { ...relayEventSourceSettings(config), maxRecordAgeSeconds: MAX_RECORD_AGE_SECONDS, ...settings },
    handler,
    onFailure: (record) => {
      failures.push(record);
    },
    pollIntervalMs: 10,
  });
  runner.start();
  return failures;
}

describe('stream runner maximum record age', () => {
  it('reports how often a batch given up for its age was sent to the handler', async () => {
    const stream = new SimulatedStream();
    commit(stream, 'o1', 'o2');
    const { sent, handler } = failingHandler({ ageRecordsAtCall: 3 });
    const failures = start(stream, handler, { maxRetryAttempts: 5, bisectBatchOnError: false });
    await expect.poll(() => failures.length, { timeout: 20_000 }).toBe(1);

    expect(sent).toEqual([
      ['o1', 'o2'],
      ['o1', 'o2'],
      ['o1', 'o2'],
    ]);
    expect(failures[0]).toMatchObject({
      requestContext: { condition: 'RecordAgeExceeded', approximateInvokeCount: 3 },
      DDBStreamBatchInfo: { batchSize: 2 },
    });
  });

  it('gives up records that expired before they were sent batch by batch, with an invoke count of 0', async () => {
    const stream = new SimulatedStream();
    commit(stream, 'o1', 'o2', 'o3', 'o4', 'o5');
    ageRecords();
    const handler: StreamHandler = async () => ({ batchItemFailures: [] });
    const failures = start(stream, handler, { batchSize: 2 });
    await expect.poll(() => failures.length, { timeout: 20_000 }).toBe(3);

    expect(runner!.stats.invocations).toBe(0);
    expect(
      failures.map((f) => [f.requestContext.condition, f.requestContext.approximateInvokeCount, f.DDBStreamBatchInfo.batchSize]),
    ).toEqual([
      ['RecordAgeExceeded', 0, 2],
      ['RecordAgeExceeded', 0, 2],
      ['RecordAgeExceeded', 0, 1],
    ]);
  });

  it('gives the batch after one given up for its age the full number of retries', async () => {
    const stream = new SimulatedStream();
    commit(stream, 'o1');
    const { sent, handler } = failingHandler({ ageRecordsAtCall: 3 });
    const failures = start(stream, handler, { maxRetryAttempts: 5, bisectBatchOnError: false });
    await expect.poll(() => failures.length, { timeout: 20_000 }).toBe(1);
    commit(stream, 'o2');
    await expect.poll(() => failures.length, { timeout: 20_000 }).toBe(2);

    expect(failures.map((f) => f.requestContext)).toMatchObject([
      { condition: 'RecordAgeExceeded', approximateInvokeCount: 3 },
      { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 6 },
    ]);
    // The first try and maxRetryAttempts retries.
    expect(sent.filter((ids) => ids.includes('o2'))).toHaveLength(6);
  });

  it('does not carry the bisection of a batch given up for its age over to later records', async () => {
    const stream = new SimulatedStream();
    commit(stream, 'o1', 'o2', 'o3', 'o4');
    const sent: (string | undefined)[][] = [];
    const handler: StreamHandler = async ({ Records }) => {
      sent.push(Records.map(idOf));
      if (Records.every((r) => Number(idOf(r)?.slice(1)) > 4)) return { batchItemFailures: [] };
      // 4 records fail, then 2, then 1 (twice): the batch is in bisected segments when it expires.
      if (sent.length === 4) ageRecords();
      throw new Error('failing');
    };
    const failures = start(stream, handler, { maxRetryAttempts: 5, bisectBatchOnError: true });
    await expect.poll(() => failures.reduce((n, f) => n + f.DDBStreamBatchInfo.batchSize, 0), { timeout: 20_000 }).toBe(4);
    commit(stream, 'o5', 'o6', 'o7', 'o8');
    await expect.poll(() => sent.flat().filter((id) => Number(id?.slice(1)) > 4).length, { timeout: 20_000 }).toBe(4);

    expect(sent).toEqual([['o1', 'o2', 'o3', 'o4'], ['o1', 'o2'], ['o1'], ['o1'], ['o5', 'o6', 'o7', 'o8']]);
    expect(failures.every((f) => f.requestContext.condition === 'RecordAgeExceeded')).toBe(true);
    expect(failures[0]).toMatchObject({ requestContext: { approximateInvokeCount: 2 }, DDBStreamBatchInfo: { batchSize: 1 } });
  });
});

describe('stream runner with no limits (-1), as AWS allows', () => {
  it('retries a failing batch beyond the default retry count when maxRetryAttempts is -1', async () => {
    const stream = new SimulatedStream();
    commit(stream, 'o1', 'o2');
    const failingCalls = DEFAULT_RELAY_TUNING.maxRetryAttempts + 5;
    const sent: (string | undefined)[][] = [];
    const handler: StreamHandler = async ({ Records }) => {
      sent.push(Records.map(idOf));
      if (sent.length <= failingCalls) throw new Error('failing');
      return { batchItemFailures: [] };
    };
    const failures = start(stream, handler, { maxRetryAttempts: -1, maxRecordAgeSeconds: -1, bisectBatchOnError: false });
    await expect.poll(() => sent.length, { timeout: 20_000 }).toBe(failingCalls + 1);
    await runner!.idle();

    expect(sent.every((ids) => ids.join() === 'o1,o2')).toBe(true);
    expect(failures).toEqual([]);
    expect(runner!.stats).toMatchObject({ failedInvocations: failingCalls, batchesSentToOnFailure: 0 });
  });

  it('hands over records of any age when maxRecordAgeSeconds is -1', async () => {
    const stream = new SimulatedStream();
    commit(stream, 'o1', 'o2');
    // A year later: far past any finite maximum record age.
    vi.setSystemTime(Date.now() + 365 * 24 * 3600 * 1000);
    const sent: (string | undefined)[][] = [];
    const handler: StreamHandler = async ({ Records }) => {
      sent.push(Records.map(idOf));
      return { batchItemFailures: [] };
    };
    const failures = start(stream, handler, { maxRecordAgeSeconds: -1 });
    await expect.poll(() => sent.flat().length, { timeout: 20_000 }).toBe(2);
    await runner!.idle();

    expect(sent.flat()).toEqual(['o1', 'o2']);
    expect(failures).toEqual([]);
  });
});
