import { describe, expect, it } from 'vitest';
import { catalogDocument, checkCatalog } from '../../shared/catalog/index.js';
import { CONFIG_ALLOWED, defineConfig, type OutboxConfig } from '../../shared/config.js';
import { ConfigError, OutboxError, WriteValidationError } from '../../shared/errors.js';
import { ProcessorOptionsError } from '../../shared/processor/errors.js';
import { createProcessor, createProcessorRelay } from '../../shared/processor/processor.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';
import { createRelayHandler } from '../../shared/relay/handler.js';
import { Relay } from '../../shared/relay/relay.js';
import { Outbox } from '../../shared/write/writer.js';

const input = {
  source: 'urn:test:shop',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
};
const config = defineConfig(input);
const topicArns = {
  'orders.fifo': 'arn:aws:sns:us-east-1:123456789012:orders.fifo',
  payments: 'arn:aws:sns:us-east-1:123456789012:payments',
};
const published = JSON.parse(
  JSON.stringify(catalogDocument(defineConfig({ ...input, eventTypes: { 'order.placed': { version: 1 } } })).document),
) as unknown;
const deadLetterQueueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/relay-dlq';

/** A client that counts what it is asked to send, so a refusal is seen to come before anything is sent. */
const sent: unknown[] = [];
const client = { send: async (command: unknown) => sent.push(command) } as never;
const relayParts = { sns: client, sqs: client, topicArns, deadLetterQueueUrl };
const quiet = { info: () => {}, warn: () => {}, error: () => {} } as never;
const metrics = { addMetric: () => {}, addDimension: () => {}, publishStoredMetrics: () => {} } as never;

type Build = (given: unknown) => unknown;
/** Each public entry point that takes the config, with the error class that refuses a config that is none. */
const ENTRY_POINTS: [string, Build, new (...args: never[]) => OutboxError][] = [
  ['new Outbox', (c) => new Outbox({ config: c as OutboxConfig, tableName: 'shop', client }), WriteValidationError],
  ['new Relay', (c) => new Relay({ config: c as OutboxConfig, ...relayParts }), ConfigError],
  ['createRelayHandler', (c) => createRelayHandler({ config: c as OutboxConfig, ...relayParts, logger: quiet, metrics }), ConfigError],
  ['createProcessorRelay', (c) => createProcessorRelay({ config: c as OutboxConfig, ...relayParts }), ProcessorOptionsError],
  [
    'createProcessor',
    (c) =>
      createProcessor({
        config: c as OutboxConfig,
        ...relayParts,
        streams: client,
        streamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/shop/stream/2026-01-01T00:00:00.000',
        document: client,
        leaseTableName: 'leases',
      }),
    ProcessorOptionsError,
  ],
  [
    'redriveOnFailure',
    (c) =>
      redriveOnFailure({
        source: { s3: client, bucket: 'relay-failures' },
        sns: client,
        streams: client,
        config: c as OutboxConfig,
        topicArns,
      }),
    RedriveOptionsError,
  ],
  [
    'redriveRelayDlq',
    (c) => redriveRelayDlq({ sqs: client, sns: client, queueUrl: deadLetterQueueUrl, topicArns, config: c as OutboxConfig }),
    RedriveOptionsError,
  ],
  ['catalogDocument', (c) => catalogDocument(c as OutboxConfig), OutboxError],
  ['checkCatalog', (c) => checkCatalog(published, c as OutboxConfig), OutboxError],
];

/** What each is given: none, no object, an object defineConfig refuses, a frozen config of an older shape with a setting it no longer has. */
const NOT_CONFIGS: [string, unknown, string][] = [
  ['undefined', undefined, 'got undefined; allowed: '],
  ['null', null, 'got null; allowed: '],
  ['a string', 'urn:test:shop', 'got "urn:test:shop"; allowed: '],
  ['an array', [config], 'allowed: '],
  ['an object without topics', { source: 'urn:test:shop', routes: {} }, 'topics'],
  ['a frozen config of an older shape', Object.freeze({ ...config, relayBatchSize: 10 }), 'relayBatchSize'],
];

async function refusalOf(build: Build, given: unknown): Promise<unknown> {
  try {
    await build(given);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe.each(ENTRY_POINTS)('%s given a config that is none', (name, build, ErrorClass) => {
  // redriveRelayDlq's config is optional: left out, dead letters without a topic are skipped.
  it.each(name === 'redriveRelayDlq' ? NOT_CONFIGS.slice(1) : NOT_CONFIGS)(
    'refuses %s with its own typed error naming config, what was given and what is allowed, sending nothing',
    async (_what, given, shown) => {
      sent.length = 0;
      const error = await refusalOf(build, given);
      expect(error).toBeInstanceOf(ErrorClass);
      const { message } = error as Error;
      expect(message).toMatch(/\bconfig\b/);
      expect(message).toContain(shown);
      expect(message).toContain('defineConfig');
      expect(sent).toEqual([]);
    },
  );
});

describe.each(ENTRY_POINTS.slice(0, 4))('%s given a config not made by defineConfig that it accepts', (_name, build) => {
  it.each<[string, unknown]>([
    ['the raw input object', { ...input }],
    ['a frozen config of an older shape without the settings that have defaults', Object.freeze({ ...input, relay: undefined })],
    ['JSON read back', JSON.parse(JSON.stringify(config))],
  ])('takes %s, checked and given its defaults as defineConfig does', async (_what, given) => {
    expect(await refusalOf(build, given)).toBeUndefined();
  });
});

describe('the wording every part shares', () => {
  it('names config, what was given and what is allowed', async () => {
    expect(((await refusalOf((c) => new Relay({ config: c as OutboxConfig, ...relayParts }), null)) as Error).message).toBe(
      `Invalid outbox config at config: got null; allowed: ${CONFIG_ALLOWED}`,
    );
    expect(CONFIG_ALLOWED).toBe('the outbox config defineConfig returns (or an object defineConfig accepts)');
  });
});

describe('a config defineConfig made', () => {
  it('is frozen down to its topics, so what passes as it is stays as defineConfig checked it', () => {
    expect(Object.isFrozen(config.topics[0])).toBe(true);
    expect(Object.isFrozen(config.relay)).toBe(true);
  });

  it('is the one the relay keeps, not a copy', () => {
    expect(new Relay({ config, ...relayParts }).config).toBe(config);
  });
});
