import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
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

  it('says what an SNS topic ARN looks like for a value that is no ARN at all, as for one of another service', () => {
    const refusal = (arn: unknown) => () => relayWithArns({ payments: arn as string });
    expect(refusal('payments')).toThrow(
      /topicArns\.payments: got "payments"; allowed: an SNS topic ARN \(arn:<partition>:sns:<region>:<12-digit account>:<topic name>\)$/,
    );
    expect(refusal(42)).toThrow(/topicArns\.payments: got 42; allowed: an SNS topic ARN \(arn:<partition>:sns:/);
  });

  it('names the topic that has no ARN', () => {
    const { payments: _, ...withoutPayments } = topicArns;
    const build = () => new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns: withoutPayments, deadLetterQueueUrl });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/topicArns\.payments: got undefined; allowed: the ARN of topic "payments" \(every configured topic needs one\)/);
  });
});

// Two config topics given one ARN: the events routed to either go to that one topic, and the
// other topic's subscribers get nothing, with no error anywhere.
describe('relay set-up: one ARN for two topics', () => {
  const twoStandard = defineConfig({
    source: 'urn:test:unit',
    topics: [{ name: 'payments' }, { name: 'refunds' }],
    routes: { payment: 'payments', refund: 'refunds' },
  });
  const shared = 'arn:aws:sns:us-east-1:000000000000:payments';

  it('refuses it with a ConfigError naming both topics and the ARN', () => {
    const build = () =>
      new Relay({
        config: twoStandard,
        sns: new FakeSns(),
        sqs: new FakeSqs(),
        topicArns: { payments: shared, refunds: shared },
        deadLetterQueueUrl,
      });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(
      `Invalid outbox config at topicArns.refunds: got ${JSON.stringify(shared)}, the ARN given for topic "payments" too; allowed: a topic ARN of its own for each configured topic (the events routed to "refunds" would go to the topic of "payments")`,
    );
  });

  it('takes the same topic name in two accounts or regions as two topics', () => {
    expect(
      () =>
        new Relay({
          config: twoStandard,
          sns: new FakeSns(),
          sqs: new FakeSqs(),
          topicArns: { payments: shared, refunds: 'arn:aws:sns:eu-west-1:000000000000:payments' },
          deadLetterQueueUrl,
        }),
    ).not.toThrow();
  });
});
