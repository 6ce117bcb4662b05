import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Alias, Code, type IFunction, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../infra/outbox.js';
import { OutboxSubscriber, type OutboxSubscriberProps } from '../../infra/outbox-subscriber.js';
import { defineConfig } from '../../shared/config.js';
import { appWithoutBundling, expectPropsError, logicalId, resource } from '../helpers/cdk.js';

/** Builds a subscriber of a new topic, with an existing consumer when `consumer` is true; no synthesis. */
function build(fifo: boolean, props: Partial<OutboxSubscriberProps>, consumer = false) {
  const stack = new Stack(appWithoutBundling(), 'Limits');
  const topic = new Topic(stack, 'Topic', { fifo });
  return new OutboxSubscriber(stack, 'Billing', {
    topic,
    ...(consumer
      ? { consumer: LambdaFunction.fromFunctionName(stack, 'Consumer', 'consumer'), consumerTimeout: Duration.seconds(30) }
      : {}),
    ...props,
  });
}

const values = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}.${i}`);

describe('OutboxSubscriber: SNS filter policy complexity', () => {
  it('accepts up to 150 value combinations: 150 event types on one aggregate type, 15 × 10', () => {
    expect(() => build(false, { eventTypes: values('order', 150), aggregateTypes: ['order'] })).not.toThrow();
    expect(() => build(false, { eventTypes: values('order', 15), aggregateTypes: values('agg', 10) })).not.toThrow();
  });

  it('rejects more than 150 combinations, counted as the product of the values of each attribute', () => {
    expectPropsError(
      () => build(false, { eventTypes: values('order', 20), aggregateTypes: values('agg', 10) }),
      'eventTypes/aggregateTypes',
      'make 20 event types × 10 aggregate types = 200 value combinations',
      'allowed: at most 150',
    );
    expectPropsError(
      () => build(false, { aggregateTypes: values('agg', 151) }),
      'eventTypes/aggregateTypes',
      'make 151 aggregate types = 151 value combinations',
    );
  });
});

describe('OutboxSubscriber: batching window on a FIFO topic', () => {
  it('rejects maxBatchingWindow on a subscriber of a FIFO topic, naming the prop and what is allowed', () => {
    expectPropsError(
      () => build(true, { maxBatchingWindow: Duration.seconds(5) }, true),
      'maxBatchingWindow',
      'is 5 seconds on a subscriber of the FIFO topic Limits/Topic',
      'allowed: no batching window on a FIFO topic',
      'so leave it out or make it 0',
    );
  });

  it('takes a zero window on a FIFO topic, which gathers nothing, and gives the event source none (CDK refuses any on a FIFO queue)', () => {
    const subscriber = build(true, { maxBatchingWindow: Duration.seconds(0) }, true);
    const template = Template.fromStack(Stack.of(subscriber));
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 10 });
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mapping?.Properties).not.toHaveProperty('MaximumBatchingWindowInSeconds');
    expectPropsError(
      () => build(true, { maxBatchingWindow: Duration.seconds(1) }, true),
      'maxBatchingWindow',
      'is 1 second on a subscriber of the FIFO topic Limits/Topic',
      'allowed: no batching window on a FIFO topic (Lambda takes none from a FIFO queue), so leave it out or make it 0',
    );
  });

  it('keeps accepting a batching window on a standard topic', () => {
    expect(() => build(false, { maxBatchingWindow: Duration.seconds(5) }, true)).not.toThrow();
  });
});

describe("OutboxSubscriber: an existing consumer's timeout", () => {
  /** A subscriber fed to `consumer(stack)`, with its new queue's visibility timeout. */
  function visibilityWith(consumer: (stack: Stack) => IFunction, props: Partial<OutboxSubscriberProps> = {}): number {
    const stack = new Stack(appWithoutBundling(), 'Timeouts');
    const subscriber = new OutboxSubscriber(stack, 'Billing', { topic: new Topic(stack, 'Topic'), consumer: consumer(stack), ...props });
    const template = Template.fromStack(stack);
    expect(subscriber.consumer).toBeDefined();
    return resource(template, 'AWS::SQS::Queue', logicalId(template, 'AWS::SQS::Queue', 'BillingQueue')).Properties
      .VisibilityTimeout as number;
  }
  const fn = (stack: Stack, timeout?: Duration) =>
    new LambdaFunction(stack, 'Consumer', {
      code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      ...(timeout === undefined ? {} : { timeout }),
    });

  it("sizes the queue from the function's own timeout, also through an alias or a version of it", () => {
    expect(visibilityWith((stack) => fn(stack, Duration.seconds(60)))).toBe(360);
    expect(
      visibilityWith((stack) => new Alias(stack, 'Live', { aliasName: 'live', version: fn(stack, Duration.seconds(90)).currentVersion })),
    ).toBe(540);
    expect(visibilityWith((stack) => fn(stack, Duration.seconds(20)).currentVersion)).toBe(120);
    // A function without a timeout of its own is sized for 30 s, more than Lambda's 3 s default.
    expect(visibilityWith((stack) => fn(stack))).toBe(180);
  });

  it('requires consumerTimeout for an imported function, whose timeout the app cannot read', () => {
    const imported = (stack: Stack) => LambdaFunction.fromFunctionName(stack, 'Consumer', 'consumer');
    expectPropsError(
      () => visibilityWith(imported),
      'consumerTimeout',
      'is not set, and the timeout of the consumer Timeouts/Consumer cannot be read',
      "allowed: that function's timeout (1–900 s)",
    );
    expect(visibilityWith(imported, { consumerTimeout: Duration.seconds(120) })).toBe(720);
  });

  it("rejects a consumerTimeout that contradicts the function's own", () => {
    expectPropsError(
      () => visibilityWith((stack) => fn(stack, Duration.seconds(60)), { consumerTimeout: Duration.seconds(30) }),
      'consumerTimeout',
      'is 30 s, but the consumer Timeouts/Consumer times out after 60 s; allowed: leave it out (it is read from the function), or 60 s',
    );
    expect(visibilityWith((stack) => fn(stack, Duration.seconds(60)), { consumerTimeout: Duration.seconds(60) })).toBe(360);
  });
});

describe('OutboxSubscriber: logRetention without a consumer to create', () => {
  it("rejects logRetention with an existing consumer or none, whose logs are not the subscriber's", () => {
    for (const consumer of [false, true]) {
      expectPropsError(
        () => build(false, { logRetention: RetentionDays.ONE_WEEK }, consumer),
        'logRetention',
        'is set but configure a consumer Lambda to create, and no consumerEntry is given',
      );
    }
  });

  it("lets Outbox.addSubscriber keep the outbox's logRetention for a subscriber with an existing consumer", () => {
    const stack = new Stack(appWithoutBundling(), 'Retention');
    const config = defineConfig({ source: 'urn:test:retention', topics: [{ name: 'payments' }], routes: { payment: 'payments' } });
    const outbox = new Outbox(stack, 'Outbox', { config, logRetention: RetentionDays.ONE_WEEK });
    const consumer = LambdaFunction.fromFunctionName(stack, 'Consumer', 'consumer');
    expect(() => outbox.addSubscriber('Billing', { topic: 'payments', consumer, consumerTimeout: Duration.seconds(30) })).not.toThrow();
  });
});

describe('OutboxSubscriber: queue settings with an existing queue', () => {
  it('rejects them, saying to set them on that queue or leave queue out', () => {
    const stack = new Stack(appWithoutBundling(), 'OwnQueue');
    const topic = new Topic(stack, 'Topic');
    const queue = new Queue(stack, 'Own');
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Billing', { topic, queue, consumerEntry: 'consumer.ts', maxReceiveCount: 3 }),
      'maxReceiveCount',
      'is set but configure a new queue, and an existing queue is given; allowed: set them on that queue, or leave queue out',
    );
  });
});
