import { describe, expect, it } from 'vitest';
import { isFifoTopicArn, snsTopicArnProblem, snsTopicName } from '../../shared/aws/sns-topic-arn.js';

const fifoArn = 'arn:aws:sns:eu-west-1:123456789012:orders.fifo';
const standardArn = 'arn:aws-cn:sns:cn-north-1:123456789012:payments';

describe('an SNS topic ARN: its name and its kind', () => {
  it('reads the topic name from the ARN’s last part', () => {
    expect(snsTopicName(fifoArn)).toBe('orders.fifo');
    expect(snsTopicName(standardArn)).toBe('payments');
  });

  it.each([
    ['not a string', 42],
    ['a name alone', 'orders.fifo'],
    ['an SQS queue ARN', 'arn:aws:sqs:eu-west-1:123456789012:orders.fifo'],
    ['a subscription ARN', `${fifoArn}:0f6b5c2e-7d0e-4d5a-9d3e-1f2a3b4c5d6e`],
    ['an account of other than 12 digits', 'arn:aws:sns:eu-west-1:123:orders.fifo'],
  ])('has no topic name in %s', (_, arn) => {
    expect(snsTopicName(arn)).toBeUndefined();
    expect(snsTopicArnProblem(arn)).toMatch(/^an SNS topic ARN \(arn:<partition>:sns:/);
  });

  it.each([
    [fifoArn, true],
    [standardArn, false],
    // ".fifo" elsewhere than at the end of the name makes no FIFO topic.
    ['arn:aws:sns:eu-west-1:123456789012:orders-fifo', false],
    // A value that is no topic ARN is no FIFO topic's, whatever it ends in.
    ['orders.fifo', false],
    ['arn:aws:sqs:eu-west-1:123456789012:orders.fifo', false],
  ])('isFifoTopicArn(%s) is %s, as snsTopicArnProblem tells the kind', (arn, fifo) => {
    expect(isFifoTopicArn(arn)).toBe(fifo);
    if (snsTopicName(arn) !== undefined) {
      expect(snsTopicArnProblem(arn, fifo)).toBeUndefined();
      expect(snsTopicArnProblem(arn, !fifo)).toMatch(fifo ? /standard topic/ : /FIFO topic/);
    }
  });
});
