import { type App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { describe, expect, it } from 'vitest';
import { LowLatencyProcessor } from '../../infra/low-latency-processor.js';
import { OutboxTable } from '../../infra/outbox-table.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { RelayFunction, type RelayFunctionProps } from '../../infra/relay-function.js';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { appWithoutBundling, expectPropsError } from '../helpers/cdk.js';

const base: OutboxConfigInput = {
  source: 'urn:test:infra',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
};

/** A stack with a RelayFunction of this config alone, or with a LowLatencyProcessor beside it. */
function build(
  config: OutboxConfigInput,
  props: Partial<RelayFunctionProps> = {},
  withProcessor = false,
): { app: App; stack: Stack; relay: RelayFunction } {
  const outbox = defineConfig(config);
  const app = appWithoutBundling();
  const stack = new Stack(app, 'RelayAlone');
  const table = new OutboxTable(stack, 'Table').table;
  const topics = new OutboxTopics(stack, 'Topics', { config: outbox });
  const relay = new RelayFunction(stack, 'Relay', { config: outbox, table, topics, ...props });
  if (withProcessor) {
    new LowLatencyProcessor(stack, 'Processor', {
      config: outbox,
      table,
      topics: topics.topics,
      deadLetterQueue: relay.deadLetterQueue,
      image: ContainerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim'),
    });
  }
  return { app, stack, relay };
}

/** The relay mapping's aggregate-type filter, as synthesised. */
const aggregateTypeFilter = (stack: Stack): unknown => {
  const [mapping] = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::EventSourceMapping'));
  const [filter] = (mapping!.Properties.FilterCriteria as { Filters: { Pattern: string }[] }).Filters;
  return JSON.parse(filter!.Pattern).dynamodb.NewImage.aggregateType;
};

// The relay's filter leaves the low-latency types to a stream processor, and the mapping
// acknowledges their records unpublished: a RelayFunction deployed alone would drop those events.
describe('RelayFunction and lowLatencyAggregateTypes', () => {
  it('fails synthesis when nothing publishes the low-latency types, naming them, the prop and what is allowed', () => {
    const { app } = build({ ...base, lowLatencyAggregateTypes: ['payment'] });
    expect(() => app.synth()).toThrow(
      /RelayAlone\/Relay.*lowLatencyPublisher is not set, and the config's lowLatencyAggregateTypes "payment" are left out by this relay's event source filter \(acknowledged unpublished\).*allowed: a LowLatencyProcessor in the same scope .*lowLatencyPublisher: 'stream-processor'/s,
    );
  });

  it("synthesises with lowLatencyPublisher: 'stream-processor', the filter still leaving the types out", () => {
    const { stack } = build({ ...base, lowLatencyAggregateTypes: ['payment'] }, { lowLatencyPublisher: 'stream-processor' });
    expect(aggregateTypeFilter(stack)).toEqual({ S: [{ 'anything-but': ['payment'] }] });
  });

  it('synthesises with a LowLatencyProcessor beside the relay, as the Outbox construct builds', () => {
    const { app } = build({ ...base, lowLatencyAggregateTypes: ['payment'] }, {}, true);
    expect(() => app.synth()).not.toThrow();
  });

  it('needs nothing when the relay publishes every type: no low-latency types, or only handed-over ones', () => {
    expect(() => build(base).app.synth()).not.toThrow();
    const handover = build({ ...base, lowLatencyAggregateTypes: ['payment'], handoverAggregateTypes: ['payment'] });
    expect(() => handover.app.synth()).not.toThrow();
  });

  it('refuses a lowLatencyPublisher it does not know, when the relay is built', () => {
    expectPropsError(
      () => build(base, { lowLatencyPublisher: 'processor' as never }),
      'lowLatencyPublisher',
      `is "processor"; allowed: 'stream-processor'`,
    );
  });
});
