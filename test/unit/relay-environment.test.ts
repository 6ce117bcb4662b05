import { describe, expect, it } from 'vitest';
import { serializeConfig } from '../../shared/config.js';
import { ConfigError, EnvironmentError, Relay, relayEnvironment } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { config, deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

const env = { OUTBOX_CONFIG: serializeConfig(config), OUTBOX_RELAY_DLQ_URL: deadLetterQueueUrl };
const withArns = (arns: Record<string, string>) => ({ ...env, OUTBOX_TOPIC_ARNS: JSON.stringify(arns) });

/** The error `relayEnvironment` throws for `given`, or `undefined` when it reads it. */
function failure(given: NodeJS.ProcessEnv): unknown {
  try {
    relayEnvironment(given);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('relayEnvironment() and OUTBOX_TOPIC_ARNS', () => {
  it.each([
    ['a standard topic’s ARN for a FIFO topic', { ...topicArns, 'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders' }, /FIFO topic/],
    [
      'a FIFO topic’s ARN for a standard topic',
      { ...topicArns, payments: 'arn:aws:sns:us-east-1:000000000000:payments.fifo' },
      /standard topic/,
    ],
    ['an ARN that is not an SNS topic’s', { ...topicArns, payments: 'arn:aws:sqs:us-east-1:000000000000:payments' }, /an SNS topic ARN/],
    ['an account that is not 12 digits', { ...topicArns, payments: 'arn:aws:sns:us-east-1:123:payments' }, /an SNS topic ARN/],
  ])('fails at start-up with an EnvironmentError naming the variable and the topic for %s', (_, arns, allowed) => {
    const error = failure(withArns(arns));
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error).toMatchObject({ variable: 'OUTBOX_TOPIC_ARNS' });
    const message = (error as Error).message;
    const [topic, arn] = Object.entries(arns).find(([name, value]) => value !== topicArns[name as keyof typeof topicArns])!;
    expect(message).toContain(`"${topic}"`);
    expect(message).toContain(JSON.stringify(arn));
    expect(message).toMatch(allowed);
  });

  it('reads ARNs of the topics’ kinds, in any partition', () => {
    const china = {
      'orders.fifo': 'arn:aws-cn:sns:cn-north-1:123456789012:orders.fifo',
      payments: 'arn:aws-cn:sns:cn-north-1:123456789012:payments',
    };
    expect(relayEnvironment(withArns(topicArns)).topicArns).toEqual(topicArns);
    expect(relayEnvironment(withArns(china)).topicArns).toEqual(china);
  });
});

describe('the relay DLQ URL', () => {
  const fifoUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/relay-dlq.fifo';

  it('refuses a FIFO queue, which would refuse every dead letter, when the relay is built', () => {
    let error: unknown;
    try {
      new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns, deadLetterQueueUrl: fifoUrl });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ field: 'deadLetterQueueUrl' });
    expect((error as Error).message).toContain(JSON.stringify(fifoUrl));
    expect((error as Error).message).toMatch(/allowed: the URL of a standard queue/);
  });

  it('refuses a FIFO queue in OUTBOX_RELAY_DLQ_URL with an EnvironmentError naming the variable', () => {
    const error = failure({ ...withArns(topicArns), OUTBOX_RELAY_DLQ_URL: fifoUrl });
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error).toMatchObject({ variable: 'OUTBOX_RELAY_DLQ_URL' });
    expect((error as Error).message).toMatch(/allowed: the URL of a standard queue/);
  });

  // One check for both: a URL the deployed relay would refuse at cold start is refused by the relay built by hand too.
  it.each([
    ['no path', 'https://sqs.us-east-1.amazonaws.com'],
    ['no host', 'https:///123456789012/relay-dlq'],
    ['a space', 'https://sqs.us-east-1.amazonaws.com/123456789012/relay dlq'],
    ['not a URL', 'relay-dlq'],
  ])('refuses a URL with %s alike when the relay is built and in OUTBOX_RELAY_DLQ_URL', (_, url) => {
    let error: unknown;
    try {
      new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns, deadLetterQueueUrl: url });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ field: 'deadLetterQueueUrl' });
    expect((error as Error).message).toContain(JSON.stringify(url));
    expect((error as Error).message).toMatch(/allowed: an SQS queue URL \(https:\/\/sqs\.<region>\.amazonaws\.com\/<account>\/<queue>\)/);
    const fromEnv = failure({ ...withArns(topicArns), OUTBOX_RELAY_DLQ_URL: url });
    expect(fromEnv).toBeInstanceOf(EnvironmentError);
    expect(fromEnv).toMatchObject({ variable: 'OUTBOX_RELAY_DLQ_URL' });
    expect((fromEnv as Error).message).toMatch(/allowed: an SQS queue URL/);
  });

  it('refuses a URL that is not a string when the relay is built', () => {
    const build = () =>
      new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns, deadLetterQueueUrl: 42 as unknown as string });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/deadLetterQueueUrl: got 42; allowed: an SQS queue URL/);
  });

  it('takes a standard queue, whatever its name holds besides a .fifo ending', async () => {
    const url = 'https://sqs.us-east-1.amazonaws.com/123456789012/relay-dlq-fifo';
    const sqs = new FakeSqs();
    const relay = new Relay({ config, sns: new FakeSns(), sqs, topicArns, deadLetterQueueUrl: url });
    expect(relayEnvironment({ ...withArns(topicArns), OUTBOX_RELAY_DLQ_URL: url }).deadLetterQueueUrl).toBe(url);
    // An unrouted aggregate type's event is dead-lettered there.
    const result = await relay.relay([slotRecord({ type: 'shipment', id: 's-1' })]);
    expect(result.deadLettered).toBe(1);
    expect(sqs.bodies).toHaveLength(1);
  });
});
