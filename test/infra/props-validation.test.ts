import { CfnParameter, Annotations as ConstructAnnotations, Duration, Lazy, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { config } from '../../examples/orders/outbox.config.js';
import { Outbox, type OutboxProps, type OutboxSubscriptionOptions } from '../../infra/outbox.js';
import { OutboxSubscriber, type OutboxSubscriberProps } from '../../infra/outbox-subscriber.js';
import { OutboxTable } from '../../infra/outbox-table.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { RelayFunction } from '../../infra/relay-function.js';
import { defineConfig } from '../../shared/config.js';
import {
  appWithoutBundling,
  CONSUMER_ENTRY,
  expectPropsError,
  logicalId,
  resource,
  resourcesOf,
  roleStatements,
  unacknowledgedFindings,
} from '../helpers/cdk.js';

const newStack = () => new Stack(appWithoutBundling(), 'Test');
const outbox = (overrides: Partial<OutboxProps> = {}) => new Outbox(newStack(), 'Outbox', { config, ...overrides });
/** The properties of an Outbox's relay function, as synthesized. */
const relayFunctionOf = (built: Outbox) => {
  const template = Template.fromStack(Stack.of(built));
  return resource(template, 'AWS::Lambda::Function', logicalId(template, 'AWS::Lambda::Function', 'OutboxRelayFunction')).Properties;
};
const subscriber = (fifo: boolean, overrides: Partial<OutboxSubscriberProps> = {}) => {
  const stack = newStack();
  const topic = new Topic(stack, 'Topic', { fifo });
  return () => new OutboxSubscriber(stack, 'Subscriber', { topic, ...overrides });
};

const existingFunction = (stack: Stack, timeoutSeconds: number) =>
  new LambdaFunction(stack, 'Existing', {
    runtime: Runtime.NODEJS_LATEST,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    timeout: Duration.seconds(timeoutSeconds),
  });

describe('OutboxSubscriber props', () => {
  // SNS delivers a FIFO topic to standard queues too, without the message group or deduplication:
  // best-effort order, at-least-once (the consumer's inbox still drops the duplicates).
  it('subscribes a standard queue given for a FIFO topic, with a FIFO DLQ for SNS, the standard queue’s batching, and a warning on the order', () => {
    const stack = newStack();
    const topic = new Topic(stack, 'Topic', { fifo: true });
    const queue = new Queue(stack, 'Queue');
    const consumer = existingFunction(stack, 30);
    const sub = new OutboxSubscriber(stack, 'Sub', { topic, queue, consumer, batchSize: 100, maxBatchingWindow: Duration.seconds(5) });
    expect(sub.queue).toBe(queue);
    const template = Template.fromStack(stack);
    const queueId = logicalId(template, 'AWS::SQS::Queue', 'Queue');
    const dlqId = logicalId(template, 'AWS::SQS::Queue', 'SubDeadLetterQueue');
    expect(resource(template, 'AWS::SQS::Queue', queueId).Properties?.FifoQueue).toBeUndefined();
    // SNS sends what it cannot deliver from a FIFO topic only to a FIFO queue, whatever the endpoint.
    expect(resource(template, 'AWS::SQS::Queue', dlqId).Properties.FifoQueue).toBe(true);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      Endpoint: { 'Fn::GetAtt': [queueId, 'Arn'] },
      RawMessageDelivery: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 5,
    });
    Annotations.fromStack(stack).hasWarning(
      '/Test/Sub',
      Match.stringLikeRegexp('standard queue Test/Queue on the FIFO topic Test/Topic.*without the message group.*order.*inbox'),
    );
  });

  it('takes the acknowledgement of that warning, for a standard queue meant', () => {
    const stack = newStack();
    const sub = new OutboxSubscriber(stack, 'Sub', { topic: new Topic(stack, 'Topic', { fifo: true }), queue: new Queue(stack, 'Queue') });
    ConstructAnnotations.of(sub).acknowledgeWarning('dynamodb-outbox:standard-queue-on-fifo-topic', 'analytics: order does not matter');
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
  });

  it('says, of a queue imported by an ARN known only at deploy time, how to import it as the FIFO queue it may be', () => {
    const stack = newStack();
    const topic = new Topic(stack, 'Topic', { fifo: true });
    const arn = new CfnParameter(stack, 'QueueArn').valueAsString;
    new OutboxSubscriber(stack, 'Imported', { topic, queue: Queue.fromQueueArn(stack, 'ImportedQueue', arn) });
    new OutboxSubscriber(stack, 'Known', { topic, queue: new Queue(stack, 'Standard') });
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('standard-queue-on-fifo-topic|FIFO topic'));
    const of = (path: string) => warnings.filter((w) => w.id === path).map((w) => String(w.entry.data));
    expect(of('/Test/Imported')).toEqual([expect.stringContaining('import it with Queue.fromQueueAttributes({ queueArn, fifo: true })')]);
    expect(of('/Test/Known')).toEqual([expect.not.stringContaining('fromQueueAttributes')]);
  });

  it('keeps a FIFO queue’s batching limits on a FIFO topic, and warns of nothing', () => {
    const stack = newStack();
    const topic = new Topic(stack, 'Topic', { fifo: true });
    const queue = new Queue(stack, 'Queue', { fifo: true });
    const consumer = existingFunction(stack, 30);
    expectPropsError(() => new OutboxSubscriber(stack, 'Sub', { topic, queue, consumer, batchSize: 11 }), 'batchSize', 'from 1 to 10');
    new OutboxSubscriber(stack, 'Ordered', { topic, queue: new Queue(stack, 'Other', { fifo: true }) });
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
  });

  it('rejects a FIFO queue on a standard topic', () => {
    const stack = newStack();
    const topic = new Topic(stack, 'Topic');
    const queue = new Queue(stack, 'Queue', { fifo: true });
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Sub', { topic, queue }),
      'queue',
      'FIFO queue on the standard topic',
      'allowed: a standard queue',
    );
  });

  it('accepts a queue of the same kind as the topic and subscribes it', () => {
    const stack = newStack();
    const topic = new Topic(stack, 'Topic', { fifo: true });
    const queue = new Queue(stack, 'Queue', { fifo: true });
    expect(new OutboxSubscriber(stack, 'Sub', { topic, queue }).queue).toBe(queue);
  });

  it('rejects a visibility timeout under 6 × the consumer timeout plus the batching window', () => {
    const build = subscriber(false, {
      consumerEntry: CONSUMER_ENTRY,
      consumerTimeout: Duration.seconds(20),
      maxBatchingWindow: Duration.seconds(5),
      visibilityTimeout: Duration.seconds(100),
    });
    expectPropsError(build, 'visibilityTimeout', 'is 100 s', 'at least 125 s');
  });

  it('rejects a batch size above 10 on a FIFO queue', () => {
    expectPropsError(subscriber(true, { consumerEntry: CONSUMER_ENTRY, batchSize: 11 }), 'batchSize', 'is 11', 'from 1 to 10');
  });

  it('rejects a batch size above 10 on a standard queue without a batching window', () => {
    expectPropsError(subscriber(false, { consumerEntry: CONSUMER_ENTRY, batchSize: 100 }), 'batchSize', 'is 100 without a batching window');
  });

  it('rejects maxReceiveCount outside 1–1,000', () => {
    expectPropsError(subscriber(false, { maxReceiveCount: 0 }), 'maxReceiveCount', 'is 0', 'from 1 to 1000');
  });

  it('shows a count given as a string (as `cdk -c` context gives it) as a string, and NaN as NaN', () => {
    const fromContext = '5' as unknown as number;
    expectPropsError(
      subscriber(false, { maxReceiveCount: fromContext }),
      'maxReceiveCount',
      'is "5"; allowed: a whole number from 1 to 1000',
    );
    expectPropsError(
      subscriber(false, { maxReceiveCount: Number.NaN }),
      'maxReceiveCount',
      'is NaN; allowed: a whole number from 1 to 1000',
    );
  });

  it('rejects a retention period over 14 days', () => {
    expectPropsError(subscriber(false, { retentionPeriod: Duration.days(15) }), 'retentionPeriod', '15 days', 'from 60 to 1209600');
  });

  it('rejects consumer settings without a consumer', () => {
    expectPropsError(
      subscriber(false, { batchSize: 5, consumerTimeout: Duration.seconds(10) }),
      'consumerTimeout, batchSize',
      'neither consumerEntry nor consumer',
    );
  });

  it('rejects a consumer and a consumerEntry together', () => {
    const stack = newStack();
    const consumer = existingFunction(stack, 30);
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Sub', { topic: new Topic(stack, 'Topic'), consumer, consumerEntry: CONSUMER_ENTRY }),
      'consumer',
      'together with consumerEntry',
    );
  });

  it('rejects a visibility timeout under 6 × the timeout of an existing consumer function', () => {
    const stack = newStack();
    const consumer = existingFunction(stack, 60);
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Sub', { topic: new Topic(stack, 'Topic'), consumer, visibilityTimeout: Duration.seconds(300) }),
      'visibilityTimeout',
      'with a 60 s consumer timeout',
      'at least 360 s',
    );
  });

  it('rejects new-queue settings next to an existing queue', () => {
    const stack = newStack();
    const topic = new Topic(stack, 'Topic');
    const queue = new Queue(stack, 'Queue');
    expectPropsError(() => new OutboxSubscriber(stack, 'Sub', { topic, queue, maxReceiveCount: 3 }), 'maxReceiveCount', 'existing queue');
  });

  it('rejects an empty filter list', () => {
    expectPropsError(subscriber(false, { eventTypes: [] }), 'eventTypes', 'is []', 'non-empty list');
  });

  it('rejects a consumer entry that does not exist', () => {
    expectPropsError(
      subscriber(false, { consumerEntry: 'functions/nowhere/handler.ts' }),
      'entry',
      '"functions/nowhere/handler.ts"',
      'does not exist',
    );
  });

  it('skips unresolved tokens instead of judging them', () => {
    const built = subscriber(false, { maxReceiveCount: Lazy.number({ produce: () => 3 }) })();
    Template.fromStack(Stack.of(built)).hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 3 }),
    });
  });
});

