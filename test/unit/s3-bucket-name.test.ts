import { describe, expect, it } from 'vitest';
import { archiverEnvironment } from '../../shared/archive/archiver-env.js';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { planReplay } from '../../shared/archive/replay-options.js';
import { s3BucketNameProblem } from '../../shared/aws/s3-bucket-name.js';
import { defineConfig, serializeConfig } from '../../shared/config.js';
import { EnvironmentError } from '../../shared/errors.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { ProcessorOptionsError } from '../../shared/processor/errors.js';
import { PROCESSOR_ENV, processorEnvironment } from '../../shared/processor/index.js';
import { onFailureWriter } from '../../shared/processor/on-failure-writer.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { testConfig } from '../helpers/factories.js';

/** Names S3 refuses for a general purpose bucket, with what the error says is wrong. */
const REFUSED: readonly (readonly [string, string])[] = [
  ['a', 'has 1 character, not 3 to 63'],
  ['ab', 'has 2 characters, not 3 to 63'],
  ['a'.repeat(64), 'has 64 characters, not 3 to 63'],
  ['Orders_Archive', "holds a character other than a lower-case letter, a digit, '.' or '-'"],
  ['-orders', 'does not start and end with a letter or digit'],
  ['orders.', 'does not start and end with a letter or digit'],
  ['orders..archive', "holds '..'"],
  ['192.168.5.4', 'is shaped like an IP address'],
  ['xn--orders', "starts with the reserved prefix 'xn--'"],
  ['sthree-orders', "starts with the reserved prefix 'sthree-'"],
  ['sthree-configurator-orders', "starts with the reserved prefix 'sthree-'"],
  ['amzn-s3-demo-orders', "starts with the reserved prefix 'amzn-s3-demo-'"],
  ['orders-s3alias', "ends in the reserved suffix '-s3alias'"],
  ['orders--ol-s3', "ends in the reserved suffix '--ol-s3'"],
  ['orders.mrap', "ends in the reserved suffix '.mrap'"],
  ['orders--usw2-az1--x-s3', "ends in the reserved suffix '--x-s3'"],
  ['orders--table-s3', "ends in the reserved suffix '--table-s3'"],
];
const ALLOWED = ['abc', 'orders.archive-2026', 'a'.repeat(63), '1.2.3.archive', 'orders-123456789012-eu-west-1-an', 'xn-orders'];

describe('s3BucketNameProblem', () => {
  it.each(REFUSED)('refuses %j: it %s', (name, problem) => {
    expect(s3BucketNameProblem(name)).toBe(problem);
  });

  it.each(ALLOWED)('takes %j', (name) => {
    expect(s3BucketNameProblem(name)).toBeUndefined();
  });
});

const processorEnv = (bucket: string): NodeJS.ProcessEnv => ({
  [RELAY_ENV.config]: serializeConfig(testConfig({ lowLatencyAggregateTypes: ['payment'] })),
  [RELAY_ENV.topicArns]: JSON.stringify({
    'orders.fifo': 'arn:aws:sns:eu-west-1:123456789012:orders.fifo',
    payments: 'arn:aws:sns:eu-west-1:123456789012:payments',
  }),
  [RELAY_ENV.deadLetterQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq',
  [PROCESSOR_ENV.streamArn]: 'arn:aws:dynamodb:eu-west-1:123456789012:table/outbox/stream/2025-01-01T00:00:00.000',
  [PROCESSOR_ENV.leaseTable]: 'outbox-leases',
  [PROCESSOR_ENV.failedBatchBucket]: bucket,
});

/** A client that answers every command with nothing: planReplay keeps it, redriveOnFailure lists an empty bucket with it. */
const NO_CLIENT = { send: async () => ({}) } as never;
const REDRIVE_CONFIG = defineConfig({ source: 'urn:test', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
const ORDERS_ARN = { orders: 'arn:aws:sns:eu-west-1:123456789012:orders' };

/** Every part given a bucket name, as its caller gives it. */
const PARTS: readonly (readonly [string, (bucket: string) => unknown, new (...args: never[]) => Error, string])[] = [
  ['the archiver', (bucket) => archiverEnvironment({ OUTBOX_ARCHIVE_BUCKET: bucket }), EnvironmentError, 'OUTBOX_ARCHIVE_BUCKET: '],
  ['the processor', (bucket) => processorEnvironment(processorEnv(bucket)), EnvironmentError, 'OUTBOX_FAILED_BATCH_BUCKET: '],
  [
    "createProcessor's onFailure",
    (bucket) =>
      onFailureWriter({ s3: NO_CLIENT, bucket }, 'arn:aws:dynamodb:eu-west-1:123456789012:table/outbox/stream/2025-01-01T00:00:00.000'),
    ProcessorOptionsError,
    'onFailure.bucket: ',
  ],
  [
    'redrive',
    (bucket) =>
      parseRedriveArgs(
        ['redrive', 'on-failure', `--bucket=${bucket}`, '--topic-arns', '{"orders":"arn:aws:sns:eu-west-1:123456789012:orders"}'],
        {},
      ),
    RedriveOptionsError,
    '--bucket: ',
  ],
  [
    'redriveOnFailure',
    (bucket) =>
      redriveOnFailure({
        source: { s3: NO_CLIENT, bucket },
        sns: NO_CLIENT,
        streams: NO_CLIENT,
        config: REDRIVE_CONFIG,
        topicArns: ORDERS_ARN,
      }),
    RedriveOptionsError,
    'source.bucket: ',
  ],
  [
    'replay',
    (bucket) =>
      planReplay({
        s3: NO_CLIENT,
        sqs: NO_CLIENT,
        bucket,
        from: '2026-03-01',
        queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-replay',
      }),
    ReplayOptionsError,
    'bucket: ',
  ],
];

/** What `read` threw or rejected with, or `undefined` when it returned or resolved. */
const refusalOf = async (read: (bucket: string) => unknown, bucket: string): Promise<unknown> =>
  Promise.resolve()
    .then(() => read(bucket))
    .then(
      () => undefined,
      (error: unknown) => error,
    );

describe.each(PARTS)('%s, given a bucket name S3 refuses', (_, read, errorClass, named) => {
  it.each(REFUSED)('refuses %j, saying it %s and what is allowed', async (name, problem) => {
    const error = await refusalOf(read, name);
    expect(error).toBeInstanceOf(errorClass);
    expect((error as Error).message).toContain(`${named}got ${JSON.stringify(name)}, which ${problem}; allowed: an S3 bucket name`);
    expect((error as Error).message).toContain(
      "not starting with 'xn--', 'sthree-' or 'amzn-s3-demo-' nor ending in '-s3alias', '--ol-s3', '.mrap', '--x-s3' or '--table-s3'",
    );
  });

  it.each(ALLOWED)('takes %j', async (name) => {
    expect(await refusalOf(read, name)).toBeUndefined();
  });
});

describe("createProcessor's onFailure, given a bucket that is no string", () => {
  it.each([
    [5n, 'got 5n, which is not a string'],
    [() => 'bucket', 'got a function, which is not a string'],
  ])('shows %s as it is', (bucket, shown) => {
    const write = () =>
      onFailureWriter(
        { s3: NO_CLIENT, bucket } as never,
        'arn:aws:dynamodb:eu-west-1:123456789012:table/outbox/stream/2025-01-01T00:00:00.000',
      );
    expect(write).toThrow(ProcessorOptionsError);
    expect(write).toThrow(`onFailure.bucket: ${shown}; allowed: an S3 bucket name`);
  });
});
