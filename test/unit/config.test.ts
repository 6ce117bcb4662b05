import { describe, expect, it } from 'vitest';
import { configFromEnv, DEFAULT_RELAY_TUNING, defineConfig, type OutboxConfigInput, serializeConfig } from '../../shared/config.js';
import { ConfigError, EnvironmentError } from '../../shared/errors.js';

const base: OutboxConfigInput = {
  source: 'urn:test:shop',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
};

const rejection = (input: unknown): ConfigError => {
  try {
    defineConfig(input as OutboxConfigInput);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('defineConfig', () => {
  it('fills in defaults and freezes the result', () => {
    const config = defineConfig(base);
    expect(config.relay).toEqual(DEFAULT_RELAY_TUNING);
    expect(config.lowLatencyAggregateTypes).toEqual([]);
    expect(config.outboxRetentionSeconds).toBe(7 * 24 * 3600);
    expect(config.topics).toEqual([
      { name: 'orders.fifo', fifo: true },
      { name: 'payments', fifo: false },
    ]);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    ['a route to an unknown topic', { ...base, routes: { order: 'nope' } }, 'routes.order', '"nope"'],
    ['duplicate topic names', { ...base, topics: [{ name: 'payments' }, { name: 'payments' }] }, 'topics[1].name', 'duplicate'],
    ['a FIFO topic without .fifo', { ...base, topics: [{ name: 'orders', fifo: true }] }, 'topics[0].name', '".fifo"'],
    ['a standard topic named .fifo', { ...base, topics: [{ name: 'orders.fifo' }] }, 'topics[0].name', 'needs fifo: true'],
    ['a retention of zero', { ...base, outboxRetentionSeconds: 0 }, 'outboxRetentionSeconds', 'positive'],
    ['a negative retention', { ...base, outboxRetentionSeconds: -5 }, 'outboxRetentionSeconds', '-5'],
    ['a batch size out of the AWS range', { ...base, relay: { batchSize: 10_001 } }, 'relay.batchSize', '1 to 10000'],
    ['an unbounded retry count', { ...base, relay: { maxRetryAttempts: -1 } }, 'relay.maxRetryAttempts', '0 to 10000'],
    ['a misspelt relay setting', { ...base, relay: { batchsize: 10 } }, 'relay.batchsize', 'allowed: batchSize'],
    ['a misspelt top-level setting', { ...base, topic: [] }, 'config.topic', 'unknown setting'],
    ['a low-latency type without a route', { ...base, lowLatencyAggregateTypes: ['invoice'] }, 'lowLatencyAggregateTypes[0]', '"invoice"'],
    ['an aggregate type with a #', { ...base, routes: { 'or#der': 'payments' } }, 'routes.or#der', 'not allowed'],
    ['an empty source', { ...base, source: '' }, 'source', 'URI reference'],
    ['no topics', { ...base, topics: [] }, 'topics', 'non-empty'],
  ])('rejects %s, naming the field and the value', (_name, input, field, fragment) => {
    const error = rejection(input);
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
    expect(error.message).toContain(fragment);
  });

  it('round-trips through the environment', () => {
    const config = defineConfig({ ...base, relay: { batchSize: 25 } });
    expect(configFromEnv({ OUTBOX_CONFIG: serializeConfig(config) })).toEqual(config);
  });

  it('fails with the variable name when the environment lacks the config', () => {
    expect(() => configFromEnv({})).toThrow(EnvironmentError);
    expect(() => configFromEnv({})).toThrow(/OUTBOX_CONFIG/);
    expect(() => configFromEnv({ OUTBOX_CONFIG: '{nope' })).toThrow(/OUTBOX_CONFIG: is not valid JSON/);
  });
});
