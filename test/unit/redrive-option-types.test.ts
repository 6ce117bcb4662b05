import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { summarizeDlq } from '../../shared/redrive/dlq-summary.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { type OnFailureRedriveOptions, redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq';
const SOURCE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const topicArns = { orders: 'arn:aws:sns:eu-west-1:123456789012:orders' };
const config = defineConfig({ source: 'urn:test', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

/** A client that records what it is sent: a refusal must come before the first call. */
const sent: unknown[] = [];
const client = { send: async (command: unknown) => sent.push(command) } as never;

/** The RedriveOptionsError `run` rejects with (an error of another kind, or none, fails the test). */
async function refusal(run: () => Promise<unknown>): Promise<RedriveOptionsError> {
  const error = await run().then(
    () => new Error('the options were taken'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RedriveOptionsError);
  expect(sent).toEqual([]);
  return error as RedriveOptionsError;
}

const onFailure = (changed: Record<string, unknown>) => () =>
  redriveOnFailure({
    source: { s3: client, bucket: 'relay-failures' },
    sns: client,
    streams: client,
    config,
    topicArns,
    ...changed,
  } as OnFailureRedriveOptions);

describe('the redrives refuse a client without send before anything is read', () => {
  it.each([
    [
      'redriveRelayDlq sns',
      () => redriveRelayDlq({ sqs: client, sns: undefined as never, queueUrl: DLQ, topicArns }),
      'sns',
      'got undefined; allowed: an SNSClient',
    ],
    [
      'redriveRelayDlq sqs',
      () => redriveRelayDlq({ sqs: {} as never, sns: client, queueUrl: DLQ, topicArns }),
      'sqs',
      'got an object without a send method; allowed: an SQSClient',
    ],
    [
      'redriveQueueDlq sqs',
      () => redriveQueueDlq({ sqs: null as never, queueUrl: DLQ, targetQueueUrl: SOURCE }),
      'sqs',
      'got null; allowed: an SQSClient',
    ],
    ['summarizeDlq sqs', () => summarizeDlq({ sqs: undefined as never, queueUrl: DLQ }), 'sqs', 'got undefined; allowed: an SQSClient'],
    ['redriveOnFailure streams', onFailure({ streams: undefined }), 'streams', 'got undefined; allowed: a DynamoDBStreamsClient'],
    ['redriveOnFailure sns', onFailure({ sns: {} }), 'sns', 'got an object without a send method; allowed: an SNSClient'],
    ['redriveOnFailure source.s3', onFailure({ source: { bucket: 'relay-failures' } }), 'source.s3', 'got undefined; allowed: an S3Client'],
    ['redriveOnFailure source.sqs', onFailure({ source: { queueUrl: DLQ, sqs: 'sqs' } }), 'source.sqs', 'got "sqs"; allowed: an SQSClient'],
  ])('%s', async (_name, run, field, words) => {
    const error = await refusal(run);
    expect(error.field).toBe(field);
    expect(error.detail).toContain(words);
  });
});

describe('the redrives refuse a dryRun, onProgress or signal of the wrong type before anything is read', () => {
  it.each([
    ['yes', '"yes"'],
    [1, '1'],
    ['false', '"false"'],
  ])('dryRun %j: a queue redrive ran for real on anything but true, the S3 one dry on anything truthy', async (dryRun, shown) => {
    for (const run of [
      () => redriveQueueDlq({ sqs: client, queueUrl: DLQ, targetQueueUrl: SOURCE, dryRun: dryRun as never }),
      () => redriveRelayDlq({ sqs: client, sns: client, queueUrl: DLQ, topicArns, dryRun: dryRun as never }),
      onFailure({ dryRun }),
    ]) {
      const error = await refusal(run);
      expect(error.field).toBe('dryRun');
      expect(error.detail).toBe(`got ${shown}; allowed: true (read and classify, send nothing) or false`);
    }
  });

  it('onProgress that is no function: the run stopped once its first batch had moved', async () => {
    const error = await refusal(() => redriveQueueDlq({ sqs: client, queueUrl: DLQ, targetQueueUrl: SOURCE, onProgress: 'bar' as never }));
    expect(error.field).toBe('onProgress');
    expect(error.detail).toContain('got "bar"; allowed: a function');
    expect((await refusal(() => summarizeDlq({ sqs: client, queueUrl: DLQ, onProgress: 5 as never }))).field).toBe('onProgress');
  });

  it.each([
    [{}, 'an object that is no AbortSignal'],
    [true, 'true'],
  ])('signal %j', async (signal, given) => {
    const error = await refusal(onFailure({ signal }));
    expect(error.field).toBe('signal');
    expect(error.detail).toContain(`got ${given}; allowed: an AbortSignal`);
  });

  it("a signal without removeEventListener, which a retry's pause calls once it ends (a TypeError in a timer), is refused", async () => {
    const signal = { aborted: false, addEventListener: () => {} };
    const error = await refusal(onFailure({ signal }));
    expect(error.field).toBe('signal');
    expect(error.detail).toContain('got an object that is no AbortSignal; allowed: an AbortSignal');
  });

  it('takes a signal of a polyfill or another realm: a boolean aborted, addEventListener and removeEventListener', async () => {
    const signal = { aborted: true, reason: undefined, addEventListener: () => {}, removeEventListener: () => {} };
    const taken = await summarizeDlq({
      sqs: { send: async () => ({ Attributes: {} }) } as never,
      queueUrl: DLQ,
      signal: signal as never,
    }).then(
      () => 'taken',
      (error: unknown) => (error instanceof RedriveOptionsError ? error.field : 'taken'),
    );
    expect(taken).toBe('taken');
  });

  it('takes a boolean dryRun, a function and a signal', async () => {
    const taken = await summarizeDlq({
      sqs: { send: async () => ({ Attributes: {} }) } as never,
      queueUrl: DLQ,
      onProgress: () => {},
      signal: AbortSignal.abort(),
    }).then(
      () => 'taken',
      (error: unknown) => (error instanceof RedriveOptionsError ? error.field : 'taken'),
    );
    expect(taken).toBe('taken');
  });

  it.each([21, Number.NaN, -1])('waitTimeSeconds %s, which SQS would refuse at the first receive', async (waitTimeSeconds) => {
    const error = await refusal(() => summarizeDlq({ sqs: client, queueUrl: DLQ, waitTimeSeconds }));
    expect(error.field).toBe('waitTimeSeconds');
    expect(error.detail).toBe(`got ${waitTimeSeconds}; allowed: a whole number of seconds from 0 to 20, or leave it out for 1`);
  });
});
