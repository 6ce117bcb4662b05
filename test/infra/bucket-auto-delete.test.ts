import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { config as exampleConfig } from '../../examples/orders/outbox.config.js';
import { LowLatencyProcessor, type LowLatencyProcessorProps } from '../../infra/low-latency-processor.js';
import { Outbox } from '../../infra/outbox.js';
import { defineConfig } from '../../shared/config.js';
import { archiveInput, buildArchiveOutbox } from '../helpers/archive-outbox.js';
import { appWithoutBundling, CONSUMER_ENTRY, logicalId, type Statement, unacknowledgedFindings } from '../helpers/cdk.js';

const AUTO_DELETE = 'Custom::S3AutoDeleteObjects';
const PROVIDER = 'CustomS3AutoDeleteObjectsCustomResourceProvider';

/** The logical ids of the buckets each Custom::S3AutoDeleteObjects empties, sorted. */
const emptiedBuckets = (template: Template): string[] =>
  Object.values(template.findResources(AUTO_DELETE))
    .map((r) => (r.Properties.BucketName as { Ref: string }).Ref)
    .sort();

/**
 * The retention (days) and deletion policy of the log group each Lambda function writes to, by the
 * function's logical id; `undefined` for a function with no log group of the stack, whose logs would
 * go to one Lambda makes on the first call, which never expires and outlives the stack.
 */
function functionLogGroups(template: Template): Record<string, { retention: unknown; deletion: unknown } | undefined> {
  const groups = template.findResources('AWS::Logs::LogGroup');
  return Object.fromEntries(
    Object.entries(template.findResources('AWS::Lambda::Function')).map(([id, fn]) => {
      const ref = (fn.Properties.LoggingConfig?.LogGroup as { Ref?: string } | undefined)?.Ref;
      const group = ref === undefined ? undefined : groups[ref];
      return [id, group && { retention: group.Properties.RetentionInDays, deletion: group.DeletionPolicy }];
    }),
  );
}

const bucketIds = (template: Template): string[] => Object.keys(template.findResources('AWS::S3::Bucket')).sort();

/** A processor alone in a stack with its neighbours; the image comes from a registry so no Docker build runs. */
function standaloneProcessor(props: (stack: Stack) => Partial<LowLatencyProcessorProps>) {
  const config = defineConfig({
    source: 'urn:test:infra',
    topics: [{ name: 'payments' }],
    routes: { payment: 'payments' },
    lowLatencyAggregateTypes: ['payment'],
  });
  const stack = new Stack(new App(), 'Processor', { env: { account: '123456789012', region: 'eu-west-1' } });
  const table = new Table(stack, 'Outbox', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream: StreamViewType.NEW_IMAGE });
  new LowLatencyProcessor(stack, 'Processor', {
    config,
    table,
    topics: new Map([['payments', new Topic(stack, 'Payments')]]),
    deadLetterQueue: new Queue(stack, 'RelayDlq'),
    image: ContainerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim'),
    ...props(stack),
  });
  return { stack, template: Template.fromStack(stack) };
}

describe('buckets the constructs make, with RemovalPolicy.DESTROY', () => {
  it('are each emptied by a Custom::S3AutoDeleteObjects before CloudFormation deletes them, with nothing left unacknowledged', () => {
    const { stack } = buildArchiveOutbox({ removalPolicy: RemovalPolicy.DESTROY, withKey: true });
    const template = Template.fromStack(stack);
    // The failed-batch bucket and the archive's bucket: every bucket of the stack.
    expect(bucketIds(template)).toEqual([
      expect.stringMatching(/^OutboxArchiveBucket/),
      expect.stringMatching(/^OutboxRelayFailedBatches/),
    ]);
    expect(emptiedBuckets(template)).toEqual(bucketIds(template));
    for (const id of bucketIds(template)) expect(template.findResources('AWS::S3::Bucket')[id]!.DeletionPolicy).toBe('Delete');
    // One provider for the stack, allowed by each bucket's policy to list and delete its objects.
    const providerRole = Object.keys(template.findResources('AWS::IAM::Role')).filter((id) => id.startsWith(PROVIDER));
    expect(providerRole).toHaveLength(1);
    for (const policy of Object.values(template.findResources('AWS::S3::BucketPolicy'))) {
      const statements = policy.Properties.PolicyDocument.Statement as Statement[];
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Allow',
          Action: expect.arrayContaining(['s3:DeleteObject*', 's3:List*']),
          Principal: { AWS: { 'Fn::GetAtt': [providerRole[0], 'Arn'] } },
        }),
      );
    }
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });

  it('are emptied in the example stack (which has an archive) built with retainData: false, which cdk-nag passes', () => {
    const stack = new OutboxStack(appWithoutBundling(), 'Disposable', {
      config: exampleConfig,
      consumerEntry: CONSUMER_ENTRY,
      retainData: false,
      customerManagedKey: true,
      env: { region: 'eu-west-1' },
    });
    const template = Template.fromStack(stack);
    expect(bucketIds(template).length).toBeGreaterThan(0);
    expect(emptiedBuckets(template)).toEqual(bucketIds(template));
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });

  it('include the failed-batch bucket a processor built on its own makes, but not a bucket it is given', () => {
    const own = standaloneProcessor(() => ({ removalPolicy: RemovalPolicy.DESTROY })).template;
    expect(bucketIds(own)).toEqual([expect.stringMatching(/^ProcessorFailedBatches/)]);
    expect(emptiedBuckets(own)).toEqual(bucketIds(own));

    const given = standaloneProcessor((stack) => ({
      removalPolicy: RemovalPolicy.DESTROY,
      failedBatchBucket: new Bucket(stack, 'Given', { removalPolicy: RemovalPolicy.RETAIN }),
    })).template;
    given.resourceCountIs(AUTO_DELETE, 0);
  });
});

