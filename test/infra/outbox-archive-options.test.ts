import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { OutboxArchive } from '../../infra/outbox-archive.js';
import { defineConfig } from '../../shared/config.js';
import { archiveInput, buildArchiveOutbox, propertiesOf } from '../helpers/archive-outbox.js';
import {
  actionsOf,
  appWithoutBundling,
  CONSUMER_ENTRY,
  expectPropsError,
  logicalId,
  resource,
  roleStatements,
  unacknowledgedFindings,
} from '../helpers/cdk.js';

const config = defineConfig(archiveInput);

describe('Outbox with config.archive and options', () => {
  it('encrypts bucket and queues with the outbox key and grants the archiver and the operator only what that key needs', () => {
    const { stack, outbox } = buildArchiveOutbox({ withKey: true });
    outbox.grantReplay(new Role(stack, 'Operator', { assumedBy: new ServicePrincipal('ec2.amazonaws.com') }));
    const template = Template.fromStack(stack);
    const key = { 'Fn::GetAtt': [logicalId(template, 'AWS::KMS::Key', 'Key'), 'Arn'] };
    expect(propertiesOf(template, 'AWS::S3::Bucket', 'OutboxArchiveBucket')).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: key } },
        ],
      },
    });
    for (const queue of ['OutboxArchiveQueue', 'OutboxArchiveDeadLetterQueue', 'OutboxArchiveFifoDeadLetterQueue']) {
      expect(propertiesOf(template, 'AWS::SQS::Queue', queue).KmsMasterKeyId).toEqual(key);
    }
    const onKey = (roleId: string) =>
      roleStatements(template, roleId)
        .filter((s) => JSON.stringify(s.Resource) === JSON.stringify(key))
        .flatMap(actionsOf);
    expect(onKey(logicalId(template, 'AWS::IAM::Role', 'OutboxArchiveArchiverRole')).sort()).toEqual([
      'kms:Decrypt',
      'kms:GenerateDataKey',
    ]);
    expect(onKey(logicalId(template, 'AWS::IAM::Role', 'Operator'))).toEqual(['kms:Decrypt']);
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });

  it('takes batching, concurrency, timeout, queue age threshold and removal policy from the Outbox props', () => {
    const { stack } = buildArchiveOutbox({
      removalPolicy: RemovalPolicy.DESTROY,
      archive: {
        batchSize: 500,
        maxBatchingWindow: Duration.seconds(120),
        maxConcurrency: 10,
        timeout: Duration.seconds(30),
        queueAgeThreshold: Duration.hours(1),
      },
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 500,
      MaximumBatchingWindowInSeconds: 120,
      ScalingConfig: { MaximumConcurrency: 10 },
    });
    expect(propertiesOf(template, 'AWS::SQS::Queue', 'OutboxArchiveQueue').VisibilityTimeout).toBe(6 * 30 + 120);
    expect(propertiesOf(template, 'AWS::CloudWatch::Alarm', 'OutboxAlarmsArchiveQueueAge').Threshold).toBe(3600);
    const bucket = resource(template, 'AWS::S3::Bucket', logicalId(template, 'AWS::S3::Bucket', 'OutboxArchiveBucket'));
    expect(bucket.DeletionPolicy).toBe('Delete');
  });

  it('needs no FIFO DLQ when every topic is standard', () => {
    const { stack } = buildArchiveOutbox({}, { ...archiveInput, topics: [{ name: 'payments' }], routes: { payment: 'payments' } });
    const queues = Object.keys(Template.fromStack(stack).findResources('AWS::SQS::Queue'));
    expect(queues.filter((id) => id.startsWith('OutboxArchive'))).toHaveLength(2);
    expect(queues.some((id) => id.startsWith('OutboxArchiveFifo'))).toBe(false);
  });

  it('rejects archive settings AWS would refuse, naming the prop and what is allowed', () => {
    expectPropsError(() => buildArchiveOutbox({ archive: { batchSize: 5 } }), 'batchSize', 'is 5', 'from 10 to 10000');
    expectPropsError(
      () => buildArchiveOutbox({ archive: { maxBatchingWindow: Duration.minutes(6) } }),
      'maxBatchingWindow',
      'from 1 to 300',
    );
    expectPropsError(() => buildArchiveOutbox({ archive: { maxConcurrency: 1 } }), 'maxConcurrency', 'from 2 to 1000');
    expectPropsError(() => buildArchiveOutbox({ archive: { timeout: Duration.minutes(16) } }), 'timeout', 'from 1 to 900');
  });
});

describe('Outbox without config.archive', () => {
  it('creates no archive bucket, queue, function or alarm, and refuses grantReplay', () => {
    const { archive: _archive, ...withoutArchive } = archiveInput;
    const { stack, outbox } = buildArchiveOutbox({}, withoutArchive);
    const template = Template.fromStack(stack);
    const archiveIds = (type: string) => Object.keys(template.findResources(type)).filter((id) => /Archiv/.test(id));
    for (const type of [
      'AWS::S3::Bucket',
      'AWS::SQS::Queue',
      'AWS::Lambda::Function',
      'AWS::CloudWatch::Alarm',
      'AWS::SNS::Subscription',
    ]) {
      expect(archiveIds(type)).toEqual([]);
    }
    expect(outbox.archive).toBeUndefined();
    expect(outbox.archiveBucket).toBeUndefined();
    expectPropsError(
      () => outbox.grantReplay(new Role(stack, 'Operator', { assumedBy: new ServicePrincipal('ec2.amazonaws.com') })),
      'config',
      'no archive',
    );
  });
});

describe('OutboxArchive on its own', () => {
  it('rejects a config without archive, and topics that miss one of the config', () => {
    const stack = new Stack(appWithoutBundling(), 'Alone');
    const topics = new Map([['payments', new Topic(stack, 'Payments')]]);
    const { archive: _archive, ...withoutArchive } = archiveInput;
    expectPropsError(
      () => new OutboxArchive(stack, 'NoArchive', { config: defineConfig(withoutArchive), topics }),
      'config',
      'no archive setting',
    );
    expectPropsError(() => new OutboxArchive(stack, 'Missing', { config, topics }), 'topics', 'orders.fifo, audit', 'every topic');
  });
});

describe('the example app', () => {
  it('outputs the archive bucket’s name for replay', () => {
    const stack = new OutboxStack(appWithoutBundling(), 'ExampleArchive', { config, consumerEntry: CONSUMER_ENTRY });
    const template = Template.fromStack(stack);
    template.hasOutput('ArchiveBucketName', { Value: { Ref: logicalId(template, 'AWS::S3::Bucket', 'OutboxArchiveBucket') } });
  });
});
