import type { GraphWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { describe, expect, it } from 'vitest';
import { processorLagCharts, relayLagCharts } from '../../infra/outbox-lag-charts.js';
import { catalogDocument } from '../../shared/catalog/asyncapi.js';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { ConfigError } from '../../shared/errors.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { compileFilters } from '../../shared/local/event-source/filter-pattern.js';
import { renderBanner } from '../../shared/local/stack/banner.js';
import type { LocalStack } from '../../shared/local/stack/local-stack.js';
import { createProcessorRelay } from '../../shared/processor/processor.js';
import { Relay } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { slotRecord } from '../helpers/stream-records.js';

const base = {
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments', refund: 'payments' },
};
const topicArns = {
  'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo',
  payments: 'arn:aws:sns:us-east-1:000000000000:payments',
};
const deadLetterQueueUrl = 'http://localhost/000000000000/relay-dlq';
const records = () => ['order', 'payment', 'refund'].map((type, i) => slotRecord({ type, id: `a-${i}` }));

/** The aggregate types each path publishes of one record per type, under the config. */
async function published(input: Partial<OutboxConfigInput>) {
  const config = defineConfig({ ...base, ...input });
  const common = { config, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl };
  const passes = compileFilters(relayEventSourceSettings(config).filterPatterns);
  const relaySns = new FakeSns();
  // The relay's code alone (every record), then behind its filter, as the event source mapping runs it.
  await new Relay({ ...common, sns: relaySns }).relay(records());
  const filteredSns = new FakeSns();
  await new Relay({ ...common, sns: filteredSns }).relay(records().filter(passes));
  const processorSns = new FakeSns();
  await createProcessorRelay({ ...common, sns: processorSns }).relay(records());
  const types = (sns: FakeSns) => sns.requests.flatMap((r) => r.entries.map((e) => e.MessageAttributes?.aggregatetype?.StringValue)).sort();
  return { relay: types(relaySns), filtered: types(filteredSns), processor: types(processorSns) };
}

describe('handoverAggregateTypes: a type both paths publish while it moves between them', () => {
  it('defaults to [] and keeps a type given in both lists in both (the handover list wins)', () => {
    expect(defineConfig(base).handoverAggregateTypes).toEqual([]);
    const config = defineConfig({ ...base, lowLatencyAggregateTypes: ['payment'], handoverAggregateTypes: ['payment'] });
    expect(config).toMatchObject({ lowLatencyAggregateTypes: ['payment'], handoverAggregateTypes: ['payment'] });
    expect(Object.isFrozen(config.handoverAggregateTypes)).toBe(true);
  });

  it('rejects a value that is not a list of distinct routed aggregate types, saying what is allowed', () => {
    const attempt = (handoverAggregateTypes: unknown) => () => defineConfig({ ...base, handoverAggregateTypes } as OutboxConfigInput);
    expect(attempt('payment')).toThrow(ConfigError);
    expect(attempt('payment')).toThrow(/handoverAggregateTypes: got "payment"; allowed: an array of routed aggregate types/);
    expect(attempt(['shipment'])).toThrow(
      /handoverAggregateTypes\[0\]: got "shipment"; allowed: a routed aggregate type \("order", "payment", "refund"\)/,
    );
    expect(attempt(['payment', 'payment'])).toThrow(/handoverAggregateTypes\[1\]: duplicate aggregate type "payment"/);
  });

  it('publishes a low-latency type through both the relay (filter and code) and the processor once handed over', async () => {
    const before = await published({ lowLatencyAggregateTypes: ['payment'] });
    expect(before).toEqual({ relay: ['order', 'refund'], filtered: ['order', 'refund'], processor: ['payment'] });
    const handover = await published({ lowLatencyAggregateTypes: ['payment'], handoverAggregateTypes: ['payment'] });
    expect(handover).toEqual({ relay: ['order', 'payment', 'refund'], filtered: ['order', 'payment', 'refund'], processor: ['payment'] });
  });

  it('has the processor publish a handed-over type that is not low-latency, even with no low-latency type at all', async () => {
    const all = ['order', 'payment', 'refund'];
    expect(await published({ handoverAggregateTypes: ['refund'] })).toEqual({ relay: all, filtered: all, processor: ['refund'] });
    expect(() =>
      createProcessorRelay({ config: defineConfig(base), sns: new FakeSns(), sqs: new FakeSqs(), topicArns, deadLetterQueueUrl }),
    ).toThrow(
      /config\.lowLatencyAggregateTypes: got \[\]; allowed: at least one routed aggregate type, here or in config\.handoverAggregateTypes/,
    );
  });
});

describe('handoverAggregateTypes in what reports the paths', () => {
  const config = defineConfig({ ...base, lowLatencyAggregateTypes: ['payment'], handoverAggregateTypes: ['payment', 'refund'] });

  it('charts a handed-over type under both paths and names it in the banner and the AsyncAPI document', () => {
    // The per-aggregate-type chart's metric labels are the aggregate types it draws.
    const labels = (widgets: GraphWidget[]) => [...JSON.stringify(widgets[0]!.toJson()).matchAll(/"label":"([a-z]+)"/g)].map((m) => m[1]);
    expect(labels(relayLagCharts('relay', config))).toEqual(['order', 'payment', 'refund']);
    expect(labels(processorLagCharts('leases', config))).toEqual(['payment', 'refund']);

    const stack = {
      dynamoDb: { endpoint: 'http://127.0.0.1:8000', pid: 1 },
      resources: { relayDeadLetterQueue: { name: 'dlq' }, failedBatchBucket: 'b', subscriptions: [] },
    } as unknown as LocalStack;
    expect(renderBanner(stack, config)).toContain(
      'stream processor running for payment, refund (handed over, also by the relay: payment, refund)',
    );
    const channels = catalogDocument(config).document.channels as Record<string, { description: string }>;
    expect(channels.payments?.description).toContain(
      'published by both (each event up to twice, the first copy in order): payment, refund.',
    );
  });
});