describe('buckets the constructs make, kept with the stack', () => {
  it.each([
    ['the default (RETAIN)', undefined],
    ['RETAIN_ON_UPDATE_OR_DELETE', RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE],
  ])('under %s are never emptied: no auto-delete resource, provider or tag', (_name, removalPolicy) => {
    const { stack } = buildArchiveOutbox(removalPolicy === undefined ? {} : { removalPolicy });
    const template = Template.fromStack(stack);
    expect(bucketIds(template)).toHaveLength(2);
    for (const id of bucketIds(template)) expect(template.findResources('AWS::S3::Bucket')[id]!.DeletionPolicy).toMatch(/^Retain/);
    template.resourceCountIs(AUTO_DELETE, 0);
    expect(Object.keys(template.toJSON().Resources).filter((id) => id.startsWith(PROVIDER))).toEqual([]);
    expect(JSON.stringify(template.findResources('AWS::S3::Bucket'))).not.toContain('aws-cdk:auto-delete-objects');
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });
});

describe('the auto-delete provider’s logs', () => {
  it('go to a log group of the stack, kept as long as the outbox’s logs and deleted with it, as every function’s of the stack', () => {
    const { stack } = buildArchiveOutbox({ removalPolicy: RemovalPolicy.DESTROY, withKey: true, logRetention: RetentionDays.TWO_WEEKS });
    const template = Template.fromStack(stack);
    const handler = logicalId(template, 'AWS::Lambda::Function', PROVIDER);
    expect(functionLogGroups(template)[handler]).toEqual({ retention: 14, deletion: 'Delete' });
    for (const [id, group] of Object.entries(functionLogGroups(template))) {
      expect({ id, retention: group?.retention }).toEqual({ id, retention: expect.any(Number) });
    }
    // One log group for the stack's one provider, however many buckets it empties.
    expect(Object.keys(template.findResources('AWS::Logs::LogGroup')).filter((id) => id.startsWith(PROVIDER))).toHaveLength(1);
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });

  it('go to that log group (a month by default) also when a bucket of the app’s own made the provider first, and for a processor built on its own', () => {
    const stack = new Stack(appWithoutBundling(), 'Shared', { env: { account: '123456789012', region: 'eu-west-1' } });
    new Bucket(stack, 'Own', { removalPolicy: RemovalPolicy.DESTROY, autoDeleteObjects: true });
    new Outbox(stack, 'Outbox', { config: defineConfig(archiveInput), removalPolicy: RemovalPolicy.DESTROY });
    const shared = Template.fromStack(stack);
    expect(emptiedBuckets(shared)).toHaveLength(3);
    expect(functionLogGroups(shared)[logicalId(shared, 'AWS::Lambda::Function', PROVIDER)]).toEqual({ retention: 30, deletion: 'Delete' });

    // The construct's logRetention, as for its own logs.
    const processor = standaloneProcessor(() => ({ removalPolicy: RemovalPolicy.DESTROY, logRetention: RetentionDays.ONE_WEEK })).template;
    expect(functionLogGroups(processor)).toEqual({
      [logicalId(processor, 'AWS::Lambda::Function', PROVIDER)]: { retention: 7, deletion: 'Delete' },
    });
  });
});
