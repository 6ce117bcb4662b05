import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { Outbox, type OutboxProps } from '../../infra/outbox.js';
import { OutboxArchive } from '../../infra/outbox-archive.js';
import { ARCHIVE_ENV } from '../../shared/archive/archiver-env.js';
import { ARCHIVER_METRICS } from '../../shared/archive/archiver-metrics.js';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import {
  actionsOf,
  appWithoutBundling,
  CONSUMER_ENTRY,
  expectPropsError,
  logicalId,
  resource,
  resourcesOf,
  roleStatements,
  type Statement,
  unacknowledgedFindings,
} from '../helpers/cdk.js';

const input: OutboxConfigInput = {
  source: 'urn:test:archive',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }, { name: 'audit' }],
  routes: { order: 'orders.fifo', payment: 'payments', ledger: 'audit' },
  archive: { retentionDays: 400 },
};
const config = defineConfig(input);

/** An Outbox alone in a stack, with an operator role granted replay into a queue of the stack. */
function build(props: Partial<OutboxProps> & { withKey?: boolean } = {}, configInput: OutboxConfigInput = input) {
  const stack = new Stack(appWithoutBundling(), 'Archive', { env: { account: '123456789012', region: 'eu-west-1' } });
  const { withKey, ...rest } = props;
  const outbox = new Outbox(stack, 'Outbox', {
    config: defineConfig(configInput),
    ...(withKey ? { encryptionKey: new Key(stack, 'Key', { enableKeyRotation: true }) } : {}),
    ...rest,
  });
  return { stack, outbox };
}

const props = (template: Template, type: string, prefix: string) => resource(template, type, logicalId(template, type, prefix)).Properties;

describe('Outbox with config.archive', () => {
  let stack: Stack;
  let outbox: Outbox;
  let template: Template;
  let ids: { bucket: string; queue: string; dlq: string; fifoDlq: string; fn: string; role: string };

  beforeAll(() => {
    ({ stack, outbox } = build());
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
    expect(props(template, 'AWS::SQS::Queue', 'OutboxArchiveQueue').FifoQueue).toBeUndefined();
    expect(props(template, 'AWS::SQS::Queue', 'OutboxArchiveFifoDeadLetterQueue').FifoQueue).toBe(true);
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
    expect(props(template, 'AWS::SQS::Queue', 'OutboxArchiveQueue')).toMatchObject({
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
    const alarm = (prefix: string) => props(template, 'AWS::CloudWatch::Alarm', prefix);
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
});

describe('Outbox with config.archive and options', () => {
  it('encrypts bucket and queues with the outbox key and grants the archiver and the operator only what that key needs', () => {
    const { stack, outbox } = build({ withKey: true });
    outbox.grantReplay(new Role(stack, 'Operator', { assumedBy: new ServicePrincipal('ec2.amazonaws.com') }));
    const template = Template.fromStack(stack);
    const key = { 'Fn::GetAtt': [logicalId(template, 'AWS::KMS::Key', 'Key'), 'Arn'] };
    expect(props(template, 'AWS::S3::Bucket', 'OutboxArchiveBucket')).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: key } },
        ],
      },
    });
    for (const queue of ['OutboxArchiveQueue', 'OutboxArchiveDeadLetterQueue', 'OutboxArchiveFifoDeadLetterQueue']) {
      expect(props(template, 'AWS::SQS::Queue', queue).KmsMasterKeyId).toEqual(key);
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
    const { stack } = build({
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
    expect(props(template, 'AWS::SQS::Queue', 'OutboxArchiveQueue').VisibilityTimeout).toBe(6 * 30 + 120);
    expect(props(template, 'AWS::CloudWatch::Alarm', 'OutboxAlarmsArchiveQueueAge').Threshold).toBe(3600);
    const bucket = resource(template, 'AWS::S3::Bucket', logicalId(template, 'AWS::S3::Bucket', 'OutboxArchiveBucket'));
    expect(bucket.DeletionPolicy).toBe('Delete');
  });

  it('needs no FIFO DLQ when every topic is standard', () => {
    const { stack } = build({}, { ...input, topics: [{ name: 'payments' }], routes: { payment: 'payments' } });
    const queues = Object.keys(Template.fromStack(stack).findResources('AWS::SQS::Queue'));
    expect(queues.filter((id) => id.startsWith('OutboxArchive'))).toHaveLength(2);
    expect(queues.some((id) => id.startsWith('OutboxArchiveFifo'))).toBe(false);
  });

  it('rejects archive settings AWS would refuse, naming the prop and what is allowed', () => {
    expectPropsError(() => build({ archive: { batchSize: 5 } }), 'batchSize', 'is 5', 'from 10 to 10000');
    expectPropsError(() => build({ archive: { maxBatchingWindow: Duration.minutes(6) } }), 'maxBatchingWindow', 'from 1 to 300');
    expectPropsError(() => build({ archive: { maxConcurrency: 1 } }), 'maxConcurrency', 'from 2 to 1000');
    expectPropsError(() => build({ archive: { timeout: Duration.minutes(16) } }), 'timeout', 'from 1 to 900');
  });
});

describe('Outbox without config.archive', () => {
  it('creates no archive bucket, queue, function or alarm, and refuses grantReplay', () => {
    const { archive: _archive, ...withoutArchive } = input;
    const { stack, outbox } = build({}, withoutArchive);
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
    const { archive: _archive, ...withoutArchive } = input;
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
