import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/errors.js';
import { Relay } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { config, deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';

/** A relay over the fixtures' config (`orders.fifo` FIFO, `payments` standard) with these ARNs. */
const relayWithArns = (arns: Record<string, string>) =>
  new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns: { ...topicArns, ...arns }, deadLetterQueueUrl });

// SNS refuses every message of a FIFO topic sent without a message group, and every message of a
// standard topic sent with one (InvalidParameter, the sender's fault): the relay would take each
// event for a message at fault and dead-letter the whole stream, instead of failing at cold start.
describe('relay set-up: topic ARNs', () => {
  it('rejects a FIFO topic given a standard topic’s ARN, and a standard topic given a FIFO topic’s, naming the topic', () => {
    const standardArn = () => relayWithArns({ 'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders' });
    expect(standardArn).toThrow(ConfigError);
    expect(standardArn).toThrow(
      /topicArns\.orders\.fifo: got "arn:aws:sns:us-east-1:000000000000:orders"; allowed: .*FIFO topic.*"\.fifo"/,
    );
    const fifoArn = () => relayWithArns({ payments: 'arn:aws:sns:us-east-1:000000000000:payments.fifo' });
    expect(fifoArn).toThrow(/topicArns\.payments: got "arn:aws:sns:us-east-1:000000000000:payments\.fifo"; allowed: .*standard topic/);
  });

  it('rejects an ARN that is not an SNS topic’s, naming the topic', () => {
    expect(() => relayWithArns({ payments: 'arn:aws:sqs:us-east-1:000000000000:payments' })).toThrow(
      /topicArns\.payments: got "arn:aws:sqs:us-east-1:000000000000:payments"; allowed: an SNS topic ARN/,
    );
    expect(() => relayWithArns({ payments: 'arn:aws:sns:us-east-1:payments' })).toThrow(/topicArns\.payments/);
  });

  it('accepts each topic’s ARN in any partition and region', () => {
    expect(() =>
      relayWithArns({
        'orders.fifo': 'arn:aws-cn:sns:cn-north-1:123456789012:Orders-Topic_1.fifo',
        payments: 'arn:aws-us-gov:sns:us-gov-west-1:123456789012:payments',
      }),
    ).not.toThrow();
  });
});
