import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { defineConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { compileFilters } from '../../shared/local/event-source/filter-pattern.js';
import {
  actionsOf,
  appWithoutBundling,
  CONSUMER_ENTRY,
  logicalId,
  resource,
  resourcesOf,
  roleStatements,
  type Statement,
  unacknowledgedFindings,
} from '../helpers/cdk.js';

// A config unlike the repository's: a low-latency type, tuned relay, a standard first topic.
const config = defineConfig({
  source: 'urn:test:variants',
  topics: [{ name: 'audit' }, { name: 'accounts.fifo', fifo: true }],
  routes: { ledger: 'audit', account: 'accounts.fifo', session: 'audit' },
  lowLatencyAggregateTypes: ['account', 'session'],
  relay: {
    batchSize: 250,
    maxBatchingWindowSeconds: 2,
    parallelizationFactor: 4,
    bisectBatchOnError: false,
    maxRetryAttempts: 3,
    maxRecordAgeSeconds: 3600,
  },
});

let stack: OutboxStack;
let template: Template;
let keyArn: unknown;

beforeAll(() => {
  stack = new OutboxStack(appWithoutBundling(), 'Variant', {
    config,
    env: { account: '123456789012', region: 'eu-west-1' },
    customerManagedKey: true,
    consumerEntry: CONSUMER_ENTRY,
  });
  template = Template.fromStack(stack);
  keyArn = { 'Fn::GetAtt': [logicalId(template, 'AWS::KMS::Key', 'OutboxKey'), 'Arn'] };
});

/** Asserts the global table whose logical id starts with `prefix` is encrypted with the stack's key. */
function expectTableEncryptedWithKey(prefix: string): void {
  const table = resource(template, 'AWS::DynamoDB::GlobalTable', logicalId(template, 'AWS::DynamoDB::GlobalTable', prefix)).Properties;
  expect(table.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
  expect(table.Replicas).toEqual([expect.objectContaining({ SSESpecification: { KMSMasterKeyId: keyArn } })]);
}

/** The KMS actions the role whose logical id starts with `prefix` is allowed, after checking they are on the stack's key only. */
function kmsActionsOnKeyOnly(prefix: string): Set<string> {
  const kms = roleStatements(template, logicalId(template, 'AWS::IAM::Role', prefix)).filter((s) =>
    actionsOf(s).some((a) => a.startsWith('kms:')),
  );
  expect(kms.flatMap(resourcesOf).every((r) => JSON.stringify(r) === JSON.stringify(keyArn))).toBe(true);
  return new Set(kms.flatMap(actionsOf));
}

describe('OutboxStack with a customer-managed key', { timeout: 120_000 }, () => {
  it('encrypts the table, every outbox topic, every queue and the bucket with that key', () => {
    expectTableEncryptedWithKey('OutboxTable');
    for (const topic of stack.outbox.topics.topics.values()) {
      expect(resource(template, 'AWS::SNS::Topic', stack.getLogicalId(topic.node.defaultChild as never)).Properties.KmsMasterKeyId).toEqual(
        keyArn,
      );
    }
    for (const queue of Object.values(template.findResources('AWS::SQS::Queue'))) expect(queue.Properties.KmsMasterKeyId).toEqual(keyArn);
    const bucket = resource(template, 'AWS::S3::Bucket', logicalId(template, 'AWS::S3::Bucket', 'OutboxRelayFailedBatches')).Properties;
    expect(bucket.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [
        { BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: keyArn } },
      ],
    });
    expect(resource(template, 'AWS::KMS::Key', logicalId(template, 'AWS::KMS::Key', 'OutboxKey')).Properties.EnableKeyRotation).toBe(true);
  });

  it('grants the relay only named KMS actions, and only on that key', () => {
    expect(kmsActionsOnKeyOnly('OutboxRelayRole')).toEqual(new Set(['kms:Decrypt', 'kms:DescribeKey', 'kms:GenerateDataKey']));
  });

  it("encrypts the processor's lease table with that key, and lets the task use the key with named actions only", () => {
    expectTableEncryptedWithKey('OutboxProcessorLeaseTable');
    expect(kmsActionsOnKeyOnly('OutboxProcessorTaskTaskRole')).toEqual(
      new Set(['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']),
    );
  });

  it("lets SNS use the key to deliver to the encrypted queues, only for topics of the stack's account and region", () => {
    const policy = resource(template, 'AWS::KMS::Key', logicalId(template, 'AWS::KMS::Key', 'OutboxKey')).Properties.KeyPolicy as {
      Statement: Statement[];
    };
    const sns = policy.Statement.filter((s) => JSON.stringify(s.Principal).includes('sns.amazonaws.com'));
    expect(sns.filter((s) => s.Effect === 'Allow').length).toBeGreaterThan(0);
    // Each subscription's Allow has no condition; one Deny confines them to this account's topics here.
    expect(sns.filter((s) => s.Effect === 'Deny')).toEqual([
      expect.objectContaining({
        Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
        Resource: '*',
        Condition: {
          Null: { 'aws:SourceArn': 'false' },
          ArnNotLike: { 'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:eu-west-1:123456789012:*']] } },
        },
      }),
    ]);
    for (const statement of sns.filter((s) => s.Effect === 'Allow')) {
      expect(actionsOf(statement).every((a) => ['kms:Decrypt', 'kms:GenerateDataKey'].includes(a))).toBe(true);
    }
  });

  it('leaves no cdk-nag finding unacknowledged', () => {
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });
});

