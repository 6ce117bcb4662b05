import { describe, expect, it } from 'vitest';
import { CONFIG_ALLOWED, type OutboxConfig } from '../../shared/config.js';
import { LocalStackError } from '../../shared/local/errors.js';
import { startLocalStack } from '../../shared/local/stack/local-stack.js';
import { startRefusal } from '../helpers/start-refusal.js';

/*
 * startLocalStack (npm start's engine, under the test stack) refuses a config it cannot run in the
 * words every part uses (configRefusal): what in the config is wrong, not the whole object.
 */

async function configRefused(config: unknown, more: Record<string, unknown> = {}): Promise<LocalStackError> {
  const error = await startRefusal(startLocalStack({ config: config as OutboxConfig, ...more }));
  expect(error).toBeInstanceOf(LocalStackError);
  return error as LocalStackError;
}

describe('startLocalStack, given a config', () => {
  it('refuses one defineConfig refuses, naming what in it is wrong rather than showing it whole, with the ConfigError as cause', async () => {
    const error = await configRefused({ topics: 'orders.fifo', routes: {} });

    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toMatch(/^config is not a valid outbox config \(at source: got undefined; allowed: a non-empty RFC 3986 URI/);
    expect(error.message.endsWith(`; allowed: ${CONFIG_ALLOWED}`)).toBe(true);
    expect(error.message).not.toContain('"topics"');
    expect(error.cause).toMatchObject({ name: 'ConfigError' });
  });

  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    ['outbox.config.ts', '"outbox.config.ts"'],
  ])('refuses %j, which is no config at all, as every part does', async (config, shown) => {
    const error = await configRefused(config);

    expect(error).toMatchObject({ code: 'INVALID_OPTION', message: `config got ${shown}; allowed: ${CONFIG_ALLOWED}` });
  });

  it('refuses a config whose topic SNS cannot name, which the shape check let through', async () => {
    const error = await configRefused({ source: 'urn:test:x', topics: [{ name: 'orders fifo' }], routes: { order: 'orders fifo' } });

    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toMatch(/^config is not a valid outbox config \(at topics\[0\]\.name: got "orders fifo"/);
  });

  // An object defineConfig accepts, without the defaults it fills in, failed as a bare TypeError reading them.
  it('checks the rest of the options against a config given without its defaults, as defineConfig fills them in', async () => {
    const literal = { source: 'urn:test:x', topics: [{ name: 'orders' }], routes: { order: 'orders' } };

    const error = await configRefused(literal, { dynamoDbPort: 70_000 });

    expect(error).toMatchObject({
      code: 'INVALID_OPTION',
      message: 'dynamoDbPort is 70000; allowed: a whole number from 0 (a free port) to 65535',
    });
  });
});
