import { describe, expect, it } from 'vitest';
import { checkedConfig, defineConfig } from '../../shared/config.js';
import { requireEnv } from '../../shared/env.js';
import { ConfigError, EnvironmentError } from '../../shared/errors.js';

const config = defineConfig({ source: 'urn:test:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

class PartError extends Error {}

describe('checkedConfig: the one check of a config a part is given', () => {
  it('passes a config defineConfig made, and validates an object literal the same way', () => {
    const wrap = () => new PartError('not called');
    expect(checkedConfig(config, wrap)).toEqual(config);
    expect(checkedConfig({ source: 'urn:test:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } }, wrap)).toEqual(config);
  });

  it("hands defineConfig's ConfigError to wrap and throws what wrap returns, naming the field, the value and what is allowed", () => {
    const given = { ...config, topics: [{ name: 'orders fifo' }], routes: { order: 'orders fifo' } };
    let wrapped: unknown;
    const thrown = (() => {
      try {
        checkedConfig(given, (error) => {
          wrapped = error;
          return new PartError(`config is not a valid outbox config: ${error.message}`, { cause: error });
        });
      } catch (error) {
        return error;
      }
    })();
    expect(wrapped).toBeInstanceOf(ConfigError);
    expect(thrown).toBeInstanceOf(PartError);
    expect((thrown as PartError).cause).toBe(wrapped);
    expect((thrown as PartError).message).toMatch(/^config is not a valid outbox config: .*topics\[0\]\.name.*"orders fifo".*allowed: /);
  });

  it('passes any other error as it is', () => {
    const hostile = {
      get source(): string {
        throw new RangeError('boom');
      },
    };
    expect(() => checkedConfig(hostile, () => new PartError('wrapped'))).toThrow(RangeError);
  });
});

describe('requireEnv with a check of the value', () => {
  const allowed = 'a lease table name';
  it('refuses a value the pattern does not match, with the value and what is allowed', () => {
    const read = () => requireEnv('TABLE', { TABLE: 'arn:aws:dynamodb:x' }, allowed, /^[A-Za-z0-9_.-]{3,255}$/);
    expect(read).toThrow(EnvironmentError);
    expect(read).toThrow('Environment variable TABLE: got "arn:aws:dynamodb:x"; allowed: a lease table name');
    expect(requireEnv('TABLE', { TABLE: 'leases' }, allowed, /^[A-Za-z0-9_.-]{3,255}$/)).toBe('leases');
  });

  it('says what a check function found wrong, after "which"', () => {
    const check = (value: string) => (value.includes('..') ? "holds '..'" : undefined);
    expect(() => requireEnv('BUCKET', { BUCKET: 'a..b' }, 'a bucket name', check)).toThrow(
      `Environment variable BUCKET: got "a..b", which holds '..'; allowed: a bucket name`,
    );
    expect(requireEnv('BUCKET', { BUCKET: 'a.b' }, 'a bucket name', check)).toBe('a.b');
  });

  it('refuses unset and blank before the check runs', () => {
    const check = () => 'is never asked';
    expect(() => requireEnv('BUCKET', {}, 'a bucket name', check)).toThrow(
      'Environment variable BUCKET: is not set; allowed: a bucket name',
    );
    expect(() => requireEnv('BUCKET', { BUCKET: ' ' }, 'a bucket name', check)).toThrow('is not set (got " ")');
  });
});
