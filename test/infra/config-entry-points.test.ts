import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { LowLatencyProcessor } from '../../infra/low-latency-processor.js';
import { Outbox } from '../../infra/outbox.js';
import { OutboxAlarms } from '../../infra/outbox-alarms.js';
import { OutboxArchive } from '../../infra/outbox-archive.js';
import { OutboxSubscriber } from '../../infra/outbox-subscriber.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { RelayFunction } from '../../infra/relay-function.js';
import { defineConfig, type OutboxConfig } from '../../shared/config.js';
import { appWithoutBundling, expectPropsError } from '../helpers/cdk.js';

const input = {
  source: 'urn:test:infra',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
  archive: { retentionDays: 30 },
};
const config = defineConfig(input);

/** A stack with what the parts are built beside: the table, the config's topics and the relay DLQ. */
function parts() {
  const stack = new Stack(appWithoutBundling(), 'Parts');
  const table = new Table(stack, 'Outbox', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream: StreamViewType.NEW_IMAGE });
  const topics = new OutboxTopics(stack, 'Topics', { config });
  return { stack, table, topics, deadLetterQueue: new Queue(stack, 'RelayDlq') };
}

type Build = (given: unknown) => unknown;
const as = (given: unknown) => given as OutboxConfig;
/** Each construct that takes the config (OutboxAlarms and OutboxSubscriber optionally). */
const CONSTRUCTS: [string, Build][] = [
  ['Outbox', (c) => new Outbox(new Stack(appWithoutBundling(), 'Whole'), 'Outbox', { config: as(c) })],
  ['OutboxTopics', (c) => new OutboxTopics(new Stack(new App(), 'Alone'), 'Topics', { config: as(c) })],
  [
    'RelayFunction',
    (c) => {
      const { stack, table, topics } = parts();
      return new RelayFunction(stack, 'Relay', { config: as(c), table, topics });
    },
  ],
  [
    'LowLatencyProcessor',
    (c) => {
      const { stack, table, topics, deadLetterQueue } = parts();
      return new LowLatencyProcessor(stack, 'Processor', {
        config: as(c),
        table,
        topics: topics.topics,
        deadLetterQueue,
        image: ContainerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim'),
      });
    },
  ],
  [
    'OutboxArchive',
    (c) => {
      const { stack, topics } = parts();
      return new OutboxArchive(stack, 'Archive', { config: as(c), topics: topics.topics });
    },
  ],
  [
    'OutboxAlarms',
    (c) => {
      const stack = new Stack(new App(), 'Alarms');
      return new OutboxAlarms(stack, 'Alarms', {
        relayFunction: LambdaFunction.fromFunctionName(stack, 'Relay', 'orders-relay'),
        relayEventSourceMappingId: 'mapping-uuid',
        config: as(c),
      });
    },
  ],
  [
    'OutboxSubscriber',
    (c) => {
      const { stack, topics } = parts();
      return new OutboxSubscriber(stack, 'Billing', { topic: topics.topic('orders.fifo'), config: as(c) });
    },
  ],
];

const OPTIONAL = new Set(['OutboxAlarms', 'OutboxSubscriber']);

describe.each(CONSTRUCTS)('%s given a config that is none', (name, build) => {
  it.each<[string, unknown, string]>([
    ['undefined', undefined, 'got undefined; allowed: the outbox config defineConfig returns'],
    ['null', null, 'got null; allowed: the outbox config defineConfig returns'],
    ['a string', 'urn:test:infra', 'got "urn:test:infra"; allowed: the outbox config defineConfig returns'],
    ['an object without topics', { source: 'urn:test:infra', routes: {} }, 'at topics: got undefined'],
    ['a frozen config of an older shape', Object.freeze({ ...config, relayBatchSize: 10 }), 'relayBatchSize'],
  ])('refuses %s with an OutboxPropsError naming config, what was given and what is allowed', (what, given, shown) => {
    if (what === 'undefined' && OPTIONAL.has(name)) return;
    expectPropsError(() => build(given), 'config', shown, 'defineConfig');
  });
});

describe.each(CONSTRUCTS)('%s given a config not made by defineConfig', (_name, build) => {
  it.each<[string, unknown]>([
    ['the raw input object', { ...input }],
    ['JSON read back', JSON.parse(JSON.stringify(config))],
  ])('takes %s, checked and given its defaults', (_what, given) => {
    expect(build(given)).toBeDefined();
  });
});
