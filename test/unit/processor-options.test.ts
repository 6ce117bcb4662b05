import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { ProcessorOptionsError } from '../../shared/processor/errors.js';
import { createProcessor, type StartProcessorOptions } from '../../shared/processor/processor.js';
import { PROCESSOR_ENV, processorEnvironment } from '../../shared/processor/processor-env.js';

const config = defineConfig({
  source: 'urn:test:shop',
  topics: [{ name: 'payments' }],
  routes: { payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
});
const topicArns = { payments: 'arn:aws:sns:us-east-1:123456789012:payments' };
const deadLetterQueueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/relay-dlq';
const streamArn = 'arn:aws:dynamodb:us-east-1:123456789012:table/shop/stream/2026-01-01T00:00:00.000';

/** A client that keeps what it is asked to send, so a refusal is seen to come before anything is sent. */
const sent: unknown[] = [];
const client = { send: async (command: unknown) => sent.push(command) } as never;
const valid: StartProcessorOptions = {
  config,
  sns: client,
  sqs: client,
  topicArns,
  deadLetterQueueUrl,
  streams: client,
  streamArn,
  document: client,
  leaseTableName: 'outbox-leases',
};

function refusal(changed: Record<string, unknown>): ProcessorOptionsError {
  try {
    createProcessor({ ...valid, ...changed } as StartProcessorOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ProcessorOptionsError);
    return error as ProcessorOptionsError;
  }
  throw new Error(`createProcessor took ${JSON.stringify(Object.keys(changed))}`);
}

describe('createProcessor refuses its own options before the worker exists', () => {
  it.each([
    ['', '""'],
    ['  ', '"  "'],
    [7, '7'],
  ])('a worker id of %j: every worker given it would hold its leases as one owner', (workerId, shown) => {
    const error = refusal({ workerId });
    expect(error.field).toBe('workerId');
    expect(error.message).toContain(`Invalid stream processor option workerId: got ${shown}; allowed: an id unique per task`);
    expect(sent).toEqual([]);
  });

  it.each([
    ['arn', '"arn"'],
    ['arn:aws:dynamodb:us-east-1:123456789012:table/shop', '"arn:aws:dynamodb:us-east-1:123456789012:table/shop"'],
    ['', '""'],
    [undefined, 'undefined'],
  ])('a stream ARN of %j, which no DescribeStream would take', (value, shown) => {
    const error = refusal({ streamArn: value });
    expect(error.field).toBe('streamArn');
    expect(error.message).toContain(`got ${shown}; allowed: the ARN of the outbox table's stream`);
  });

  it.each([
    ['arn:aws:dynamodb:us-east-1:123456789012:table/leases', '"arn:aws:dynamodb:us-east-1:123456789012:table/leases"'],
    ['ab', '"ab"'],
    [' ', '" "'],
  ])('a lease table name of %j', (value, shown) => {
    const error = refusal({ leaseTableName: value });
    expect(error.field).toBe('leaseTableName');
    expect(error.message).toContain(`got ${shown}; allowed: the lease table's name (not its ARN)`);
  });

  it.each([
    ['streams', undefined, 'undefined'],
    ['streams', {}, 'an object without a send method'],
    ['document', undefined, 'undefined'],
    ['document', null, 'null'],
  ])('a missing client: %s %j', (field, value, shown) => {
    const error = refusal({ [field]: value });
    expect(error.field).toBe(field);
    expect(error.message).toContain(`option ${field}: got ${shown}; allowed: a `);
  });

  it('an on-failure destination without an S3 client: the first record given up on could never be written', () => {
    const error = refusal({ onFailure: { bucket: 'outbox-failed-batches' } });
    expect(error.field).toBe('onFailure.s3');
    expect(error.message).toContain('got undefined; allowed: an S3Client');
  });

  it('an observer that is no object', () => {
    expect(refusal({ observer: 'console' }).field).toBe('observer');
  });

  it.each([
    [{ failoverMs: Number.NaN }, 'failoverMs', 'got NaN; allowed: a whole number from 200 to 600000'],
    [{ readLimit: -1 }, 'readLimit', 'got -1; allowed: a whole number from 1 to 1000'],
    [null, 'settings', 'got null; allowed: an object of settings ('],
    [7, 'settings', '), or leave it out for the defaults'],
  ])('settings %j: shown as given', (settings, field, words) => {
    const error = refusal({ settings });
    expect(error.field).toBe(field);
    expect(error.message).toContain(words);
  });
});

describe("createProcessor's default worker id", () => {
  it("is processorEnvironment's: the host name, the process id and a random suffix", () => {
    const made = new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-${process.pid}-[a-z0-9]+$`);
    expect(createProcessor(valid).workerId).toMatch(made);
    const env = {
      [RELAY_ENV.config]: JSON.stringify(config),
      [RELAY_ENV.topicArns]: JSON.stringify(topicArns),
      [RELAY_ENV.deadLetterQueueUrl]: deadLetterQueueUrl,
      [PROCESSOR_ENV.streamArn]: streamArn,
      [PROCESSOR_ENV.leaseTable]: 'outbox-leases',
      [PROCESSOR_ENV.failedBatchBucket]: 'outbox-failed-batches',
    };
    expect(processorEnvironment(env).workerId).toMatch(made);
    expect(sent).toEqual([]);
  });

  it('a given one is kept', () => {
    expect(createProcessor({ ...valid, workerId: 'task-1' }).workerId).toBe('task-1');
  });
});
