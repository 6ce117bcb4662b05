import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnTopic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { OutboxTable } from '../../infra/outbox-table.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { environmentSize, queueUrlStandIn, topicArnStandIn } from '../../infra/private/lambda-environment.js';
import { RelayFunction } from '../../infra/relay-function.js';
import { defineConfig, type RelayTuning } from '../../shared/config.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { appWithoutBundling, expectPropsError } from '../helpers/cdk.js';

/** The properties of the relay's event source mapping, synthesised for a config with this relay tuning. */
function relayMapping(relay: Partial<RelayTuning>): Record<string, unknown> {
  const config = defineConfig({ source: 'urn:test:limits', topics: [{ name: 'orders' }], routes: { order: 'orders' }, relay });
  const stack = new Stack(appWithoutBundling(), 'Test');
  const table = new OutboxTable(stack, 'Table').table;
  const topics = new OutboxTopics(stack, 'Topics', { config });
  new RelayFunction(stack, 'Relay', { config, table, topics });
  const mappings = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::EventSourceMapping'));
  expect(mappings).toHaveLength(1);
  return mappings[0]!.Properties as Record<string, unknown>;
}

describe('RelayFunction: retry and record-age limits', () => {
  it('deploys -1 (no limit) for both, as the config allows', () => {
    expect(relayMapping({ maxRetryAttempts: -1, maxRecordAgeSeconds: -1 })).toMatchObject({
      MaximumRetryAttempts: -1,
      MaximumRecordAgeInSeconds: -1,
    });
  });

  it('deploys finite limits as given, next to -1 for the other', () => {
    expect(relayMapping({ maxRetryAttempts: -1, maxRecordAgeSeconds: 3600 })).toMatchObject({
      MaximumRetryAttempts: -1,
      MaximumRecordAgeInSeconds: 3600,
    });
    expect(relayMapping({ maxRetryAttempts: 7, maxRecordAgeSeconds: -1 })).toMatchObject({
      MaximumRetryAttempts: 7,
      MaximumRecordAgeInSeconds: -1,
    });
  });
});

/** A config of `n` FIFO topics, one aggregate type routed to each. */
const fifoTopics = (n: number) => {
  const names = Array.from({ length: n }, (_, i) => `orders-${String(i).padStart(2, '0')}.fifo`);
  return defineConfig({
    source: 'urn:test:env',
    topics: names.map((name) => ({ name, fifo: true })),
    routes: Object.fromEntries(names.map((name, i) => [`order${i}`, name])),
  });
};

const env = { account: '111111111111', region: 'eu-west-1' };

/** Builds (never synthesizes) a relay for `config` in a stack with `env`. */
function buildRelay(config: ReturnType<typeof fifoTopics>, stackEnv?: typeof env) {
  const stack = new Stack(appWithoutBundling(), 'DynamoDbOutbox', { env: stackEnv });
  const table = new OutboxTable(stack, 'Table').table;
  const topics = new OutboxTopics(stack, 'Topics', { config });
  return { topics, relay: new RelayFunction(stack, 'Relay', { config, table, topics }) };
}

describe("RelayFunction: Lambda's 4 KB environment", () => {
  it('rejects a config whose relay environment, topic ARNs included, would exceed 4 KB', () => {
    expectPropsError(
      () => buildRelay(fifoTopics(24), env),
      'config',
      'makes a Lambda environment of up to',
      `${RELAY_ENV.topicArns} `,
      'allowed: at most 4096 bytes',
      '24 topics here), so use fewer topics or shorter topic names',
    );
  });

  it('accepts a config whose relay environment fits, counting the same variables the function gets', () => {
    const { relay } = buildRelay(fifoTopics(12), env);
    expect(Object.keys(relay.outboxFunction.environment)).toEqual(
      expect.arrayContaining([RELAY_ENV.config, RELAY_ENV.topicArns, RELAY_ENV.deadLetterQueueUrl, 'POWERTOOLS_SERVICE_NAME']),
    );
  });

  it('counts ARNs of topics named at synth exactly, and generated names and deploy-time pseudo parameters at their longest', () => {
    const { topics, relay } = buildRelay(fifoTopics(2), env);
    for (const topic of topics.topics.values()) {
      const name = (topic.node.defaultChild as CfnTopic).topicName!;
      expect(topicArnStandIn(topic)).toHaveLength(`arn:aws:sns:eu-west-1:111111111111:${name}`.length);
    }
    const dlqId = Stack.of(relay).resolve((relay.deadLetterQueue.node.defaultChild as CfnElement).logicalId) as string;
    // CloudFormation names it DynamoDbOutbox-<logical id>-<13 random characters>.
    expect(queueUrlStandIn(relay.deadLetterQueue)).toHaveLength(
      `https://sqs.eu-west-1.amazonaws.com/111111111111/DynamoDbOutbox-${dlqId}-ABCDEFGHIJKLM`.length,
    );
    const agnostic = buildRelay(fifoTopics(2));
    const [first] = agnostic.topics.topics.values();
    const name = (first!.node.defaultChild as CfnTopic).topicName!;
    // Without an env, partition and region count as the longest aws-cdk-lib knows (today aws-us-gov, us-isof-south-1).
    expect(topicArnStandIn(first!).length).toBeGreaterThanOrEqual(`arn:aws-us-gov:sns:us-isof-south-1:111111111111:${name}`.length);
    expect(
      environmentSize(
        { A: 'bc', [RELAY_ENV.deadLetterQueueUrl]: agnostic.relay.deadLetterQueue.queueUrl },
        { [RELAY_ENV.deadLetterQueueUrl]: 'x' },
      ),
    ).toEqual({
      total: 3 + RELAY_ENV.deadLetterQueueUrl.length + 1,
      byName: { A: 3, [RELAY_ENV.deadLetterQueueUrl]: RELAY_ENV.deadLetterQueueUrl.length + 1 },
    });
  });
});
