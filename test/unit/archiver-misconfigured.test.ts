import type { PutObjectCommand, PutObjectCommandOutput } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { createArchiverHandler } from '../../shared/archive/archiver.js';
import { archiverEnvironment } from '../../shared/archive/archiver-env.js';
import { ConfigError, EnvironmentError } from '../../shared/errors.js';
import { anEnvelope, anSqsEvent, anSqsRecord } from '../helpers/envelopes.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const noMetrics = { addMetric: () => {} };

/** An S3 client that keeps the keys it is given. */
function recordingS3() {
  const keys: string[] = [];
  return {
    keys,
    send: async (command: PutObjectCommand): Promise<PutObjectCommandOutput> => {
      keys.push(command.input.Key as string);
      return { $metadata: {} };
    },
  };
}

const refusal = (env: NodeJS.ProcessEnv): EnvironmentError => {
  try {
    archiverEnvironment(env);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvironmentError);
    return error as EnvironmentError;
  }
  throw new Error('expected an EnvironmentError');
};

const OTHER_CHARACTER = "holds a character other than a lower-case letter, a digit, '.' or '-'";

describe('the archiver environment as a deployer may get it wrong', () => {
  it.each([
    ['unset', undefined, 'is not set; allowed: an S3 bucket name'],
    ['empty', '', 'is not set (got ""); allowed: an S3 bucket name'],
    ['blank', '  ', 'is not set (got "  "); allowed: an S3 bucket name'],
    ['padded', ' orders-archive ', `got " orders-archive ", which ${OTHER_CHARACTER}; allowed: an S3 bucket name`],
    ['an ARN', 'arn:aws:s3:::orders-archive', `got "arn:aws:s3:::orders-archive", which ${OTHER_CHARACTER}; allowed: an S3 bucket name`],
    ['with two dots in a row', 'orders..archive', `got "orders..archive", which holds '..'; allowed:`],
    ['an IP address', '192.168.5.4', 'got "192.168.5.4", which is shaped like an IP address; allowed:'],
    ['with a reserved prefix', 'xn--orders', `got "xn--orders", which starts with the reserved prefix 'xn--'; allowed:`],
    ['with a reserved suffix', 'orders-s3alias', `got "orders-s3alias", which ends in the reserved suffix '-s3alias'; allowed:`],
  ])('refuses OUTBOX_ARCHIVE_BUCKET %s, naming the variable, what it held and what it may hold', (_, value, message) => {
    const error = refusal(value === undefined ? {} : { OUTBOX_ARCHIVE_BUCKET: value });
    expect(error.variable).toBe('OUTBOX_ARCHIVE_BUCKET');
    expect(error.message).toContain(`Environment variable OUTBOX_ARCHIVE_BUCKET: ${message}`);
    expect(error.message).toMatch(/allowed: an S3 bucket name, the archive bucket's: 3–63 lower-case letters/);
  });

  it('shows at most 200 characters of what the variable held', () => {
    expect(refusal({ OUTBOX_ARCHIVE_BUCKET: 'b'.repeat(5000) }).message).toContain(`got "${'b'.repeat(200)}…"`);
  });

  it('takes the bucket names S3 allows', () => {
    for (const bucket of ['abc', 'orders.archive-2026', 'a'.repeat(63), '1.2.3.archive']) {
      expect(archiverEnvironment({ OUTBOX_ARCHIVE_BUCKET: bucket })).toEqual({ bucket });
    }
  });
});

describe('the archiver handler given options that would write nothing', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses writeConcurrency %s when it is built', (writeConcurrency) => {
    const s3 = recordingS3();
    expect(() => createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics, writeConcurrency })).toThrow(
      ConfigError,
    );
    expect(() => createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics, writeConcurrency })).toThrow(
      `writeConcurrency: got ${writeConcurrency}; allowed: a whole number from 1 to 1000`,
    );
  });

  it('fails, never acknowledges, the messages of objects an objectName cannot name, and writes no key outside its partition', async () => {
    const s3 = recordingS3();
    const names = ['../escaped', 'fine-name', 'a/b', '..'];
    const handler = createArchiverHandler({
      bucket: 'archive',
      s3,
      logger: quiet,
      metrics: noMetrics,
      writeConcurrency: 1,
      objectName: () => names.shift() as string,
    });
    const bad = anSqsRecord(anEnvelope({ type: 'order.placed' }).body);
    const good = anSqsRecord(anEnvelope({ type: 'order.shipped' }).body);
    const malformed = anSqsRecord('not json');
    const other = anSqsRecord(anEnvelope({ type: 'order.cancelled' }).body);
    const result = await handler(anSqsEvent([bad, good, malformed, other]));
    expect(s3.keys).toHaveLength(1);
    expect(s3.keys[0]).toMatch(/^events\/v1\/aggregatetype=order\/type=order\.shipped\/.*\/fine-name\.ndjson\.gz$/);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(
      [bad.messageId, malformed.messageId, other.messageId].sort(),
    );
  });
});

describe('the archiver handler given records it cannot place by when they were sent', () => {
  it.each(['1e16', '300000000000000'])('keeps a malformed message sent at %s under the hour of its own clock', async (sent) => {
    const s3 = recordingS3();
    const now = Date.UTC(2026, 2, 1, 10, 15);
    const handler = createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics, now: () => now });
    const malformed = anSqsRecord('not json');
    Object.assign(malformed.attributes, { SentTimestamp: sent });
    const untimed = anSqsRecord(JSON.stringify({ ...JSON.parse(anEnvelope({}).body), time: 'soon' }));
    Object.assign(untimed.attributes, { SentTimestamp: sent });
    const result = await handler(anSqsEvent([malformed, untimed, anSqsRecord(anEnvelope({}).body)]));
    expect(result.batchItemFailures).toEqual([]);
    expect(s3.keys.filter((key) => key.startsWith('malformed/'))).toEqual([
      expect.stringMatching(/^malformed\/v1\/date=2026-03-01\/hour=10\/[^/]+\.ndjson\.gz$/),
    ]);
    expect(s3.keys.filter((key) => key.includes('/date=2026-03-01/hour=10/') && key.startsWith('events/'))).toHaveLength(1);
  });
});

describe('the archiver handler given a context of its own', () => {
  it.each([
    ['NaN', Number.NaN],
    ['more than a Lambda function can have left', 2 ** 31],
  ])('refuses a getRemainingTimeInMillis that gives %s with a ConfigError, before anything is written', async (_, left) => {
    const s3 = recordingS3();
    const handler = createArchiverHandler({ bucket: 'archive', s3, logger: quiet, metrics: noMetrics });
    // NaN made AbortSignal.timeout throw a RangeError; past 2^31 - 1 ms its timer fired at once.
    await expect(handler(anSqsEvent([anSqsRecord(anEnvelope({}).body)]), { getRemainingTimeInMillis: () => left })).rejects.toMatchObject({
      name: 'ConfigError',
      field: 'context.getRemainingTimeInMillis',
      message: expect.stringContaining('a finite number up to 2147483647 (the longest a timer waits)'),
    });
    expect(s3.keys).toEqual([]);
  });
});
