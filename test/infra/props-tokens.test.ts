import { CfnParameter, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxSubscriber, type OutboxSubscriberProps } from '../../infra/outbox-subscriber.js';
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
