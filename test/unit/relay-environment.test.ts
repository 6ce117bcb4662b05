import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineConfig, serializeConfig } from '../../shared/config.js';
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

  it('refuses one ARN for two topics with an EnvironmentError naming both topics and the ARN', () => {
    const twoStandard = defineConfig({
      source: 'urn:test:unit',
      topics: [{ name: 'payments' }, { name: 'refunds' }],
      routes: { payment: 'payments', refund: 'refunds' },
    });
    const shared = 'arn:aws:sns:us-east-1:000000000000:payments';
    const error = failure({
      ...env,
      OUTBOX_CONFIG: serializeConfig(twoStandard),
      OUTBOX_TOPIC_ARNS: JSON.stringify({ payments: shared, refunds: shared }),
    });
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error).toMatchObject({ variable: 'OUTBOX_TOPIC_ARNS' });
    expect((error as Error).message).toBe(
      `Environment variable OUTBOX_TOPIC_ARNS: has ${JSON.stringify(shared)} for topic "refunds", the ARN given for topic "payments" too; allowed: a topic ARN of its own for each configured topic (the events routed to "refunds" would go to the topic of "payments")`,
    );
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
    expect((error as Error).message).toMatch(
      /, which names a FIFO queue \("\.fifo"\), which refuses every dead letter: a dead letter carries no message group; allowed: the URL of a standard SQS queue \(not FIFO\)/,
    );
  });

  it('refuses a FIFO queue in OUTBOX_RELAY_DLQ_URL with an EnvironmentError naming the variable', () => {
    const error = failure({ ...withArns(topicArns), OUTBOX_RELAY_DLQ_URL: fifoUrl });
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error).toMatchObject({ variable: 'OUTBOX_RELAY_DLQ_URL' });
    expect((error as Error).message).toMatch(/which names a FIFO queue .*; allowed: the URL of a standard SQS queue \(not FIFO\)/);
  });

  // One check for both: a URL the deployed relay would refuse at cold start is refused by the relay built by hand too.
  it.each([
    ['no path', 'https://sqs.us-east-1.amazonaws.com', 'names no queue: /<account>/<queue name> is missing after the host'],
    ['no host', 'https:///123456789012/relay-dlq', 'is not an http:// or https:// URL with a host'],
    ['a space', 'https://sqs.us-east-1.amazonaws.com/123456789012/relay dlq', 'has the queue name "relay dlq" (9 characters)'],
    ['not a URL', 'relay-dlq', 'is not an http:// or https:// URL with a host'],
    // Taken before: only an http(s) URL with some path was asked for.
    [
      'no account',
      'https://sqs.us-east-1.amazonaws.com/relay-dlq',
      'has "/relay-dlq" after its host, where /<account>/<queue name> belongs',
    ],
    ['an account of other than 12 digits', 'http://localhost:4566/0/relay-dlq', 'has the account "0", not 12 digits'],
    [
      'more path',
      'https://sqs.us-east-1.amazonaws.com/123456789012/relay-dlq/x',
      'has "/123456789012/relay-dlq/x" after its host, where /<account>/<queue name> belongs',
    ],
    [
      'a query',
      'https://sqs.us-east-1.amazonaws.com/123456789012/relay-dlq?x=1',
      'has "/123456789012/relay-dlq?x=1" after its host, where /<account>/<queue name> belongs',
    ],
    ['plain http to AWS', 'http://sqs.us-east-1.amazonaws.com/123456789012/relay-dlq', 'sends to AWS over plain http, in clear'],
  ])('refuses a URL with %s alike when the relay is built and in OUTBOX_RELAY_DLQ_URL', (_, url, fault) => {
    let error: unknown;
    try {
      new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns, deadLetterQueueUrl: url });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ field: 'deadLetterQueueUrl' });
    expect((error as Error).message).toContain(`got ${JSON.stringify(url)}, which ${fault}`);
    expect((error as Error).message).toMatch(
      /allowed: the URL of a standard SQS queue \(not FIFO\), https:\/\/sqs\.<region>\.amazonaws\.com\/<12-digit account>\/<queue name> \(http:\/\/<host>:<port>\/<account>\/<queue name> for a local endpoint\)$/,
    );
    const fromEnv = failure({ ...withArns(topicArns), OUTBOX_RELAY_DLQ_URL: url });
    expect(fromEnv).toBeInstanceOf(EnvironmentError);
    expect(fromEnv).toMatchObject({ variable: 'OUTBOX_RELAY_DLQ_URL' });
    expect((fromEnv as Error).message).toContain(`got ${JSON.stringify(url)}, which ${fault}`);
    // One wording of what is allowed, whichever refuses it.
    const allowed = (message: string) => message.slice(message.indexOf('; allowed: '));
    expect(allowed((fromEnv as Error).message)).toBe(allowed((error as Error).message));
  });

  it('refuses a URL that is not a string when the relay is built', () => {
    const build = () =>
      new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns, deadLetterQueueUrl: 42 as unknown as string });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/deadLetterQueueUrl: got 42, which is not a string; allowed: the URL of a standard SQS queue/);
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

  it("takes a local endpoint's queue URL, over http", () => {
    const url = 'http://127.0.0.1:4566/000000000000/relay-dlq';
    expect(() => new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns, deadLetterQueueUrl: url })).not.toThrow();
    expect(relayEnvironment({ ...withArns(topicArns), OUTBOX_RELAY_DLQ_URL: url }).deadLetterQueueUrl).toBe(url);
  });
});