describe('Outbox props', { timeout: 120_000 }, () => {
  it('rejects a subscription to a topic the config does not have', () => {
    const built = outbox();
    expectPropsError(
      () => built.addSubscriber('Billing', { topic: 'invoices' }),
      'topic',
      '"invoices" is not a topic',
      '"orders.fifo", "payments"',
    );
  });

  it("sets a subscriber queue's age alarm below its retention period, and refuses one at or above it", () => {
    const ageThreshold = (options: Partial<OutboxSubscriptionOptions>) => {
      const built = outbox();
      const subscriber = built.addSubscriber('Billing', { topic: 'payments', ...options });
      const template = Template.fromStack(Stack.of(built));
      const queue = Stack.of(built).getLogicalId(subscriber.queue.node.defaultChild as never);
      const alarm = Object.values(template.findResources('AWS::CloudWatch::Alarm')).find(
        (a) => a.Properties.MetricName === 'ApproximateAgeOfOldestMessage' && JSON.stringify(a.Properties.Dimensions).includes(queue),
      );
      return alarm?.Properties.Threshold as number | undefined;
    };
    expect(ageThreshold({})).toBe(3600);
    expect(ageThreshold({ retentionPeriod: Duration.minutes(30) })).toBe(900);
    expect(ageThreshold({ queueAgeThreshold: Duration.minutes(10) })).toBe(600);
    expectPropsError(
      () => ageThreshold({ retentionPeriod: Duration.hours(2), queueAgeThreshold: Duration.hours(2) }),
      'queueAgeThreshold',
      'is 2 hours with a retention period of 2 hours; allowed: less than the retention period',
    );
    expectPropsError(
      () => ageThreshold({ queueAgeThreshold: Duration.seconds(30) }),
      'queueAgeThreshold',
      'whole seconds from 60 to 1209600',
    );
  });

  it('rejects relay memory outside AWS limits', () => {
    expectPropsError(() => outbox({ relayMemorySize: 64 }), 'memorySize', 'is 64', 'from 128 to 10240');
  });

  it("deploys the config's relay timeout, the one the local runner applies", () => {
    const timed = defineConfig({ ...config, relay: { ...config.relay, timeoutSeconds: 120 } });
    expect(relayFunctionOf(outbox({ config: timed })).Timeout).toBe(120);
  });

  it("rejects a relay timeout prop that differs from the config's relay.timeoutSeconds", () => {
    expectPropsError(
      () => outbox({ relayTimeout: Duration.minutes(2) }),
      'relayTimeout',
      "is 2 minutes, but the config's relay.timeoutSeconds is 60",
      'set relay.timeoutSeconds (1–900)',
    );
  });

  it("accepts a relay timeout prop equal to the config's", () => {
    expect(relayFunctionOf(outbox({ relayTimeout: Duration.minutes(1) })).Timeout).toBe(60);
  });

  it('deploys a relay timeout given as a token as it is, leaving it to CloudFormation', () => {
    const relayTimeout = Duration.seconds(Lazy.number({ produce: () => 90 }));
    expect(relayFunctionOf(outbox({ relayTimeout })).Timeout).toBe(90);
  });

  it('rejects a failed-batch retention that is not whole days, or under a day', () => {
    expectPropsError(
      () => outbox({ failedBatchRetention: Duration.hours(36) }),
      'failedBatchRetention',
      '1 day 12 hours',
      'whole days, at least 1',
    );
    expectPropsError(
      () => outbox({ failedBatchRetention: Duration.hours(12) }),
      'failedBatchRetention',
      '12 hours',
      'whole days, at least 1',
    );
  });

  it('rejects a processor lag threshold under a second, even with no processor to watch', () => {
    expectPropsError(
      () => outbox({ processorLagThreshold: Duration.millis(500) }),
      'processorLagThreshold',
      '500 millis',
      'from 1 to 86400',
    );
  });

  it('rejects an iterator-age threshold under a minute', () => {
    expectPropsError(
      () => outbox({ iteratorAgeThreshold: Duration.seconds(30) }),
      'iteratorAgeThreshold',
      '30 seconds',
      'from 60 to 86400',
    );
  });

  it('rejects an alarm e-mail that is not an address', () => {
    expectPropsError(() => outbox({ alarmEmail: 'oncall' }), 'alarmEmail', '"oncall"', 'an e-mail address');
  });

  it('rejects a missing relay entry', () => {
    expectPropsError(() => outbox({ relayEntry: 'functions/relay/missing.ts' }), 'entry', 'does not exist');
  });

  it('without relay tracing, leaves the relay role no statement on "*" and nothing to acknowledge for it', () => {
    const built = outbox({ relayTracing: Tracing.DISABLED });
    const template = Template.fromStack(Stack.of(built));
    const role = logicalId(template, 'AWS::IAM::Role', 'OutboxRelayRole');
    expect(roleStatements(template, role).filter((s) => resourcesOf(s).includes('*'))).toEqual([]);
    expect(
      resource(template, 'AWS::Lambda::Function', logicalId(template, 'AWS::Lambda::Function', 'OutboxRelayFunction')).Properties
        .TracingConfig,
    ).toBeUndefined();
    expect(unacknowledgedFindings(Stack.of(built))).toEqual([]);
  });

  it('accepts a token for the relay memory', () => {
    expect(relayFunctionOf(outbox({ relayMemorySize: Lazy.number({ produce: () => 1024 }) })).MemorySize).toBe(1024);
  });
});

