import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { config as exampleConfig } from '../../examples/orders/outbox.config.js';
import { LowLatencyProcessor, type LowLatencyProcessorProps } from '../../infra/low-latency-processor.js';
import { defineConfig } from '../../shared/config.js';
import { buildArchiveOutbox } from '../helpers/archive-outbox.js';
import { appWithoutBundling, CONSUMER_ENTRY, type Statement, unacknowledgedFindings } from '../helpers/cdk.js';

const AUTO_DELETE = 'Custom::S3AutoDeleteObjects';
const PROVIDER = 'CustomS3AutoDeleteObjectsCustomResourceProvider';

/** The logical ids of the buckets each Custom::S3AutoDeleteObjects empties, sorted. */
const emptiedBuckets = (template: Template): string[] =>
  Object.values(template.findResources(AUTO_DELETE))
    .map((r) => (r.Properties.BucketName as { Ref: string }).Ref)
    .sort();

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
