import { describe, expect, it } from 'vitest';
import { defineConfig, type OutboxConfigInput, serializeConfig, serializeRuntimeConfig } from '../../shared/config.js';
import { ConfigError } from '../../shared/errors.js';

const base: OutboxConfigInput = {
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'stock' }],
  routes: { order: 'orders.fifo', stock: 'stock' },
  lowLatencyAggregateTypes: ['stock'],
};

const rejection = (lagAlarmSeconds: unknown) => {
  try {
    defineConfig({ ...base, lagAlarmSeconds } as OutboxConfigInput);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
};

describe('config lagAlarmSeconds', () => {
  it('keeps a threshold per relayed aggregate type, in the full config but not in the runtime config the functions get', () => {
    const config = defineConfig({ ...base, lagAlarmSeconds: { order: 30 } });

    expect(config.lagAlarmSeconds).toEqual({ order: 30 });
    expect(JSON.parse(serializeConfig(config)).lagAlarmSeconds).toEqual({ order: 30 });
    expect(JSON.parse(serializeRuntimeConfig(config))).not.toHaveProperty('lagAlarmSeconds');
  });

  it('leaves a config without it as it was, down to its JSON', () => {
    expect(serializeConfig(defineConfig(base))).not.toContain('lagAlarmSeconds');
  });

  it('rejects an aggregate type without a route, naming the allowed ones', () => {
    const error = rejection({ invoice: 30 });

    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ field: 'lagAlarmSeconds.invoice' });
    expect(error.message).toContain('it has no route');
    expect(error.message).toContain('allowed: "order"');
  });

  it('rejects a low-latency aggregate type: the processor lag alarm watches it', () => {
    const error = rejection({ stock: 30 });

    expect(error).toMatchObject({ field: 'lagAlarmSeconds.stock' });
    expect(error.message).toContain('low-latency aggregate type');
  });

  it.each([0, 1.5, 86_401, '30', null])('rejects %j seconds, naming the range', (seconds) => {
    const error = rejection({ order: seconds });

    expect(error).toMatchObject({ field: 'lagAlarmSeconds.order' });
    expect(error.message).toContain('allowed: a whole number of seconds from 1 to 86400');
  });

  it.each([[['order']], ['30'], [null]])('rejects %j instead of an object', (value) => {
    expect(rejection(value)).toMatchObject({ field: 'lagAlarmSeconds' });
  });
});
