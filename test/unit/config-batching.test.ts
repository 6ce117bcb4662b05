import { describe, expect, it } from 'vitest';
import { CONFIG_ENV, configFromEnv, defineConfig, type OutboxConfigInput, serializeConfig } from '../../shared/config.js';
import { ConfigError } from '../../shared/errors.js';

const base: OutboxConfigInput = {
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true, batching: { maxEvents: 10 } }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
};

const withBatching = (batching: unknown) =>
  defineConfig({ ...base, topics: [{ name: 'orders.fifo', fifo: true, batching } as never], routes: { order: 'orders.fifo' } });

describe('topic batching in the config', () => {
  it('keeps a topic’s batching and leaves it out of a topic that does not batch, down to the JSON', () => {
    const config = defineConfig(base);
    expect(config.topics).toEqual([
      { name: 'orders.fifo', fifo: true, batching: { maxEvents: 10 } },
      { name: 'payments', fifo: false },
    ]);
    expect(JSON.stringify(config.topics[1])).toBe('{"name":"payments","fifo":false}');
  });

  it('carries batching to the relay and the processor through the environment', () => {
    const config = defineConfig(base);
    expect(configFromEnv({ [CONFIG_ENV]: serializeConfig(config) })).toEqual(config);
  });

  it.each([
    [1, /topics\[0\]\.batching\.maxEvents.*got 1; allowed: a whole number from 2 to 100/],
    [101, /got 101; allowed: a whole number from 2 to 100/],
    [2.5, /got 2\.5/],
    ['10', /got "10"/],
    [undefined, /got undefined/],
  ])('rejects maxEvents %s, saying what is allowed', (maxEvents, message) => {
    expect(() => withBatching({ maxEvents })).toThrow(ConfigError);
    expect(() => withBatching({ maxEvents })).toThrow(message);
  });

  it('rejects batching that is not an object, and an unknown batching setting', () => {
    expect(() => withBatching(true)).toThrow(/topics\[0\]\.batching.*got true; allowed: \{ maxEvents \}/);
    expect(() => withBatching({ maxEvents: 5, maxBytes: 1000 })).toThrow(
      /topics\[0\]\.batching\.maxBytes.*unknown key "maxBytes"; allowed: maxEvents/,
    );
  });
});
