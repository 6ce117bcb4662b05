import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../infra/outbox.js';
import { ARCHIVE_ENV } from '../../shared/archive/archiver-env.js';
import { ARCHIVER_METRICS } from '../../shared/archive/archiver-metrics.js';
import { defineConfig } from '../../shared/config.js';
import { archiveInput, buildArchiveOutbox, propertiesOf } from '../helpers/archive-outbox.js';
import { actionsOf, logicalId, resource, resourcesOf, roleStatements, type Statement, unacknowledgedFindings } from '../helpers/cdk.js';

const config = defineConfig(archiveInput);

describe('Outbox with config.archive', () => {
  let stack: Stack;
  let outbox: Outbox;
  let template: Template;
  let ids: { bucket: string; queue: string; dlq: string; fifoDlq: string; fn: string; role: string };

  beforeAll(() => {
    ({ stack, outbox } = buildArchiveOutbox());
    outbox.grantReplay(new Role(stack, 'Operator', { assumedBy: new ServicePrincipal('ec2.amazonaws.com') }), new Queue(stack, 'Target'));
    template = Template.fromStack(stack);
    ids = {
      bucket: logicalId(template, 'AWS::S3::Bucket', 'OutboxArchiveBucket'),
      queue: logicalId(template, 'AWS::SQS::Queue', 'OutboxArchiveQueue'),
      dlq: logicalId(template, 'AWS::SQS::Queue', 'OutboxArchiveDeadLetterQueue'),
      fifoDlq: logicalId(template, 'AWS::SQS::Queue', 'OutboxArchiveFifoDeadLetterQueue'),
      fn: logicalId(template, 'AWS::Lambda::Function', 'OutboxArchiveArchiver'),
      role: logicalId(template, 'AWS::IAM::Role', 'OutboxArchiveArchiverRole'),
    };
  }, 120_000);

  it('keeps events in a private, TLS-only, encrypted bucket that expires them after retentionDays and is retained', () => {
    const bucket = resource(template, 'AWS::S3::Bucket', ids.bucket);
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: { Rules: [{ Id: 'ExpireArchivedEvents', ExpirationInDays: 400, Status: 'Enabled' }] },
    });
    expect(bucket.DeletionPolicy).toBe('Retain');
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: ids.bucket },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    expect(outbox.archiveBucket).toBe(outbox.archive?.bucket);
  });

  it('subscribes one standard queue to every topic, standard and FIFO, with raw delivery and a DLQ of the topic’s kind', () => {
    const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription'))
      .map((s) => s.Properties)
      .filter((p) => JSON.stringify(p.Endpoint) === JSON.stringify({ 'Fn::GetAtt': [ids.queue, 'Arn'] }));
    const topicIds = config.topics.map((t) => stack.getLogicalId(outbox.topics.topics.get(t.name)!.node.defaultChild as never));
    expect(subscriptions.map((s) => s.TopicArn).sort()).toEqual(topicIds.map((id) => ({ Ref: id })).sort());
    for (const [i, topic] of config.topics.entries()) {
      const subscription = subscriptions.find((s) => JSON.stringify(s.TopicArn) === JSON.stringify({ Ref: topicIds[i] }))!;
      expect(subscription).toMatchObject({
        Protocol: 'sqs',
        RawMessageDelivery: true,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [topic.fifo ? ids.fifoDlq : ids.dlq, 'Arn'] } },
      });
    }
    expect(propertiesOf(template, 'AWS::SQS::Queue', 'OutboxArchiveQueue').FifoQueue).toBeUndefined();
    expect(propertiesOf(template, 'AWS::SQS::Queue', 'OutboxArchiveFifoDeadLetterQueue').FifoQueue).toBe(true);
  });

  it('lets only the outbox topics send to the archive queue, each named by aws:SourceArn, and only over TLS', () => {
    const policy = Object.values(template.findResources('AWS::SQS::QueuePolicy')).find((p) =>
      (p.Properties.Queues as unknown[]).some((q) => JSON.stringify(q) === JSON.stringify({ Ref: ids.queue })),
    )!;
    const statements = policy.Properties.PolicyDocument.Statement as Statement[];
    const allows = statements.filter((s) => s.Effect === 'Allow');
    const topicArns = config.topics.map((t) => ({ Ref: stack.getLogicalId(outbox.topics.topics.get(t.name)!.node.defaultChild as never) }));
    expect(allows).toHaveLength(topicArns.length);
    for (const allow of allows) {
      expect(allow).toMatchObject({ Action: 'sqs:SendMessage', Principal: { Service: 'sns.amazonaws.com' } });
      expect(topicArns).toContainEqual((allow.Condition as { ArnEquals: { 'aws:SourceArn': unknown } }).ArnEquals['aws:SourceArn']);
    }
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
  });

  it('keeps messages 14 days, encrypted, with a visibility timeout of 6× the archiver’s timeout plus the batching window and a DLQ after 5 receives', () => {
    expect(propertiesOf(template, 'AWS::SQS::Queue', 'OutboxArchiveQueue')).toMatchObject({
      MessageRetentionPeriod: 1_209_600,
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * 60 + 300,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [ids.dlq, 'Arn'] }, maxReceiveCount: 5 },
    });
    for (const dlq of [ids.dlq, ids.fifoDlq]) {
      expect(resource(template, 'AWS::SQS::Queue', dlq).Properties).toMatchObject({
        MessageRetentionPeriod: 1_209_600,
        SqsManagedSseEnabled: true,
      });
    }
  });

  it('runs the prebuilt archiver on large batches gathered for 5 minutes, at most two at once, reporting failed items', () => {
    expect(resource(template, 'AWS::Lambda::Function', ids.fn).Properties).toMatchObject({
      Handler: 'index.handler',
      Timeout: 60,
      MemorySize: 512,
      TracingConfig: { Mode: 'Active' },
      Environment: { Variables: { [ARCHIVE_ENV.bucket]: { Ref: ids.bucket }, POWERTOOLS_SERVICE_NAME: ARCHIVER_METRICS.service } },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.fn },
      EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      BatchSize: 10_000,
      MaximumBatchingWindowInSeconds: 300,
      ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('gives the archiver only its logs, traces, the archive queue and s3:PutObject under events/v1/ and malformed/v1/', () => {
    const statements = roleStatements(template, ids.role);
    const s3 = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    const objects = (prefix: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [ids.bucket, 'Arn'] }, `/${prefix}*`]] });
    expect(s3).toEqual([{ Action: 's3:PutObject', Effect: 'Allow', Resource: [objects('events/v1/'), objects('malformed/v1/')] }]);
    const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap(resourcesOf)).toEqual([{ 'Fn::GetAtt': [ids.queue, 'Arn'] }]);
    expect(sqs.flatMap(actionsOf)).not.toContain('sqs:SendMessage');
    const services = new Set(statements.flatMap(actionsOf).map((a) => a.split(':')[0]));
    expect([...services].sort()).toEqual(['logs', 's3', 'sqs', 'xray']);
  });

  it('grants replay: list under events/v1/ only, read the archive’s objects, send to the target queue', () => {
    const operator = logicalId(template, 'AWS::IAM::Role', 'Operator');
    const statements = roleStatements(template, operator);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: 's3:ListBucket',
        Resource: { 'Fn::GetAtt': [ids.bucket, 'Arn'] },
        Condition: { StringLike: { 's3:prefix': ['events/v1/*'] } },
      }),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [ids.bucket, 'Arn'] }, '/events/v1/*']] },
      }),
    );
    const target = logicalId(template, 'AWS::SQS::Queue', 'Target');
    const send = statements.find((s) => actionsOf(s).includes('sqs:SendMessage'))!;
    expect(resourcesOf(send)).toEqual([{ 'Fn::GetAtt': [target, 'Arn'] }]);
    expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('s3:'))).toEqual(['s3:ListBucket', 's3:GetObject']);
  });

  it('alarms on archiver errors, failed object writes, malformed records, either DLQ and the archive queue’s age, notifying the alarm topic', () => {
    const alarmTopic = { Ref: logicalId(template, 'AWS::SNS::Topic', 'OutboxAlarmsAlarmTopic') };
    const alarm = (prefix: string) => propertiesOf(template, 'AWS::CloudWatch::Alarm', prefix);
    for (const id of [
      'ArchiverErrors',
      'ArchiveFailedWrites',
      'ArchiveMalformedRecords',
      'ArchiveDeadLetterQueueMessages',
      'ArchiveFifoDeadLetterQueueMessages',
      'ArchiveQueueAge',
    ]) {
      expect(alarm(`OutboxAlarms${id}`)).toMatchObject({ AlarmActions: [alarmTopic], OKActions: [alarmTopic] });
    }
    for (const [id, metricName] of [
      ['ArchiveFailedWrites', ARCHIVER_METRICS.failedWrites],
      ['ArchiveMalformedRecords', ARCHIVER_METRICS.malformedRecords],
    ] as const) {
      expect(alarm(`OutboxAlarms${id}`)).toMatchObject({
        Namespace: ARCHIVER_METRICS.namespace,
        MetricName: metricName,
        Dimensions: expect.arrayContaining([
          { Name: 'service', Value: ARCHIVER_METRICS.service },
          { Name: ARCHIVER_METRICS.functionDimension, Value: { Ref: ids.fn } },
        ]),
        Statistic: 'Sum',
        Threshold: 1,
      });
    }
    expect(alarm('OutboxAlarmsArchiverErrors')).toMatchObject({
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.fn } }],
    });
    expect(alarm('OutboxAlarmsArchiveQueueAge')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
      Threshold: 1800,
      EvaluationPeriods: 3,
    });
    expect(alarm('OutboxAlarmsArchiveFifoDeadLetterQueueMessages')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.fifoDlq, 'QueueName'] } }],
    });
  });

  it('leaves no AwsSolutions or Serverless finding unacknowledged, in the outbox or in the role granted replay', () => {
    expect([...unacknowledgedFindings(outbox), ...unacknowledgedFindings(stack.node.findChild('Operator'))]).toEqual([]);
  });

  it('grants a target queue on a customer-managed key what sending needs of the key, and no more (no finding unacknowledged)', () => {
    const built = buildArchiveOutbox();
    const operator = new Role(built.stack, 'KeyedOperator', { assumedBy: new ServicePrincipal('ec2.amazonaws.com') });
    const key = new Key(built.stack, 'TargetKey', { enableKeyRotation: true });
    built.outbox.grantReplay(
      operator,
      new Queue(built.stack, 'KeyedTarget', { encryption: QueueEncryption.KMS, encryptionMasterKey: key }),
    );
    const keyed = Template.fromStack(built.stack);
    const statements = roleStatements(keyed, logicalId(keyed, 'AWS::IAM::Role', 'KeyedOperator'));
    const keyArn = { 'Fn::GetAtt': [logicalId(keyed, 'AWS::KMS::Key', 'TargetKey'), 'Arn'] };
    const onKey = statements.filter((s) => resourcesOf(s).some((r) => JSON.stringify(r) === JSON.stringify(keyArn)));
    expect(onKey.flatMap(actionsOf).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    const send = statements.find((s) => actionsOf(s).includes('sqs:SendMessage'))!;
    expect(actionsOf(send).sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    expect(resourcesOf(send)).toEqual([{ 'Fn::GetAtt': [logicalId(keyed, 'AWS::SQS::Queue', 'KeyedTarget'), 'Arn'] }]);
    expect(unacknowledgedFindings(operator)).toEqual([]);
  }, 120_000);
});
