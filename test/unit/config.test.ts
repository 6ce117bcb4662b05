import { CloudEvent } from 'cloudevents';
import { describe, expect, it } from 'vitest';
import {
  configFromEnv,
  DEFAULT_RELAY_TUNING,
  defineConfig,
  MAX_SOURCE_LENGTH,
  type OutboxConfigInput,
  serializeConfig,
} from '../../shared/config.js';
import { inboxKey } from '../../shared/consumer/inbox-keys.js';
import { CONSUMER_LIMITS } from '../../shared/consumer/limits.js';
import { requireEnv } from '../../shared/env.js';
import { ConfigError, EnvironmentError } from '../../shared/errors.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';

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
    ['a retention beyond 10 years', { ...base, outboxRetentionSeconds: 1e17 }, 'outboxRetentionSeconds', 'at most 315360000 (10 years)'],
    ['a negative retry count other than -1', { ...base, relay: { maxRetryAttempts: -2 } }, 'relay.maxRetryAttempts', '-1 (no limit) or'],
    ['a record age below 60 s other than -1', { ...base, relay: { maxRecordAgeSeconds: 0 } }, 'relay.maxRecordAgeSeconds', 'got 0'],
    [
      'a relay timeout over 15 minutes',
      { ...base, relay: { timeoutSeconds: 901 } },
      'relay.timeoutSeconds',
      'got 901; allowed: a whole number from 1 to 900',
    ],
    ['a relay timeout of part of a second', { ...base, relay: { timeoutSeconds: 0.5 } }, 'relay.timeoutSeconds', 'got 0.5'],
    ['a NaN batch size, shown as NaN', { ...base, relay: { batchSize: Number.NaN } }, 'relay.batchSize', 'got NaN; allowed'],
    [
      'an infinite batch size, shown as Infinity',
      { ...base, relay: { batchSize: Number.POSITIVE_INFINITY } },
      'relay.batchSize',
      'got Infinity;',
    ],
    ['a bigint batch size, shown as a bigint', { ...base, relay: { batchSize: 100n } }, 'relay.batchSize', 'got 100n;'],
    [
      'a function for a batch size, shown as a function, not its code',
      { ...base, relay: { batchSize: () => 100 } },
      'relay.batchSize',
      'got a function;',
    ],
    [
      'a misspelt relay setting given as undefined',
      { ...base, relay: { batchsize: undefined } },
      'relay.batchsize',
      'unknown key "batchsize"; allowed: ',
    ],
    ['a misspelt relay setting', { ...base, relay: { batchsize: 10 } }, 'relay.batchsize', 'allowed: batchSize'],
    ['a misspelt top-level setting', { ...base, topic: [] }, 'config.topic', 'unknown key "topic"; allowed: '],
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

  it('gives a record still failing up before the stream may trim it, by default: a record age below its 24 hours', () => {
    const config = defineConfig(base);
    expect(config.relay.maxRecordAgeSeconds).toBe(23 * 3600);
    expect(relayEventSourceSettings(config).maxRecordAgeSeconds).toBeLessThan(24 * 3600);
  });

  it('takes -1 (no limit) for the retry count and the record age, as AWS does', () => {
    const config = defineConfig({ ...base, relay: { maxRetryAttempts: -1, maxRecordAgeSeconds: -1 } });
    expect(config.relay).toMatchObject({ maxRetryAttempts: -1, maxRecordAgeSeconds: -1 });
    expect(relayEventSourceSettings(config)).toMatchObject({ maxRetryAttempts: -1, maxRecordAgeSeconds: -1 });
  });

  it('gives a setting passed as undefined its default, at the top level and in relay', () => {
    const config = defineConfig({
      ...base,
      lowLatencyAggregateTypes: undefined,
      outboxRetentionSeconds: undefined,
      relay: { batchSize: undefined, maxRetryAttempts: undefined, bisectBatchOnError: undefined, publishConcurrency: 5 },
    });
    expect(config.relay).toEqual({ ...DEFAULT_RELAY_TUNING, publishConcurrency: 5 });
    expect(config.outboxRetentionSeconds).toBe(7 * 24 * 3600);
    expect(config.lowLatencyAggregateTypes).toEqual([]);
  });

  it('keeps the retention at most 10 years, so every slot TTL stays a safe integer', () => {
    expect(defineConfig({ ...base, outboxRetentionSeconds: 10 * 365 * 24 * 3600 }).outboxRetentionSeconds).toBe(315_360_000);
    expect(rejection({ ...base, outboxRetentionSeconds: 10 * 365 * 24 * 3600 + 1 }).field).toBe('outboxRetentionSeconds');
  });

  it.each([
    ['a non-ASCII character', 'urn:shop:café'],
    ['a "%" not before two hex digits', 'a%zz'],
    ['a "|"', 'urn:a|b'],
    ['a space', 'urn:a b'],
    ['a double quote', 'urn:a"b'],
    ['a brace', 'https://example.com/{id}'],
  ])('rejects a source with %s, which the cloudevents SDK would refuse in every envelope', (_name, source) => {
    const error = rejection({ ...base, source });
    expect(error.field).toBe('source');
    expect(error.message).toContain(`got ${JSON.stringify(source)}; allowed: a non-empty RFC 3986 URI reference`);
    if (!source.includes('"')) expect(() => new CloudEvent({ id: '1', source, type: 't' }, true)).toThrow();
  });

  it.each([
    'urn:example:shop',
    'urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66',
    'https://github.com/cloudevents',
    'mailto:cncf-wg-serverless@lists.cncf.io',
    '/sensors/tn-1234567/alerts',
    'cloudevents/spec/pull/123',
    'urn:shop:caf%C3%A9',
    'https://[2001:db8::1]:8443/orders?x=1#top',
  ])('accepts the URI reference %s, as the cloudevents SDK does', (source) => {
    expect(defineConfig({ ...base, source }).source).toBe(source);
    expect(new CloudEvent({ id: '1', source, type: 't' }, true).validate()).toBe(true);
  });

  it("rejects a source longer than a consumer's inbox sort key can hold, and accepts one of the longest length", () => {
    const longest = `urn:shop:${'a'.repeat(MAX_SOURCE_LENGTH - 9)}`;
    expect(defineConfig({ ...base, source: longest }).source).toBe(longest);
    const error = rejection({ ...base, source: `${longest}a` });
    expect(error.field).toBe('source');
    expect(error.message).toContain(`is ${MAX_SOURCE_LENGTH + 1} characters long ("urn:shop:aaaa`);
    expect(error.message).toContain(`allowed: at most ${MAX_SOURCE_LENGTH}`);
    // Every source a config takes is one a consumer accepts: the sort key `INBOX#<source>` fits in 1,024 bytes.
    expect(CONSUMER_LIMITS.sourceBytes).toBe(MAX_SOURCE_LENGTH);
    expect(Buffer.byteLength(inboxKey('c', { source: longest, id: 'e' }).sk)).toBe(1024);
  });

  it("rejects low-latency aggregate types that make the relay's filter pattern longer than Lambda takes", () => {
    const types = Array.from({ length: 70 }, (_, i) => `t${i}${'x'.repeat(60)}`);
    const input = { ...base, routes: { ...base.routes, ...Object.fromEntries(types.map((t) => [t, 'payments'])) } };
    const error = rejection({ ...input, lowLatencyAggregateTypes: types });
    expect(error.field).toBe('lowLatencyAggregateTypes');
    expect(error.message).toMatch(
      /70 aggregate types make the relay's Lambda filter pattern \d{4} characters long; allowed: at most 4096 characters/,
    );
    // A shorter list fits: it is accepted, and its pattern is within the limit.
    const fits = types.slice(0, 55);
    const config = defineConfig({ ...input, lowLatencyAggregateTypes: fits });
    for (const pattern of relayEventSourceSettings(config).filterPatterns) expect(JSON.stringify(pattern).length).toBeLessThanOrEqual(4096);
  });

  it('round-trips through the environment', () => {
    const config = defineConfig({ ...base, relay: { batchSize: 25 } });
    expect(configFromEnv({ OUTBOX_CONFIG: serializeConfig(config) })).toEqual(config);
  });

  it('fails with the variable name when the environment lacks the config', () => {
    expect(() => configFromEnv({})).toThrow(EnvironmentError);
    expect(() => configFromEnv({})).toThrow(/OUTBOX_CONFIG/);
    expect(() => configFromEnv({ OUTBOX_CONFIG: '{nope' })).toThrow(
      /^Environment variable OUTBOX_CONFIG: got "\{nope", which is not JSON \(.+\); allowed: the outbox config as JSON, as serializeConfig writes it/,
    );
  });

  it('says what the config variable held and may hold when it is unset, empty or blank', () => {
    const allowed = '; allowed: the outbox config as JSON, as serializeConfig writes it (the Outbox construct sets it)';
    expect(() => configFromEnv({})).toThrow(`Environment variable OUTBOX_CONFIG: is not set${allowed}`);
    expect(() => configFromEnv({ OUTBOX_CONFIG: '' })).toThrow(`Environment variable OUTBOX_CONFIG: is not set (got "")${allowed}`);
    expect(() => configFromEnv({ OUTBOX_CONFIG: ' \n' })).toThrow(`Environment variable OUTBOX_CONFIG: is not set (got " \\n")${allowed}`);
  });

  it('shows at most 200 characters of a config variable that is no JSON', () => {
    const long = `{${'x'.repeat(500)}`;
    expect(() => configFromEnv({ OUTBOX_CONFIG: long })).toThrow(`got "${long.slice(0, 200)}…", which is not JSON`);
  });

  it('refuses a blank required variable with what it held, as an unset one', () => {
    expect(() => requireEnv('BUCKET', { BUCKET: '  ' })).toThrow('Environment variable BUCKET: is not set (got "  ")');
    expect(() => requireEnv('BUCKET', {}, 'a bucket name')).toThrow('Environment variable BUCKET: is not set; allowed: a bucket name');
    expect(requireEnv('BUCKET', { BUCKET: 'b' })).toBe('b');
  });

  it('names the variable when it holds valid JSON that is no valid config, keeping the ConfigError as the cause', () => {
    const read = () => configFromEnv({ OUTBOX_CONFIG: JSON.stringify({ ...base, topics: [] }) });
    expect(read).toThrow(EnvironmentError);
    expect(read).toThrow(
      /^Environment variable OUTBOX_CONFIG: holds an invalid outbox config \(at topics: .*\); allowed: the outbox config as JSON/,
    );
    const error = (() => {
      try {
        read();
      } catch (e) {
        return e;
      }
    })();
    expect((error as Error).cause).toBeInstanceOf(ConfigError);
  });

  it.each([
    [JSON.stringify({ ...base, topics: [] }), 'at topics: '],
    [JSON.stringify({ ...base, routes: { order: 'nowhere' } }), 'at routes.order: '],
  ])('words a config variable that is no valid config under the variable heading alone: %s', (text, at) => {
    const error = (() => {
      try {
        configFromEnv({ OUTBOX_CONFIG: text });
      } catch (e) {
        return e as EnvironmentError;
      }
    })();
    expect(error).toBeInstanceOf(EnvironmentError);
    const cause = error?.cause as ConfigError;
    expect(error?.message).toBe(
      `Environment variable OUTBOX_CONFIG: holds an invalid outbox config (${at}${cause.detail}); allowed: the outbox config as JSON, as serializeConfig writes it (the Outbox construct sets it)`,
    );
    expect(error?.message).not.toContain('Invalid outbox config');
    expect(error?.code).toBe('INVALID_ENVIRONMENT');
  });

  it.each(['[]', '"shop"', 'null', '42'])('refuses a config variable holding JSON %s that is no object, showing the text', (text) => {
    expect(() => configFromEnv({ OUTBOX_CONFIG: text })).toThrow(
      `Environment variable OUTBOX_CONFIG: got ${JSON.stringify(text)}; allowed: the outbox config as JSON, as serializeConfig writes it (the Outbox construct sets it)`,
    );
  });
});
