import { ConfigError, createRelayHandler, Relay, type RelayOptions, relayEventSourceSettings } from 'dynamodb-outbox/relay';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { config, deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';

const silent = { info() {}, warn() {}, error() {} };
const discard = { addMetric() {} };

function refusal(build: () => unknown): ConfigError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('the options were taken');
}

const relayWith = (changed: Record<string, unknown>) => () =>
  new Relay({ config, topicArns, deadLetterQueueUrl, sns: new FakeSns(), sqs: new FakeSqs(), ...changed } as RelayOptions);

describe('new Relay refuses its clients, backoff and aggregate-type selection before a batch', () => {
  it.each([
    ['sns', undefined, 'got undefined; allowed: an SNSClient'],
    ['sns', {}, 'got an object without a send method; allowed: an SNSClient'],
    ['sqs', null, "got null; allowed: an SQSClient (or anything that sends SendMessage like one), for the relay's dead-letter queue"],
  ])('a %s of %j: every publish or dead letter would fail, and its records be retried for ever', (field, value, words) => {
    const error = refusal(relayWith({ [field]: value }));
    expect(error.field).toBe(field);
    expect(error.message).toContain(`Invalid outbox config at ${field}: ${words}`);
  });

  it.each([
    [{ baseDelayMs: Number.NaN }, 'backoff.baseDelayMs', 'got NaN; allowed: milliseconds from 0 to 60000'],
    [{ maxDelayMs: -1 }, 'backoff.maxDelayMs', 'got -1; allowed: milliseconds from 0 to 60000'],
    [{ maxAttempts: 5 }, 'backoff.maxAttempts', 'is no backoff option (got 5); allowed: { baseDelayMs?, maxDelayMs? }'],
    ['fast', 'backoff', 'got "fast"; allowed: { baseDelayMs?, maxDelayMs? }'],
  ])('a backoff of %j: retries that do not back off, or an option taken for another', (backoff, field, words) => {
    const error = refusal(relayWith({ backoff }));
    expect(error.field).toBe(field);
    expect(error.message).toContain(words);
  });

  it.each([
    ['ignoreAggregateTypes', 'payment'],
    ['onlyAggregateTypes', ['order', '']],
    ['onlyAggregateTypes', ['order', ' ']],
  ])('%s %j: a string would match its substrings as aggregate types', (field, value) => {
    const error = refusal(relayWith({ [field]: value }));
    expect(error.field).toBe(field);
    expect(error.message).toContain('allowed: an array of aggregate types (strings that are not blank)');
  });

  it('takes delays of 0 and a minute, and lists of types', () => {
    expect(relayWith({ backoff: { baseDelayMs: 0, maxDelayMs: 60_000 }, ignoreAggregateTypes: [] })()).toBeInstanceOf(Relay);
  });
});

describe('createRelayHandler refuses a logger, metrics sink or callback it would fail on after publishing', () => {
  const parts = { config, topicArns, deadLetterQueueUrl, sns: new FakeSns(), sqs: new FakeSqs() };

  it.each([
    ['metrics', {}, 'got an object whose addMetric is no function; allowed: a metrics sink with addMetric'],
    ['metrics', { addMetric() {}, publishStoredMetrics: true }, 'got an object whose publishStoredMetrics is no function'],
    ['logger', { info() {} }, 'got an object whose warn, error are no functions; allowed: a logger with info, warn and error'],
    ['logger', 'console', 'got "console"; allowed: a logger'],
    ['logger', 7, 'got 7; allowed: a logger with info, warn and error (Powertools Logger fits), or leave it out for a Powertools Logger'],
    [
      'metrics',
      7,
      'got 7; allowed: a metrics sink with addMetric, and optionally addDimension and publishStoredMetrics (Powertools Metrics fits), or leave it out for relayMetrics()',
    ],
    ['onOutcome', 'log', 'got "log"; allowed: a function given each batch\'s summary, or leave it out'],
    ['now', 1_700_000_000_000, 'got 1700000000000; allowed: a function returning epoch ms, or leave it out for Date.now'],
    ['relay', { config: {} }, 'got an object whose relay is no function; allowed: a Relay'],
  ])('%s %j', (field, value, words) => {
    const error = refusal(() => createRelayHandler({ ...parts, logger: silent, metrics: discard, [field]: value } as never));
    expect(error.field).toBe(field);
    expect(error.message).toContain(`Invalid outbox config at ${field}: ${words}`);
  });
});

describe('relayEventSourceSettings takes the config as every part given one does', () => {
  it('refuses a config that is none with a ConfigError naming config, not a TypeError', () => {
    const error = refusal(() => relayEventSourceSettings(null as never));
    expect(error.field).toBe('config');
    expect(error.message).toContain('Invalid outbox config at config: got null; allowed:');
  });

  it("gives a plain object the config's defaults, as new Relay does", () => {
    const plain = { source: 'urn:test:shop', topics: [{ name: 'payments' }], routes: { payment: 'payments' } };
    expect(relayEventSourceSettings(plain as never)).toEqual(relayEventSourceSettings(defineConfig(plain)));
  });
});
