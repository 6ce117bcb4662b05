import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConsumerOptionsError, createConsumer, createPoller, type PollerOptions, PollerStoppedError } from 'dynamodb-outbox/consumer';
import { describe, expect, it, vi } from 'vitest';

const document = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' }));
const consumer = createConsumer({
  name: 'view',
  sources: ['urn:test:shop'],
  handlers: { 'order.placed': { handle: () => {} } },
  inbox: { document, tableName: 'inbox' },
});
const queueUrl = 'https://sqs.us-east-1.amazonaws.com/000000000000/q';
const send = vi.fn(async () => ({}));
const sqs = { send } as unknown as SQSClient;

function rejection(options: Record<string, unknown>): ConsumerOptionsError {
  try {
    createPoller({ sqs, queueUrl, consumer, ...options } as PollerOptions);
  } catch (error) {
    if (error instanceof ConsumerOptionsError) return error;
    throw error;
  }
  throw new Error(`createPoller accepted ${JSON.stringify(options)}`);
}

describe('createPoller options', () => {
  it('rejects each bad option when the poller is created, naming the field, the value and what is allowed', () => {
    expect(rejection({ concurrency: 0 })).toMatchObject({
      code: 'INVALID_CONSUMER_OPTIONS',
      field: 'createPoller.concurrency',
      message: 'Invalid consumer option createPoller.concurrency: got 0; allowed: a positive whole number',
    });
    expect(rejection({ waitTimeSeconds: 0 }).message).toContain(
      'createPoller.waitTimeSeconds: got 0; allowed: a whole number from 1 to 20',
    );
    expect(rejection({ consumer: { handler: () => {} } })).toMatchObject({
      field: 'createPoller.consumer',
      message: expect.stringContaining('got an object whose process is no function; allowed: a consumer from createConsumer'),
    });
    expect(rejection({ maxMessages: 11 }).field).toBe('createPoller.maxMessages');
    expect(rejection({ retryDelaySeconds: -1 }).field).toBe('createPoller.retryDelaySeconds');
    expect(rejection({ onBatch: 'log' }).message).toContain('createPoller.onBatch: got "log"; allowed: a function');
    expect(rejection({ backoff: { baseDelayMs: 0 } }).field).toBe('createPoller.backoff.baseDelayMs');
    // Past a timer's longest wait (2^31 - 1 ms) Node fires a timer at once: the loop would retry without a pause.
    expect(rejection({ backoff: { maxDelayMs: 2 ** 31 } }).message).toContain(
      'createPoller.backoff.maxDelayMs: got 2147483648; allowed: a whole number of ms from 1 to 60000',
    );
    expect(rejection({ backoff: { baseDelayMs: 60_001, maxDelayMs: 60_001 } }).field).toBe('createPoller.backoff.baseDelayMs');
    expect(rejection({ backoff: { baseDelayMs: 1000, maxDelayMs: 500 } }).message).toContain(
      'got 500, below baseDelayMs (1000); allowed: a whole number of ms ≥ baseDelayMs',
    );
    expect(send).not.toHaveBeenCalled();
  });

  it('rejects a misspelt option, at the top or in backoff, listing the allowed ones', () => {
    expect(rejection({ concurency: 2 })).toMatchObject({
      field: 'createPoller.concurency',
      message: expect.stringContaining(
        'allowed: sqs, queueUrl, consumer, maxMessages, waitTimeSeconds, visibilityTimeoutSeconds, retryDelaySeconds, concurrency, backoff, onBatch, onError',
      ),
    });
    expect(rejection({ backoff: { maxDelay: 10 } }).message).toContain('allowed: baseDelayMs, maxDelayMs');
    expect(rejection({ sqs: {} }).message).toContain('got an object without a send method; allowed: an SQSClient');
  });

  it('rejects a bad stop timeout, and a start after stop', async () => {
    const poller = createPoller({ sqs, queueUrl, consumer });
    await expect(poller.stop({ timeoutMs: -5 })).rejects.toMatchObject({ field: 'stop.timeoutMs' });
    // Past a timer's longest wait (2^31 - 1 ms) Node fires a timer at once: stop would report 'timed-out' without waiting.
    await expect(poller.stop({ timeoutMs: 2 ** 31 })).rejects.toMatchObject({
      code: 'INVALID_CONSUMER_OPTIONS',
      field: 'stop.timeoutMs',
      message: expect.stringContaining('stop.timeoutMs: got 2147483648; allowed: a whole number of ms from 1 to 43200000'),
    });
    await expect(poller.stop({ timeoutMs: 43_200_001 })).rejects.toMatchObject({ field: 'stop.timeoutMs' });
    await expect(poller.stop({ timeoutMs: Number.NaN })).rejects.toMatchObject({ field: 'stop.timeoutMs' });
    expect(await poller.stop()).toEqual({ status: 'drained' });
    expect(poller.running).toBe(false);
    expect(() => poller.start()).toThrow(PollerStoppedError);
    expect(() => poller.start()).toThrow(`The poller of ${queueUrl} was stopped and cannot start again`);
    expect(send).not.toHaveBeenCalled();
  });
});
