import { describe, expect, it } from 'vitest';
import { serializeConfig } from '../../shared/config.js';
import { EnvironmentError } from '../../shared/errors.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { PROCESSOR_ENV, ProcessorOptionsError, processorEnvironment } from '../../shared/processor/index.js';
import { testConfig } from '../helpers/factories.js';

const STREAM_ARN = 'arn:aws:dynamodb:eu-west-1:123456789012:table/outbox/stream/2025-01-01T00:00:00.000';

/** A complete, valid environment of the ECS entry point. */
const env: NodeJS.ProcessEnv = {
  [RELAY_ENV.config]: serializeConfig(testConfig({ lowLatencyAggregateTypes: ['payment'] })),
  [RELAY_ENV.topicArns]: JSON.stringify({
    'orders.fifo': 'arn:aws:sns:eu-west-1:123456789012:orders.fifo',
    payments: 'arn:aws:sns:eu-west-1:123456789012:payments',
  }),
  [RELAY_ENV.deadLetterQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq',
  [PROCESSOR_ENV.streamArn]: STREAM_ARN,
  [PROCESSOR_ENV.leaseTable]: 'outbox-leases',
  [PROCESSOR_ENV.failedBatchBucket]: 'outbox-failed-batches',
};

/** The error `processorEnvironment` throws for `env` with `changes` (`undefined` unsets a variable). */
function failure(changes: Record<string, string | undefined>): EnvironmentError {
  const changed: NodeJS.ProcessEnv = { ...env };
  for (const [variable, value] of Object.entries(changes)) {
    if (value === undefined) delete changed[variable];
    else changed[variable] = value;
  }
  try {
    processorEnvironment(changed);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvironmentError);
    return error as EnvironmentError;
  }
  throw new Error(`no error for ${JSON.stringify(changes)}`);
}

describe('processor environment as a deployer may get it wrong', () => {
  it('reads a valid environment, with the defaults for every optional variable left unset', () => {
    expect(processorEnvironment(env)).toMatchObject({
      streamArn: STREAM_ARN,
      leaseTableName: 'outbox-leases',
      failedBatchBucket: 'outbox-failed-batches',
      healthPort: 8080,
      settings: {},
    });
    expect(processorEnvironment(env).workerId).not.toBe('');
  });

  it.each([
    PROCESSOR_ENV.failoverMs,
    PROCESSOR_ENV.idleMinDelayMs,
    PROCESSOR_ENV.idleMaxDelayMs,
    PROCESSOR_ENV.handOffTimeoutMs,
    PROCESSOR_ENV.healthPort,
  ])('refuses %s set empty or blank instead of running on the default', (variable) => {
    for (const value of ['', '  ']) {
      const error = failure({ [variable]: value });
      expect(error.variable).toBe(variable);
      expect(error.message).toContain(`${variable}: is not set (got ${JSON.stringify(value)}); allowed: a`);
      expect(error.message).toContain('leave it unset for the default');
    }
  });

  it.each([
    [PROCESSOR_ENV.failoverMs, '10s', 'a whole number of milliseconds'],
    [PROCESSOR_ENV.failoverMs, '-5000', 'a whole number of milliseconds'],
    [PROCESSOR_ENV.idleMaxDelayMs, '1e3', 'a whole number of milliseconds'],
    [PROCESSOR_ENV.handOffTimeoutMs, '25000.5', 'a whole number of milliseconds'],
    [PROCESSOR_ENV.healthPort, 'http', 'a whole number from 1 to 65535'],
  ])('refuses %s=%j, naming what it may hold', (variable, value, allowed) => {
    expect(failure({ [variable]: value }).message).toContain(`${variable}: got ${JSON.stringify(value)}; allowed: ${allowed}`);
  });

  it.each([
    ['', 'is not set (got "")'],
    ['   ', 'is not set (got "   ")'],
    ['arn:aws:dynamodb:eu-west-1:123456789012:table/outbox', 'got "arn:aws:dynamodb:eu-west-1:123456789012:table/outbox"'],
    ['outbox', 'got "outbox"'],
    ['2025-01-01T00:00:00.000', 'got "2025-01-01T00:00:00.000"'],
    ['arn:aws:sns:eu-west-1:123456789012:table/outbox/stream/x', 'got "arn:aws:sns'],
    [` ${STREAM_ARN}`, `got " ${STREAM_ARN}"`],
  ])('refuses the stream ARN %j before any client is built', (value, got) => {
    const error = failure({ [PROCESSOR_ENV.streamArn]: value });
    expect(error.variable).toBe(PROCESSOR_ENV.streamArn);
    expect(error.message).toContain(`OUTBOX_STREAM_ARN: ${got}`);
    expect(error.message).toContain("allowed: the ARN of the outbox table's stream");
  });

  it.each([
    ['', 'is not set (got "")'],
    ['  ', 'is not set (got "  ")'],
    ['ab', 'got "ab"'],
    ['outbox leases', 'got "outbox leases"'],
    ['arn:aws:dynamodb:eu-west-1:123456789012:table/outbox-leases', 'got "arn:aws:dynamodb:eu-west-1:123456789012:table/outbox-leases"'],
  ])('refuses the lease table name %j', (value, got) => {
    const error = failure({ [PROCESSOR_ENV.leaseTable]: value });
    expect(error.variable).toBe(PROCESSOR_ENV.leaseTable);
    expect(error.message).toContain(`OUTBOX_LEASE_TABLE: ${got}; allowed: the lease table's name (not its ARN)`);
  });

  it.each([
    ['', 'is not set (got "")'],
    ['Outbox_Failed', `got "Outbox_Failed", which holds a character other than a lower-case letter, a digit, '.' or '-'`],
    [
      's3://outbox-failed-batches',
      `got "s3://outbox-failed-batches", which holds a character other than a lower-case letter, a digit, '.' or '-'`,
    ],
    ['xn--outbox-failed', `got "xn--outbox-failed", which starts with the reserved prefix 'xn--'`],
  ])('refuses the failed-batch bucket %j: found out only when a record is given up on otherwise', (value, got) => {
    const error = failure({ [PROCESSOR_ENV.failedBatchBucket]: value });
    expect(error.variable).toBe(PROCESSOR_ENV.failedBatchBucket);
    expect(error.message).toContain(`OUTBOX_FAILED_BATCH_BUCKET: ${got}; allowed: an S3 bucket name`);
  });

  it.each(['', ' '])('refuses a worker id set to %j: a blank lease owner', (value) => {
    const error = failure({ [PROCESSOR_ENV.workerId]: value });
    expect(error.variable).toBe(PROCESSOR_ENV.workerId);
    expect(error.message).toContain(
      `OUTBOX_PROCESSOR_WORKER_ID: is not set (got ${JSON.stringify(value)}); allowed: an id unique per task`,
    );
  });

  it.each([RELAY_ENV.config, RELAY_ENV.topicArns, RELAY_ENV.deadLetterQueueUrl, PROCESSOR_ENV.streamArn, PROCESSOR_ENV.leaseTable])(
    'refuses %s unset, naming it',
    (variable) => {
      const error = failure({ [variable]: undefined });
      expect(error.variable).toBe(variable);
      expect(error.message).toContain(`${variable}: is not set; allowed:`);
    },
  );
});

