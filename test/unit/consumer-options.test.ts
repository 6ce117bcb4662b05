import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { PollError } from '../../shared/consumer/poll-errors.js';
import { classify } from '../../shared/consumer/sequence-tracker.js';
import { pollOnce } from '../../shared/consumer/sqs-poller.js';
import type { ConsumerOptions } from '../../shared/consumer/types.js';

const document = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' }));
const valid: ConsumerOptions = {
  name: 'view',
  sources: ['urn:test:shop'],
  handlers: { 'order.placed': { handle: () => {} } },
  inbox: { document, tableName: 'inbox' },
};

const rejection = (options: unknown): ConsumerOptionsError => {
  try {
    createConsumer(options as ConsumerOptions);
  } catch (error) {
    if (error instanceof ConsumerOptionsError) return error;
    throw error;
  }
  throw new Error('createConsumer accepted the options');
};

describe('consumer options', () => {
  it('accepts valid options', () => {
    expect(createConsumer(valid).name).toBe('view');
  });

  it('rejects a misspelt option, naming it and the allowed ones', () => {
    const error = rejection({ ...valid, sequenceTraking: true });
    expect(error.field).toBe('options.sequenceTraking');
    expect(error.message).toContain('allowed: name, sources, topicArns, handlers');
  });

  it('accepts tracing with the producer linked or parented', () => {
    expect(createConsumer({ ...valid, tracing: { producer: 'parent' } }).name).toBe('view');
    expect(createConsumer({ ...valid, tracing: {} }).name).toBe('view');
  });

  it('rejects tracing that is not an object, a misspelt tracing option and an unknown producer relation', () => {
    expect(rejection({ ...valid, tracing: true })).toMatchObject({
      field: 'tracing',
      message: expect.stringContaining('got true; allowed: an object { producer? }'),
    });
    expect(rejection({ ...valid, tracing: { producers: 'link' } })).toMatchObject({
      field: 'tracing.producers',
      message: expect.stringContaining('unknown key "producers"; allowed: producer'),
    });
    expect(rejection({ ...valid, tracing: { producer: 'child' } })).toMatchObject({
      field: 'tracing.producer',
      message: expect.stringContaining('got "child"; allowed: "link" or "parent"'),
    });
  });

  it('accepts commit "event" and "batch", and rejects any other commit mode, saying what is allowed', () => {
    expect(createConsumer({ ...valid, commit: 'event' }).name).toBe('view');
    expect(createConsumer({ ...valid, commit: 'batch' }).name).toBe('view');
    expect(rejection({ ...valid, commit: 'batched' })).toMatchObject({
      code: 'INVALID_CONSUMER_OPTIONS',
      field: 'commit',
      message: expect.stringContaining('got "batched"; allowed: "event" (each event in its own transaction) or "batch"'),
    });
    expect(rejection({ ...valid, commit: true }).message).toContain('got true; allowed: "event"');
  });

  it('rejects a consumer name that cannot be part of a key', () => {
    expect(rejection({ ...valid, name: 'a#b' }).message).toContain('got "a#b"; allowed: 1–64 letters');
  });

  it('rejects a handler without handle, a bad idempotency mode and a schema that is not a Standard Schema', () => {
    expect(rejection({ ...valid, handlers: { x: {} } }).field).toBe('handlers["x"].handle');
    expect(rejection({ ...valid, handlers: { x: { handle: () => {}, idempotency: 'once' } } }).message).toContain(
      '"transaction" or "claim"',
    );
    expect(rejection({ ...valid, handlers: { x: { handle: () => {}, schema: {} } } })).toMatchObject({
      field: 'handlers["x"].schema',
      message: expect.stringContaining('got an instance of Object, which is not a Standard Schema'),
    });
  });

  it('takes a plain DynamoDBClient for the inbox, as the Outbox takes one, and rejects what is no client, saying what it got', () => {
    const plain = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' });
    expect(() => createConsumer({ ...valid, inbox: { document: plain, tableName: 'inbox' } })).not.toThrow();
    expect(rejection({ ...valid, inbox: { document: 'client', tableName: 'inbox' } })).toMatchObject({
      field: 'inbox.document',
      message: expect.stringContaining('got "client"; allowed: a DynamoDBClient or a DynamoDBDocumentClient'),
    });
    expect(rejection({ ...valid, inbox: { document: {}, tableName: 'inbox' } }).message).toContain(
      'got an object without a send method; allowed: a DynamoDBClient or a DynamoDBDocumentClient',
    );
    const caching = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1', cacheMiddleware: true });
    expect(rejection({ ...valid, inbox: { document: caching, tableName: 'inbox' } })).toMatchObject({
      field: 'inbox.document',
      message: expect.stringContaining('got a client with cacheMiddleware: true'),
    });
  });

  it('rejects a consumer without sources: there is no default it could know, and accepting any would accept forged events', () => {
    const { sources: _, ...withoutSources } = valid;
    expect(rejection(withoutSources)).toMatchObject({
      field: 'sources',
      message: expect.stringContaining('got undefined; allowed: a non-empty list of the CloudEvents sources to accept'),
    });
    expect(rejection({ ...valid, sources: [] }).field).toBe('sources');
    expect(rejection({ ...valid, sources: 'urn:test:shop' }).message).toContain('got "urn:test:shop"; allowed: a non-empty list');
    expect(rejection({ ...valid, sources: ['urn:a', ''] })).toMatchObject({
      field: 'sources[1]',
      message: expect.stringContaining('(0 bytes)'),
    });
    // The inbox record's sort key is INBOX#<source>, and DynamoDB takes sort keys of 1,024 bytes.
    expect(createConsumer({ ...valid, sources: ['s'.repeat(1018)] }).name).toBe('view');
    expect(rejection({ ...valid, sources: ['s'.repeat(1019)] })).toMatchObject({
      field: 'sources[0]',
      message: expect.stringContaining('(1019 bytes); allowed: a non-empty list of the CloudEvents sources to accept, each 1–1018 bytes'),
    });
  });

  it('rejects topic ARNs that are not SNS topic ARNs, and an inbox legacyKeyCheck that is not a boolean', () => {
    expect(createConsumer({ ...valid, topicArns: ['arn:aws:sns:eu-west-1:123456789012:orders.fifo'] }).name).toBe('view');
    expect(rejection({ ...valid, topicArns: ['orders.fifo'] })).toMatchObject({
      field: 'topicArns[0]',
      message: expect.stringContaining('got "orders.fifo"; allowed: a list of SNS topic ARNs'),
    });
    expect(rejection({ ...valid, topicArns: 'arn:aws:sns:eu-west-1:123456789012:orders' }).field).toBe('topicArns');
    expect(rejection({ ...valid, inbox: { document, tableName: 'inbox', legacyKeyCheck: 'no' } }).field).toBe('inbox.legacyKeyCheck');
  });

  it('rejects a clock, logger or metrics sink it could not call, before any message is handled, saying what is allowed', () => {
    // A clock's value instead of the clock (plain JS): each event's commit would fail on it, every delivery, to the DLQ.
    expect(rejection({ ...valid, now: 1_795_958_921_938 })).toMatchObject({
      field: 'now',
      message: expect.stringContaining('got 1795958921938; allowed: a function returning epoch ms, or leave it out for Date.now'),
    });
    expect(rejection({ ...valid, logger: 'debug' })).toMatchObject({
      field: 'logger',
      message: expect.stringContaining('got "debug"; allowed: an object with info, warn and error functions'),
    });
    // The field names the first method at fault, as before; the message, in the package's one wording, names every one.
    expect(rejection({ ...valid, logger: { info: () => {}, warn: () => {} } })).toMatchObject({
      field: 'logger.error',
      message:
        'Invalid consumer option logger.error: got an object whose error is no function; allowed: an object with info, warn and error functions, as Powertools Logger',
    });
    expect(rejection({ ...valid, logger: { info: () => {} } })).toMatchObject({
      field: 'logger.warn',
      message: expect.stringContaining('got an object whose warn, error are no functions; allowed: an object with info, warn'),
    });
    expect(rejection({ ...valid, logger: { ...console, addContext: true } })).toMatchObject({
      field: 'logger.addContext',
      message: expect.stringContaining('got an object whose addContext is no function; allowed: an object with info, warn'),
    });
    expect(rejection({ ...valid, metrics: {} })).toMatchObject({
      field: 'metrics.addMetric',
      message: expect.stringContaining('got an object whose addMetric is no function; allowed: an object with an addMetric function'),
    });
    expect(rejection({ ...valid, metrics: { addMetric: () => {}, publishStoredMetrics: 'yes' } })).toMatchObject({
      field: 'metrics.publishStoredMetrics',
      message: expect.stringContaining('got an object whose publishStoredMetrics is no function'),
    });
    // What fits: a plain logger of console's functions, a sink with addMetric alone, any clock function.
    const fits = { logger: console, metrics: { addMetric: () => {} }, now: () => 0 };
    expect(createConsumer({ ...valid, ...fits }).name).toBe('view');
  });

  it("refuses an inbox table name DynamoDB would refuse at every first inbox write, by the write helper's rule", () => {
    for (const tableName of ['ab', 'my table', `t${'x'.repeat(255)}`, 'arn:aws:dynamodb:eu-west-1:123456789012:table/a']) {
      expect(rejection({ ...valid, inbox: { document, tableName } })).toMatchObject({
        field: 'inbox.tableName',
        message: expect.stringContaining(
          `got ${JSON.stringify(tableName)}; allowed: the inbox table's name (3–255 of A–Z a–z 0–9 _ . -) or its ARN`,
        ),
      });
    }
    for (const tableName of ['abc', 'inbox-view.v2_1', 'arn:aws:dynamodb:eu-west-1:123456789012:table/inbox']) {
      expect(createConsumer({ ...valid, inbox: { document, tableName } }).name).toBe('view');
    }
  });

  it('rejects empty handlers, a missing table and a zero concurrency', () => {
    expect(rejection({ ...valid, handlers: {} }).field).toBe('handlers');
    expect(rejection({ ...valid, inbox: { document, tableName: '' } }).field).toBe('inbox.tableName');
    expect(rejection({ ...valid, concurrency: 0 }).field).toBe('concurrency');
  });
});

