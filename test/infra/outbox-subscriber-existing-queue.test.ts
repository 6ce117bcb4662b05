import { Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxSubscriber, type OutboxSubscriberProps } from '../../infra/outbox-subscriber.js';
import { appWithoutBundling, expectPropsError } from '../helpers/cdk.js';

const WARNING = 'dynamodb-outbox:queue-visibility-below-advice';

/** A subscriber of an existing queue (made by `queue`) fed to a consumer function of the app that times out after `timeout`. */
function build(queue: (stack: Stack) => Queue, timeout: Duration, props: Partial<OutboxSubscriberProps> = {}) {
  const stack = new Stack(appWithoutBundling(), 'Existing');
  const consumer = new LambdaFunction(stack, 'Consumer', {
    code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_22_X,
    timeout,
  });
  new OutboxSubscriber(stack, 'Billing', { topic: new Topic(stack, 'Topic'), queue: queue(stack), consumer, ...props });
  return stack;
}

const warnings = (stack: Stack) => Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp(WARNING));

describe("OutboxSubscriber: an existing queue's visibility timeout against its consumer's timeout", () => {
  it("rejects a queue of the app whose visibility timeout is below the consumer's timeout, which Lambda refuses at deploy", () => {
    // Without a visibility timeout of its own the queue has SQS's 30 s.
    expectPropsError(
      () => build((stack) => new Queue(stack, 'Own'), Duration.seconds(60)),
      'queue',
      'Existing/Own has a visibility timeout of 30 s, less than the 60 s timeout of its consumer',
      'allowed: a queue whose visibility timeout is at least 60 s',
      '360 s: 6 × the consumer timeout + the batching window',
    );
    expectPropsError(
      () => build((stack) => new Queue(stack, 'Own', { visibilityTimeout: Duration.seconds(100) }), Duration.seconds(120)),
      'queue',
      'has a visibility timeout of 100 s, less than the 120 s timeout of its consumer',
    );
  });

  it('warns, without refusing, when the visibility timeout is below 6 × the consumer timeout plus the batching window', () => {
    const equal = build((stack) => new Queue(stack, 'Own', { visibilityTimeout: Duration.seconds(60) }), Duration.seconds(60));
    const found = warnings(equal);
    expect(found).toHaveLength(1);
    expect(JSON.stringify(found[0]?.entry.data)).toContain('is 60 s, below the 360 s AWS advises');
    const windowed = build((stack) => new Queue(stack, 'Own', { visibilityTimeout: Duration.seconds(180) }), Duration.seconds(30), {
      maxBatchingWindow: Duration.seconds(10),
    });
    expect(JSON.stringify(warnings(windowed)[0]?.entry.data)).toContain('is 180 s, below the 190 s AWS advises');
  });

  it('takes a queue sized as advised, and an imported queue whose timeout the app cannot read, without a word', () => {
    const advised = build((stack) => new Queue(stack, 'Own', { visibilityTimeout: Duration.seconds(360) }), Duration.seconds(60));
    expect(warnings(advised)).toHaveLength(0);
    const imported = build(
      (stack) => Queue.fromQueueArn(stack, 'Imported', 'arn:aws:sqs:eu-west-1:123456789012:billing') as Queue,
      Duration.seconds(60),
    );
    expect(warnings(imported)).toHaveLength(0);
  });

  it("takes an existing function without a timeout of its own at Lambda's 3 s", () => {
    const stack = new Stack(appWithoutBundling(), 'Untimed');
    const consumer = new LambdaFunction(stack, 'Consumer', {
      code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
    });
    const queue = new Queue(stack, 'Own', { visibilityTimeout: Duration.seconds(10) });
    expect(() => new OutboxSubscriber(stack, 'Billing', { topic: new Topic(stack, 'Topic'), queue, consumer })).not.toThrow();
    expect(JSON.stringify(warnings(stack)[0]?.entry.data)).toContain('is 10 s, below the 18 s AWS advises');
  });

  it('checks nothing when no consumer reads the queue', () => {
    const stack = new Stack(appWithoutBundling(), 'NoConsumer');
    expect(
      () => new OutboxSubscriber(stack, 'Billing', { topic: new Topic(stack, 'Topic'), queue: new Queue(stack, 'Own') }),
    ).not.toThrow();
    expect(warnings(stack)).toHaveLength(0);
  });
});
