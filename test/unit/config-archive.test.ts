import { describe, expect, it } from 'vitest';
import { archiverEnvironment } from '../../shared/archive/archiver-env.js';
import { configFromEnv, defineConfig, type OutboxConfigInput, serializeConfig, serializeRuntimeConfig } from '../../shared/config.js';
import { ConfigError, EnvironmentError } from '../../shared/errors.js';

const base: OutboxConfigInput = {
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
};

const rejection = (archive: unknown): ConfigError => {
  try {
    defineConfig({ ...base, archive } as OutboxConfigInput);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
};

describe('config archive', () => {
  it('keeps the retention, in the full config but not in the runtime config the relay gets', () => {
    const config = defineConfig({ ...base, archive: { retentionDays: 365 } });
    expect(config.archive).toEqual({ retentionDays: 365 });
    expect(configFromEnv({ OUTBOX_CONFIG: serializeConfig(config) }).archive).toEqual({ retentionDays: 365 });
    expect(JSON.parse(serializeRuntimeConfig(config))).not.toHaveProperty('archive');
  });

  it('leaves a config without an archive without one, down to its JSON', () => {
    expect(serializeConfig(defineConfig(base))).not.toContain('archive');
  });

  it('takes 1 to 3650 days', () => {
    expect(defineConfig({ ...base, archive: { retentionDays: 1 } }).archive?.retentionDays).toBe(1);
    expect(defineConfig({ ...base, archive: { retentionDays: 3650 } }).archive?.retentionDays).toBe(3650);
  });

  it.each([0, 3651, 1.5, '30', Number.NaN, undefined])(
    'rejects retentionDays %s, naming the field, the value and what is allowed',
    (value) => {
      const error = rejection({ retentionDays: value });
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toContain('archive.retentionDays');
      expect(error.message).toMatch(/allowed: a whole number from 1 to 3650/);
    },
  );

  it('rejects an archive that is not an object, and unknown settings in it', () => {
    expect(rejection(true).message).toMatch(/archive.*got true; allowed: an object \{ retentionDays \}/);
    expect(rejection({ retentionDays: 30, bucketName: 'x' }).message).toMatch(
      /archive\.bucketName.*unknown key "bucketName"; allowed: retentionDays/,
    );
  });
});

describe('the archiver environment', () => {
  it('reads the bucket name', () => {
    expect(archiverEnvironment({ OUTBOX_ARCHIVE_BUCKET: 'orders-archive-123' })).toEqual({ bucket: 'orders-archive-123' });
  });

  it('fails naming the variable when it is missing or not a bucket name', () => {
    expect(() => archiverEnvironment({})).toThrow(EnvironmentError);
    expect(() => archiverEnvironment({})).toThrow(/OUTBOX_ARCHIVE_BUCKET: is not set/);
    expect(() => archiverEnvironment({ OUTBOX_ARCHIVE_BUCKET: 'arn:aws:s3:::x' })).toThrow(
      /OUTBOX_ARCHIVE_BUCKET: got "arn:aws:s3:::x", which holds a character other than .*; allowed: an S3 bucket name/,
    );
  });
});
