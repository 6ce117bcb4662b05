import { Duration, Stack } from 'aws-cdk-lib';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { OutboxSubscriber, type OutboxSubscriberProps } from '../../infra/outbox-subscriber.js';
import { appWithoutBundling, expectPropsError } from '../helpers/cdk.js';

/** Builds a subscriber of a new topic, with an existing consumer when `consumer` is true; no synthesis. */
function build(fifo: boolean, props: Partial<OutboxSubscriberProps>, consumer = false) {
  const stack = new Stack(appWithoutBundling(), 'Limits');
  const topic = new Topic(stack, 'Topic', { fifo });
  return new OutboxSubscriber(stack, 'Billing', {
    topic,
    ...(consumer ? { consumer: LambdaFunction.fromFunctionName(stack, 'Consumer', 'consumer') } : {}),
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
    );
  });

  it('keeps accepting a batching window on a standard topic', () => {
    expect(() => build(false, { maxBatchingWindow: Duration.seconds(5) }, true)).not.toThrow();
  });
});
