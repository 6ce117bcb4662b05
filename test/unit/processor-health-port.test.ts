import { describe, expect, it } from 'vitest';
import { serializeConfig } from '../../shared/config.js';
import { EnvironmentError } from '../../shared/errors.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { PROCESSOR_ENV, processorEnvironment } from '../../shared/processor/index.js';
import { DEFAULT_HEALTH_PORT, healthPortFromEnv } from '../../shared/processor/processor-env.js';
import { testConfig } from '../helpers/factories.js';

const variable = PROCESSOR_ENV.healthPort;

describe("the health check's port", () => {
  it('is the default when the variable is unset, and the port it holds otherwise', () => {
    expect(healthPortFromEnv({})).toBe(DEFAULT_HEALTH_PORT);
    expect(DEFAULT_HEALTH_PORT).toBe(8080);
    expect(healthPortFromEnv({ [variable]: '9090' })).toBe(9090);
    expect(healthPortFromEnv({ [variable]: '1' })).toBe(1);
    expect(healthPortFromEnv({ [variable]: '65535' })).toBe(65_535);
  });

  it.each([
    ['', 'is not set (got "")'],
    ['  ', 'is not set (got "  ")'],
    ['80a', 'got "80a"'],
    ['8080 ', 'got "8080 "'],
    ['-1', 'got "-1"'],
    ['1e3', 'got "1e3"'],
    ['0', 'got "0"'],
    ['65536', 'got "65536"'],
  ])('refuses %j, naming the variable, the value given and what is allowed', (value, given) => {
    const read = () => healthPortFromEnv({ [variable]: value });
    expect(read).toThrow(EnvironmentError);
    expect(read).toThrow(
      `Environment variable OUTBOX_PROCESSOR_HEALTH_PORT: ${given}; allowed: a whole number from 1 to 65535; leave it unset for the default (8080)`,
    );
  });

  // The worker listens where processorEnvironment says, the health check asks where healthPortFromEnv says.
  it.each(['', ' ', '80a', '0', '1', '08080', '8080', '65535', '65536', '-1', '1e3'])(
    'agrees with the worker on %j: both refuse it, or both read the same port',
    (value) => {
      const env = {
        [RELAY_ENV.config]: serializeConfig(testConfig({ lowLatencyAggregateTypes: ['payment'] })),
        [RELAY_ENV.topicArns]: JSON.stringify({
          'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo',
          payments: 'arn:aws:sns:us-east-1:000000000000:payments',
        }),
        [RELAY_ENV.deadLetterQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/000000000000/relay-dlq',
        [PROCESSOR_ENV.streamArn]: 'arn:aws:dynamodb:us-east-1:000000000000:table/outbox/stream/2025-01-01T00:00:00.000',
        [PROCESSOR_ENV.leaseTable]: 'outbox-leases',
        [PROCESSOR_ENV.failedBatchBucket]: 'outbox-failed-batches',
        [variable]: value,
      };
      const outcome = (read: () => number): number | string => {
        try {
          return read();
        } catch (error) {
          expect(error).toBeInstanceOf(EnvironmentError);
          return (error as EnvironmentError).variable;
        }
      };
      expect(outcome(() => healthPortFromEnv(env))).toEqual(outcome(() => processorEnvironment(env).healthPort));
    },
  );
});
