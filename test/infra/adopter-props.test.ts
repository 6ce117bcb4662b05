import { CfnParameter, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { Outbox, type OutboxProps } from '../../infra/outbox.js';
import { OutboxSubscriber, type OutboxSubscriberProps } from '../../infra/outbox-subscriber.js';
import { defineConfig } from '../../shared/config.js';
import { ProcessorOptionsError } from '../../shared/processor/errors.js';
import { appWithoutBundling, CONSUMER_ENTRY, expectPropsError, logicalId, resource } from '../helpers/cdk.js';

/** A stack with a standard topic and a number parameter, whose value is a token at synth. */
function setUp() {
  const stack = new Stack(appWithoutBundling(), 'Tokens');
  const topic = new Topic(stack, 'Topic');
  const seconds = new CfnParameter(stack, 'Seconds', { type: 'Number' }).valueAsNumber;
  const build = (props: Partial<OutboxSubscriberProps>) => new OutboxSubscriber(stack, 'Billing', { topic, ...props });
  return { stack, seconds, build };
}

describe('OutboxSubscriber: tokens where the queue is sized at synth', () => {
  it('refuses a token batching window when the new queue is sized from it, where the queue got the window alone as its visibility timeout', () => {
    const { seconds, build } = setUp();
    expectPropsError(
      () => build({ consumerEntry: CONSUMER_ENTRY, maxBatchingWindow: Duration.seconds(seconds) }),
      'maxBatchingWindow',
      'is a token, known only at deploy',
      'allowed: a duration known at synth, or set visibilityTimeout too',
    );
  });

  it("refuses a token consumerTimeout when the new queue is sized from it, with the typed error instead of CDK's negative duration", () => {
    const { seconds, build } = setUp();
    expectPropsError(
      () => build({ consumerEntry: CONSUMER_ENTRY, consumerTimeout: Duration.seconds(seconds) }),
      'consumerTimeout',
      'is a token, known only at deploy',
    );
  });

  it('names the existing consumer whose own timeout is a token', () => {
    const { stack, seconds, build } = setUp();
    const consumer = new LambdaFunction(stack, 'Fn', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({})'),
      timeout: Duration.seconds(seconds),
    });
    expectPropsError(() => build({ consumer }), 'consumerTimeout', '(the timeout of Tokens/Fn) is a token');
  });

  it('takes the tokens on purpose with a visibilityTimeout given, or an existing queue, and deploys them as given', () => {
    const { stack, seconds, build } = setUp();
    build({
      consumerEntry: CONSUMER_ENTRY,
      maxBatchingWindow: Duration.seconds(seconds),
      consumerTimeout: Duration.seconds(seconds),
      visibilityTimeout: Duration.seconds(900),
    });
    const other = new OutboxSubscriber(stack, 'Other', {
      topic: new Topic(stack, 'OtherTopic'),
      queue: new Queue(stack, 'Existing', { visibilityTimeout: Duration.seconds(600) }),
      consumerEntry: CONSUMER_ENTRY,
      maxBatchingWindow: Duration.seconds(seconds),
    });
    expect(other.queue.node.path).toBe('Tokens/Existing');
    const template = Template.fromStack(stack);
    const queue = resource(template, 'AWS::SQS::Queue', logicalId(template, 'AWS::SQS::Queue', 'BillingQueue')).Properties;
    expect(queue.VisibilityTimeout).toBe(900);
    const fn = resource(template, 'AWS::Lambda::Function', logicalId(template, 'AWS::Lambda::Function', 'BillingConsumer')).Properties;
    expect(fn.Timeout).toEqual({ Ref: 'Seconds' });
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mappings.map((m) => m.Properties.MaximumBatchingWindowInSeconds)).toEqual([{ Ref: 'Seconds' }, { Ref: 'Seconds' }]);
  });
});

const config = defineConfig({
  source: 'urn:example:shop',
  topics: [{ name: 'orders' }],
  routes: { order: 'orders', payment: 'orders' },
  lowLatencyAggregateTypes: ['payment'],
});
const IMAGE = ContainerImage.fromRegistry('public.ecr.aws/example/processor:1');

/** An Outbox (with a processor) in a stack with a number parameter, whose value is a token at synth. */
function outboxWith(props: (seconds: number) => Partial<OutboxProps>) {
  const stack = new Stack(appWithoutBundling(), 'Tokens');
  const seconds = new CfnParameter(stack, 'Seconds', { type: 'Number' }).valueAsNumber;
  return new Outbox(stack, 'Outbox', { config, ...props(seconds), processor: { image: IMAGE, ...props(seconds).processor } });
}

