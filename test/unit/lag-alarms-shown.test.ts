import { describe, expect, it } from 'vitest';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { ConfigError } from '../../shared/errors.js';

const base: OutboxConfigInput = { source: 'urn:test:unit', topics: [{ name: 'orders' }], routes: { order: 'orders' } };

/** What defineConfig threw for `lagAlarmSeconds`. */
function refusal(lagAlarmSeconds: unknown): unknown {
  try {
    defineConfig({ ...base, lagAlarmSeconds } as OutboxConfigInput);
  } catch (error) {
    return error;
  }
  throw new Error('not refused');
}

describe('lagAlarmSeconds refusals show what was given (showValue), with the ConfigError', () => {
  it.each([
    ['lagAlarmSeconds.order', { order: Number.NaN }, 'got NaN; allowed: a whole number of seconds'],
    ['lagAlarmSeconds.order', { order: Number.POSITIVE_INFINITY }, 'got Infinity; allowed: a whole number of seconds'],
    ['lagAlarmSeconds.order', { order: 30n }, 'got 30n; allowed: a whole number of seconds'],
    ['lagAlarmSeconds', 30n, 'got 30n; allowed: an object mapping aggregate type to seconds'],
  ])('%s: %s', (field, lagAlarmSeconds, detail) => {
    const error = refusal(lagAlarmSeconds);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ field });
    expect((error as Error).message).toContain(detail);
  });
});