describe('OutboxTable props', () => {
  it('rejects a customer-managed key in a region-agnostic stack', () => {
    const stack = newStack();
    const encryptionKey = new Key(stack, 'Key');
    expectPropsError(() => new OutboxTable(stack, 'Table', { encryptionKey }), 'encryptionKey', 'region-agnostic', 'explicit env.region');
  });

  it.each(['ab', 'orders table', 'x'.repeat(256), 'orders/v2'])('rejects the table name %j, which DynamoDB refuses', (tableName) => {
    expectPropsError(
      () => new OutboxTable(newStack(), 'Table', { tableName }),
      'tableName',
      `is ${JSON.stringify(tableName)}; allowed: 3–255 letters, digits, underscores, hyphens and dots`,
    );
  });

  it('accepts a table name DynamoDB takes', () => {
    expect(() => new OutboxTable(newStack(), 'Table', { tableName: 'shop.orders_v2-eu' })).not.toThrow();
  });
});

describe('RelayFunction props', () => {
  it('rejects a table without a stream', () => {
    const stack = newStack();
    const table = new TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
    const topics = new OutboxTopics(stack, 'Topics', { config });
    expectPropsError(() => new RelayFunction(stack, 'Relay', { config, table, topics }), 'table', 'has no stream');
  });

  it('rejects a stream without new images', () => {
    const stack = newStack();
    const table = new TableV2(stack, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      dynamoStream: StreamViewType.KEYS_ONLY,
    });
    const topics = new OutboxTopics(stack, 'Topics', { config });
    expectPropsError(() => new RelayFunction(stack, 'Relay', { config, table, topics }), 'table', 'has a KEYS_ONLY stream', 'NEW_IMAGE');
  });

  it('builds a topic for every name the config accepts: the longest, and one named like the construct of the SNS key', () => {
    const stack = newStack();
    const long = 'n'.repeat(256);
    const names = defineConfig({
      source: 'urn:test',
      topics: [{ name: long }, { name: 'AwsManagedSnsKey' }],
      routes: { a: long, b: 'AwsManagedSnsKey' },
    });
    new OutboxTopics(stack, 'Topics', { config: names });
    const topics = Object.values(Template.fromStack(stack).findResources('AWS::SNS::Topic'));
    expect(topics).toHaveLength(2);
    expect(topics.map((t) => t.Properties.DisplayName)).toEqual([`Outbox ${long}`.slice(0, 100), 'Outbox AwsManagedSnsKey']);
  });

  it('rejects topics built from another config', () => {
    const stack = newStack();
    const table = new OutboxTable(stack, 'Table').table;
    const other = defineConfig({ source: 'urn:test', topics: [{ name: 'other' }], routes: { thing: 'other' } });
    const topics = new OutboxTopics(stack, 'Topics', { config: other });
    expectPropsError(() => new RelayFunction(stack, 'Relay', { config, table, topics }), 'topics', 'orders.fifo, payments');
  });
});

describe('cdk-nag check helper', () => {
  it('fails on a queue with neither encryption-in-transit policy nor DLQ', () => {
    const stack = newStack();
    new Queue(stack, 'Plain');
    const findings = unacknowledgedFindings(stack);
    expect(findings).toContain('AwsSolutions-SQS3 @ Test/Plain/Resource');
    expect(findings).toContain('AwsSolutions-SQS4 @ Test/Plain/Resource');
  });
});