describe('Outbox: duration tokens read in milliseconds at synth', () => {
  it("refuses a token in seconds as iteratorAgeThreshold or processorLagThreshold with the typed error, where CDK's MustBeDurationSpecified was thrown", () => {
    for (const prop of ['iteratorAgeThreshold', 'processorLagThreshold'] as const) {
      expectPropsError(
        () => outboxWith((seconds) => ({ [prop]: Duration.seconds(seconds) })),
        prop,
        'is a token (a value known only at deploy) in a unit other than milliseconds',
        'allowed: a duration known at synth, or the token as Duration.millis(…)',
      );
    }
  });

  it("refuses a token in seconds as processor.failover with the processor's typed error", () => {
    let caught: unknown;
    try {
      outboxWith((seconds) => ({ processor: { failover: Duration.seconds(seconds) } }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProcessorOptionsError);
    expect((caught as ProcessorOptionsError).field).toBe('Tokens/Outbox/Processor.failover');
    expect((caught as Error).message).toContain('or the token as Duration.millis(…)');
  });

  it('takes tokens in milliseconds on purpose, into the alarms and the processor as given', () => {
    const outbox = outboxWith((ms) => ({
      iteratorAgeThreshold: Duration.millis(ms),
      processorLagThreshold: Duration.millis(ms),
      processor: { failover: Duration.millis(ms) },
    }));
    const template = Template.fromStack(Stack.of(outbox));
    const thresholds = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties.Threshold);
    expect(thresholds.filter((t) => JSON.stringify(t) === JSON.stringify({ Ref: 'Seconds' }))).toHaveLength(2);
    const task = Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0]!.Properties;
    expect(JSON.stringify(task.ContainerDefinitions)).toContain('{"Ref":"Seconds"}');
  });
});

describe('Outbox.addSubscriber: the subscriber id', () => {
  it("refuses an id already taken, by a subscriber or by the outbox's own parts, with the typed error, where constructs threw its plain Error", () => {
    const outbox = new Outbox(new Stack(appWithoutBundling(), 'Ids'), 'Outbox', {
      config: defineConfig({ source: 'urn:example:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } }),
    });
    outbox.addSubscriber('Billing', { topic: 'orders' });
    expectPropsError(
      () => outbox.addSubscriber('Billing', { topic: 'orders' }),
      'id',
      'is "Billing", already the id of another subscriber',
    );
    expectPropsError(
      () => outbox.addSubscriber('Relay', { topic: 'orders' }),
      'id',
      "already the id of the outbox's own Ids/Outbox/Relay",
      'allowed: an id not yet used in Ids/Outbox',
    );
    expect([...outbox.subscribers.keys()]).toEqual(['Billing']);
  });
});

describe('OutboxSubscriber: consumerEnvironment names Lambda refuses', () => {
  it('refuses a name with a space and a name Lambda reserves at synth, where the deploy failed', () => {
    for (const [name, fragment] of [
      ['TABLE NAME', 'has the variable "TABLE NAME"; allowed: names of a letter'],
      ['AWS_REGION', 'has the variable "AWS_REGION", a name Lambda reserves'],
    ] as const) {
      const { build } = setUp();
      expectPropsError(() => build({ consumerEntry: CONSUMER_ENTRY, consumerEnvironment: { [name]: 'x' } }), 'environment', fragment);
    }
    const { build } = setUp();
    expect(() => build({ consumerEntry: CONSUMER_ENTRY, consumerEnvironment: { TABLE_NAME: 'x', a1: 'y' } })).not.toThrow();
  });
});

describe('Outbox: a config not made by defineConfig', () => {
  it('refuses at synth, with the typed error, a config the relay would refuse at cold start, where a topic named "orders fifo" was synthesized', () => {
    const valid = defineConfig({ source: 'urn:example:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
    const spread = { ...valid, topics: [{ name: 'orders fifo', fifo: false }], routes: { order: 'orders fifo' } };
    expectPropsError(
      () => new Outbox(new Stack(appWithoutBundling(), 'Raw'), 'Outbox', { config: spread }),
      'config',
      'is not a valid outbox config (at topics[0].name: got "orders fifo"',
      'allowed: the outbox config defineConfig returns',
    );
  });
});