describe('processor environment: a config with nothing for the processor', () => {
  it('refuses it naming OUTBOX_CONFIG, not as an option of createProcessor', () => {
    const error = failure({ [RELAY_ENV.config]: serializeConfig(testConfig()) });
    expect(error.variable).toBe(RELAY_ENV.config);
    expect(error.message).toContain(
      'OUTBOX_CONFIG: holds a config whose lowLatencyAggregateTypes and handoverAggregateTypes are both empty; allowed: a config with at least one routed aggregate type',
    );
  });

  it('accepts a config whose types are only being handed over', () => {
    const config = serializeConfig(testConfig({ handoverAggregateTypes: ['payment'] }));
    expect(processorEnvironment({ ...env, [RELAY_ENV.config]: config }).config.handoverAggregateTypes).toEqual(['payment']);
  });
});

describe('processor environment: a misspelt setting', () => {
  it.each(['OUTBOX_PROCESSOR_HANDOFF_TIMEOUT_MS', 'OUTBOX_PROCESSOR_FAILOVER'])(
    'refuses %s rather than running on the default it meant to change',
    (variable) => {
      const error = failure({ [variable]: '25000' });
      expect(error.variable).toBe(variable);
      expect(error.message).toContain(
        `${variable}: is set, but the processor reads no such variable; allowed: OUTBOX_PROCESSOR_WORKER_ID,`,
      );
      expect(error.message).toContain('OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS');
    },
  );
});

describe('processor environment: a number that breaks a settings rule', () => {
  it.each([
    [{ [PROCESSOR_ENV.failoverMs]: '100' }, 'OUTBOX_PROCESSOR_FAILOVER_MS', 'got 100; allowed: a whole number from 200 to 600000'],
    [
      { [PROCESSOR_ENV.handOffTimeoutMs]: '3600001' },
      'OUTBOX_PROCESSOR_HAND_OFF_TIMEOUT_MS',
      'got 3600001; allowed: a whole number from 1 to 3600000',
    ],
    [
      { [PROCESSOR_ENV.idleMinDelayMs]: '50', [PROCESSOR_ENV.idleMaxDelayMs]: '20' },
      'OUTBOX_PROCESSOR_IDLE_MAX_DELAY_MS',
      'got 20; allowed: a whole number from 50 to 60000 (not below idleMinDelayMs)',
    ],
    [
      { [PROCESSOR_ENV.idleMinDelayMs]: '500' },
      'OUTBOX_PROCESSOR_IDLE_MIN_DELAY_MS',
      'idleMaxDelayMs (its default; OUTBOX_PROCESSOR_IDLE_MAX_DELAY_MS is unset) got 100; allowed: a whole number from 500 to 60000 (not below idleMinDelayMs)',
    ],
  ])('refuses %j under the variable heading alone, with the rule as the detail', (changes, variable, detail) => {
    const error = failure(changes);
    expect(error.message).toBe(`Environment variable ${variable}: ${detail}`);
    expect(error.variable).toBe(variable);
    expect(error.code).toBe('INVALID_ENVIRONMENT');
    expect(error.cause).toBeInstanceOf(ProcessorOptionsError);
    expect((error.cause as ProcessorOptionsError).detail).toBe(detail.replace(/^idleMaxDelayMs \(.*?\) /, ''));
  });
});