describe('a relay environment misconfigured at deployment', () => {
  const arnsText = JSON.stringify(topicArns);
  const complete = { ...withArns(topicArns) };
  const without = (variable: string): NodeJS.ProcessEnv =>
    Object.fromEntries(Object.entries(complete).filter(([name]) => name !== variable));
  const topicsAllowed =
    /allowed: a JSON object of topic name → SNS topic ARN, with an entry for each configured topic \("orders\.fifo", "payments"\)/;
  const urlAllowed = /allowed: the URL of a standard SQS queue \(not FIFO\)/;

  it.each([
    ['OUTBOX_TOPIC_ARNS unset', without('OUTBOX_TOPIC_ARNS'), 'OUTBOX_TOPIC_ARNS', /: is not set; /, topicsAllowed],
    ['OUTBOX_TOPIC_ARNS empty', { ...complete, OUTBOX_TOPIC_ARNS: '' }, 'OUTBOX_TOPIC_ARNS', /is not set \(got ""\)/, topicsAllowed],
    ['OUTBOX_TOPIC_ARNS blank', { ...complete, OUTBOX_TOPIC_ARNS: ' \n' }, 'OUTBOX_TOPIC_ARNS', /is not set \(got " \\n"\)/, topicsAllowed],
    [
      'OUTBOX_TOPIC_ARNS not JSON',
      { ...complete, OUTBOX_TOPIC_ARNS: "{'payments': 'arn'}" },
      'OUTBOX_TOPIC_ARNS',
      /got "\{'payments': 'arn'\}", which is not JSON \(/,
      topicsAllowed,
    ],
    ['OUTBOX_TOPIC_ARNS a list', { ...complete, OUTBOX_TOPIC_ARNS: `[${arnsText}]` }, 'OUTBOX_TOPIC_ARNS', /got "\[\{/, topicsAllowed],
    [
      'OUTBOX_TOPIC_ARNS missing a topic',
      withArns({ 'orders.fifo': topicArns['orders.fifo'], paymentz: topicArns.payments }),
      'OUTBOX_TOPIC_ARNS',
      /has no entry for topic "payments" \(got entries for "orders\.fifo", "paymentz" only\)/,
      topicsAllowed,
    ],
    [
      'OUTBOX_TOPIC_ARNS an empty object',
      withArns({}),
      'OUTBOX_TOPIC_ARNS',
      /no entry for topic "orders\.fifo" \(got an empty object\)/,
      topicsAllowed,
    ],
    [
      'OUTBOX_TOPIC_ARNS with an empty ARN',
      withArns({ ...topicArns, payments: '' }),
      'OUTBOX_TOPIC_ARNS',
      /has "" for topic "payments"/,
      /allowed: an SNS topic ARN/,
    ],
    ['OUTBOX_RELAY_DLQ_URL unset', without('OUTBOX_RELAY_DLQ_URL'), 'OUTBOX_RELAY_DLQ_URL', /: is not set; /, urlAllowed],
    ['OUTBOX_RELAY_DLQ_URL empty', { ...complete, OUTBOX_RELAY_DLQ_URL: '' }, 'OUTBOX_RELAY_DLQ_URL', /is not set \(got ""\)/, urlAllowed],
    [
      'OUTBOX_RELAY_DLQ_URL a queue ARN',
      { ...complete, OUTBOX_RELAY_DLQ_URL: 'arn:aws:sqs:us-east-1:123456789012:relay-dlq' },
      'OUTBOX_RELAY_DLQ_URL',
      /got "arn:aws:sqs:us-east-1:123456789012:relay-dlq", which is not an http:\/\/ or https:\/\/ URL with a host/,
      urlAllowed,
    ],
  ])('%s: an EnvironmentError naming the variable, what it held and what it may hold', (_, env, variable, given, allowed) => {
    const error = failure(env);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error).toMatchObject({ variable, code: 'INVALID_ENVIRONMENT' });
    const message = (error as Error).message;
    expect(message).toContain(`Environment variable ${variable}: `);
    expect(message).toMatch(given);
    expect(message).toMatch(allowed);
  });

  it('shows at most 200 characters of a malformed value', () => {
    const long = `{${'x'.repeat(5_000)}`;
    const message = (failure({ ...complete, OUTBOX_TOPIC_ARNS: long }) as Error).message;
    expect(message).toContain(`got "{${'x'.repeat(199)}…", which is not JSON`);
    expect(message.length).toBeLessThan(600);
  });
});

describe('the deployed relay entry at cold start', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('refuses an unset AWS_LAMBDA_FUNCTION_NAME, naming it and what it holds, before any invocation', async () => {
    for (const [name, value] of Object.entries(withArns(topicArns))) vi.stubEnv(name, value);
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', '');
    const error = await import('../../functions/relay/handler.js').then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toBe(
      'Environment variable AWS_LAMBDA_FUNCTION_NAME: is not set (got ""); allowed: the function\'s name, which Lambda sets in every function\'s environment',
    );
  });
});
