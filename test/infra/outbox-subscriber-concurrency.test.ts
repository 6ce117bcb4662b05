import { Duration, Lazy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { config } from '../../examples/orders/outbox.config.js';
import { Outbox } from '../../infra/outbox.js';
import { OutboxSubscriber, type OutboxSubscriberProps } from '../../infra/outbox-subscriber.js';
import { appWithoutBundling, CONSUMER_ENTRY, expectPropsError, unacknowledgedFindings } from '../helpers/cdk.js';

/** A subscriber of a new SSL-only topic, built and synthesised. */
function synth(props: Partial<OutboxSubscriberProps>, fifo = false) {
  const stack = new Stack(appWithoutBundling(), 'Concurrency');
  const topic = new Topic(stack, 'Topic', { fifo, enforceSSL: true });
  const subscriber = new OutboxSubscriber(stack, 'Billing', { topic, ...props });
  return { stack, subscriber, template: Template.fromStack(stack) };
}

/** The consumer functions of a template (the log-retention helpers left out) and its event source mappings. */
function concurrencyOf(template: Template) {
  const functions = Object.values(template.findResources('AWS::Lambda::Function')).map((f) => f.Properties);
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).map((m) => m.Properties);
  return {
    reserved: functions.map((f) => f.ReservedConcurrentExecutions),
    maximum: mappings.map((m) => m.ScalingConfig?.MaximumConcurrency),
  };
}

const existing = (stack: Stack) =>
  new LambdaFunction(stack, 'Shared', {
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    timeout: Duration.seconds(30),
  });

describe('OutboxSubscriber: concurrency bounds', { timeout: 120_000 }, () => {
  it('reserves concurrency for the consumer it creates, and bounds the event source by the reservation', () => {
    const { template } = synth({ consumerEntry: CONSUMER_ENTRY, reservedConcurrency: 20 });
    expect(concurrencyOf(template)).toEqual({ reserved: [20], maximum: [20] });
  });

  it('keeps a given maxConcurrency below the reservation, and caps the default at 1,000 for a larger one', () => {
    expect(concurrencyOf(synth({ consumerEntry: CONSUMER_ENTRY, reservedConcurrency: 20, maxConcurrency: 5 }).template)).toEqual({
      reserved: [20],
      maximum: [5],
    });
    expect(concurrencyOf(synth({ consumerEntry: CONSUMER_ENTRY, reservedConcurrency: 1500 }).template)).toEqual({
      reserved: [1500],
      maximum: [1000],
    });
  });

  it('bounds the event source alone with maxConcurrency, reserving nothing, for a new or an existing consumer', () => {
    expect(concurrencyOf(synth({ consumerEntry: CONSUMER_ENTRY, maxConcurrency: 4 }).template)).toEqual({
      reserved: [undefined],
      maximum: [4],
    });
    const stack = new Stack(appWithoutBundling(), 'Existing');
    new OutboxSubscriber(stack, 'Billing', { topic: new Topic(stack, 'Topic'), consumer: existing(stack), maxConcurrency: 3 });
    expect(concurrencyOf(Template.fromStack(stack))).toEqual({ reserved: [undefined], maximum: [3] });
  });

  it('leaves both unset by default: no reservation, no bound beyond the account', () => {
    expect(concurrencyOf(synth({ consumerEntry: CONSUMER_ENTRY }).template)).toEqual({ reserved: [undefined], maximum: [undefined] });
  });

  it('takes reservedConcurrency through Outbox.addSubscriber', () => {
    const outbox = new Outbox(new Stack(appWithoutBundling(), 'Outbox'), 'Outbox', { config });
    const subscriber = outbox.addSubscriber('Billing', { topic: 'payments', consumerEntry: CONSUMER_ENTRY, reservedConcurrency: 10 });
    const template = Template.fromStack(Stack.of(outbox));
    const consumer = Stack.of(outbox).getLogicalId(subscriber.consumer?.node.defaultChild as never);
    expect(template.toJSON().Resources[consumer].Properties.ReservedConcurrentExecutions).toBe(10);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: consumer },
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });

  it.each([0, 1, 2.5, -3])('rejects a reservedConcurrency of %s, saying what is allowed', (reservedConcurrency) => {
    expectPropsError(
      () => synth({ consumerEntry: CONSUMER_ENTRY, reservedConcurrency }),
      'reservedConcurrency',
      `is ${reservedConcurrency}; allowed: a whole number from 2`,
      'its concurrency limit less 100, checked by Lambda at deploy',
    );
  });

  it('shows a reservedConcurrency given as a string (as CDK context gives it) quoted, not as the number it reads like', () => {
    expectPropsError(
      () => synth({ consumerEntry: CONSUMER_ENTRY, reservedConcurrency: '5' as unknown as number }),
      'reservedConcurrency',
      'is "5"; allowed: a whole number from 2',
    );
  });

  it('rejects a maxConcurrency above the reservation, which Lambda would throttle', () => {
    expectPropsError(
      () => synth({ consumerEntry: CONSUMER_ENTRY, reservedConcurrency: 10, maxConcurrency: 11 }),
      'maxConcurrency',
      'is 11 with a reservedConcurrency of 10; allowed: at most 10',
    );
  });

  it.each([1, 1001, 2.5])('rejects a maxConcurrency of %s, outside AWS’s 2–1,000', (maxConcurrency) => {
    expectPropsError(
      () => synth({ consumerEntry: CONSUMER_ENTRY, maxConcurrency }),
      'maxConcurrency',
      `is ${maxConcurrency}`,
      'from 2 to 1000',
    );
  });

  it('rejects reservedConcurrency for an existing consumer, whose reservation is its own', () => {
    const stack = new Stack(appWithoutBundling(), 'Existing');
    expectPropsError(
      () => new OutboxSubscriber(stack, 'Billing', { topic: new Topic(stack, 'Topic'), consumer: existing(stack), reservedConcurrency: 5 }),
      'reservedConcurrency',
      'is set with the existing consumer Existing/Shared',
      'allowed: set reservedConcurrentExecutions on that function',
    );
  });

  it('rejects reservedConcurrency without a consumer', () => {
    expectPropsError(() => synth({ reservedConcurrency: 5 }), 'reservedConcurrency', 'is set but configure a consumer Lambda to create');
  });

  it('leaves a reservation given as a token to CloudFormation, without bounding the event source by it', () => {
    const reservedConcurrency = Lazy.number({ produce: () => 7 });
    expect(concurrencyOf(synth({ consumerEntry: CONSUMER_ENTRY, reservedConcurrency }).template)).toEqual({
      reserved: [7],
      maximum: [undefined],
    });
  });

  it('is cdk-nag clean with a reservation and a bound, on a standard and a FIFO topic', () => {
    expect(unacknowledgedFindings(synth({ consumerEntry: CONSUMER_ENTRY, reservedConcurrency: 10, maxConcurrency: 5 }).stack)).toEqual([]);
    expect(unacknowledgedFindings(synth({ consumerEntry: CONSUMER_ENTRY, reservedConcurrency: 10 }, true).stack)).toEqual([]);
  });
});