describe('pollOnce and process options', () => {
  const consumer = createConsumer(valid);
  const queueUrl = 'https://sqs.us-east-1.amazonaws.com/000000000000/q';
  const send = vi.fn(async () => ({}));
  const sqs = { send } as unknown as SQSClient;
  const pollRejection = async (options: Record<string, unknown>): Promise<ConsumerOptionsError> => {
    const error = await pollOnce({ sqs, queueUrl, consumer, ...options } as never).catch((e: unknown) => e);
    if (error instanceof ConsumerOptionsError) return error;
    throw new Error(`pollOnce did not reject the options with a ConsumerOptionsError: ${String(error)}`);
  };

  it('rejects each out-of-range number, naming the field, the value and the range, before anything is received', async () => {
    expect(await pollRejection({ maxMessages: 11 })).toMatchObject({
      field: 'pollOnce.maxMessages',
      message: 'Invalid consumer option pollOnce.maxMessages: got 11; allowed: a whole number from 1 to 10',
    });
    expect((await pollRejection({ waitTimeSeconds: 21 })).message).toContain('got 21; allowed: a whole number from 0 to 20');
    expect((await pollRejection({ visibilityTimeoutSeconds: 43_201 })).field).toBe('pollOnce.visibilityTimeoutSeconds');
    expect((await pollRejection({ visibilityTimeoutSeconds: 3.5 })).message).toContain(
      'got 3.5; allowed: a whole number of seconds from 3 to 43200',
    );
    expect((await pollRejection({ retryDelaySeconds: -1 })).field).toBe('pollOnce.retryDelaySeconds');
    expect(send).not.toHaveBeenCalled();
  });

  it('rejects a misspelt option, a missing queue URL, a client without send and a consumer without process', async () => {
    expect(await pollRejection({ waitTime: 20 })).toMatchObject({
      field: 'pollOnce.waitTime',
      message: expect.stringContaining('allowed: sqs, queueUrl, consumer, maxMessages'),
    });
    expect((await pollRejection({ queueUrl: '' })).field).toBe('pollOnce.queueUrl');
    expect((await pollRejection({ sqs: {} })).message).toContain('got an object without a send method; allowed: an SQSClient');
    expect(await pollRejection({ consumer: { handler: () => {} } })).toMatchObject({
      field: 'pollOnce.consumer',
      message: expect.stringContaining('got an object whose process is no function; allowed: a consumer from createConsumer'),
    });
    expect((await pollRejection({ consumer: 'view' })).message).toContain('got "view"; allowed: a consumer from createConsumer');
    expect(send).not.toHaveBeenCalled();
  });

  it('receives nothing when the queue will not say its visibility timeout, and says what to pass instead', async () => {
    const commands: string[] = [];
    const silent = {
      send: async (command: object) => {
        commands.push(command.constructor.name);
        return { Attributes: {} };
      },
    } as unknown as SQSClient;
    const error = await pollOnce({ sqs: silent, queueUrl, consumer }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PollError);
    expect(error).toMatchObject({ code: 'POLL_FAILED', phase: 'queue-attributes', queueUrl });
    expect((error as Error).message).toBe(
      `Polling ${queueUrl} failed at queue-attributes: GetQueueAttributes gave no usable VisibilityTimeout (got undefined); nothing was received; pass visibilityTimeoutSeconds to poll without reading it`,
    );
    expect(commands).toEqual(['GetQueueAttributesCommand']);
  });

  it('rejects a claim deadline that is not epoch seconds, before any message is handled', async () => {
    const handle = vi.fn();
    const claiming = createConsumer({ ...valid, handlers: { 'order.placed': { idempotency: 'claim', handle } } });
    const message = { messageId: 'm1', body: '{}' };
    const error = await claiming.process([message], { claimExpiresAt: Date.now() + 0.5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConsumerOptionsError);
    expect(error).toMatchObject({ field: 'process.claimExpiresAt', message: expect.stringContaining('allowed: a positive whole number') });
    expect((await claiming.process([message], { claimUntil: 1 } as never).catch((e: unknown) => e)) as Error).toMatchObject({
      field: 'process.claimUntil',
    });
    // Milliseconds, as Date.now() gives them, would make a claim left by a crash hold for ever.
    const millis = Date.now() + 30_000;
    expect(await claiming.process([message], { claimExpiresAt: millis }).catch((e: unknown) => e)).toMatchObject({
      name: 'ConsumerOptionsError',
      field: 'process.claimExpiresAt',
      message: expect.stringContaining(`got ${millis}, which is epoch milliseconds; allowed: epoch seconds`),
    });
    expect(handle).not.toHaveBeenCalled();
    // Seconds are accepted however far ahead, whatever the consumer's clock says.
    const inAYear = Math.floor(Date.now() / 1000) + 365 * 86_400;
    await expect(claiming.process([message], { claimExpiresAt: inAYear })).resolves.toMatchObject({
      outcomes: [{ status: 'rejected' }],
    });
  });
});

describe('what process and handler are given to handle', () => {
  const refusal = async (call: Promise<unknown>): Promise<ConsumerOptionsError> => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof ConsumerOptionsError)) throw new Error(`not refused with a ConsumerOptionsError: ${String(error)}`);
    return error;
  };

  it('refuses what is no list of messages, a message without a string messageId or body, and an SQS SDK message, naming it', async () => {
    const handle = vi.fn();
    const consumer = createConsumer({ ...valid, handlers: { 'order.placed': { handle } } });
    const process = (messages: unknown) => consumer.process(messages as never);

    expect(await refusal(process({ messageId: 'm1', body: '{}' }))).toMatchObject({
      field: 'process.messages',
      message: expect.stringContaining('got an instance of Object; allowed: a list of { messageId, body,'),
    });
    expect((await refusal(process({ Records: [] }))).message).toContain('(an SQS event: give it to consumer.handler)');
    expect(await refusal(process([{ messageId: 'm1' }]))).toMatchObject({
      field: 'process.messages[0].body',
      message: expect.stringContaining('got undefined; allowed: a string (the message body as text'),
    });
    expect((await refusal(process([{ messageId: 'm1', body: '{}' }, { body: '{}' }]))).field).toBe('process.messages[1].messageId');
    expect(await refusal(process([{ MessageId: 'm1', Body: '{}' }]))).toMatchObject({
      field: 'process.messages[0]',
      message: expect.stringContaining('got a message of the SQS SDK (MessageId, Body)'),
    });
    expect((await refusal(process([{ messageId: 'm1', body: { id: 'e' } }]))).message).toContain('JSON.stringify an envelope object');
    expect(handle).not.toHaveBeenCalled();
  });

  it('refuses an event that is no SQS event in the Lambda handler, showing it', async () => {
    const consumer = createConsumer(valid);
    expect(await refusal(consumer.handler({ detail: {} } as never, undefined as never))).toMatchObject({
      field: 'handler.event',
      message: expect.stringContaining('got {"detail":{}}, which is no SQS event'),
    });
  });
});

describe('classify', () => {
  const at = (epoch: string, sequence: number) => ({ epoch, sequence });
  it('sees the first event, the next one, a gap and a late one', () => {
    expect(classify(undefined, at('e1', 5)).status).toBe('first');
    expect(classify(at('e1', 5), at('e1', 6)).status).toBe('in-order');
    expect(classify(at('e1', 5), at('e1', 9))).toMatchObject({ status: 'gap', missing: 3 });
    expect(classify(at('e1', 5), at('e1', 5)).status).toBe('out-of-order');
    expect(classify(at('e2', 1), at('e1', 9)).status).toBe('out-of-order');
  });

  it('takes a new epoch starting at 1 as in order, later as a gap of unknown size', () => {
    expect(classify(at('e1', 5), at('e2', 1)).status).toBe('in-order');
    expect(classify(at('e1', 5), at('e2', 2))).toMatchObject({ status: 'gap', missing: 'unknown' });
  });
});