describe('OutboxStack relay mapping from another config', () => {
  const mapping = () =>
    Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).find((m) => m.Properties.StartingPosition === 'TRIM_HORIZON')!
      .Properties;

  it('deploys the filter of this config, leaving the low-latency types to the processor', () => {
    const deployed = (mapping().FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((f) => f.Pattern);
    const expected = relayEventSourceSettings(config).filterPatterns.map((p) => JSON.stringify(p));
    expect(deployed).toEqual(expected);
    expect(JSON.parse(deployed[0]!).dynamodb.NewImage.aggregateType).toEqual({ S: [{ 'anything-but': ['account', 'session'] }] });
  });

  it("passes, under the local runner's matcher, only the records the relay must publish", () => {
    const deployed = (mapping().FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map(
      (f) => JSON.parse(f.Pattern) as Record<string, unknown>,
    );
    const record = (eventName: string, image: Record<string, unknown>) => ({
      eventName,
      dynamodb: { NewImage: Object.fromEntries(Object.entries(image).map(([k, v]) => [k, { S: v }])) },
    });
    const slot = (type: string) => ({ pk: `OUTBOX#${type}#1`, sk: 'OUTBOX', kind: 'outbox-slot', aggregateType: type });
    const passes = compileFilters(deployed);
    expect(passes(record('INSERT', slot('ledger')))).toBe(true);
    expect(passes(record('MODIFY', slot('ledger')))).toBe(true);
    expect(passes(record('REMOVE', slot('ledger')))).toBe(false);
    expect(passes(record('INSERT', slot('account')))).toBe(false);
    expect(passes(record('MODIFY', { pk: 'ORDER#1', sk: 'ORDER', kind: 'order' }))).toBe(false);
  });

  it('applies the tuning of this config', () => {
    expect(mapping()).toMatchObject({
      BatchSize: 250,
      MaximumBatchingWindowInSeconds: 2,
      ParallelizationFactor: 4,
      BisectBatchOnFunctionError: false,
      MaximumRetryAttempts: 3,
      MaximumRecordAgeInSeconds: 3600,
    });
  });

  it('subscribes the example consumer to every topic, standard queue on the standard topic, FIFO on the FIFO one', () => {
    for (const topic of config.topics) {
      const subscriber = [...stack.outbox.subscribers.values()].find((sub) => sub.topic === stack.outbox.topics.topics.get(topic.name))!;
      const queue = resource(template, 'AWS::SQS::Queue', stack.getLogicalId(subscriber.queue.node.defaultChild as never)).Properties;
      expect(Boolean(queue.FifoQueue), topic.name).toBe(topic.fifo);
    }
  });
});
