import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { LowLatencyProcessor, type LowLatencyProcessorProps } from '../../infra/low-latency-processor.js';
import { defineConfig } from '../../shared/config.js';
import { PROCESSOR_ENV, PROCESSOR_METRICS } from '../../shared/processor/index.js';
import { appWithoutBundling, logicalId, resource, unacknowledgedFindings } from '../helpers/cdk.js';

const config = defineConfig({
  source: 'urn:test:infra',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
});

/** A processor on its own in a stack with its neighbours; the image comes from a registry so no Docker build runs. */
function standalone(overrides: (stack: Stack) => Partial<LowLatencyProcessorProps> = () => ({})) {
  const stack = new Stack(new App(), 'ProcessorBucket', { env: { account: '123456789012', region: 'eu-west-1' } });
  const table = new Table(stack, 'Outbox', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream: StreamViewType.NEW_IMAGE });
  const topics = new Map(config.topics.map((t) => [t.name, new Topic(stack, `Topic${t.name.replace(/\W/g, '')}`, { fifo: t.fifo })]));
  const processor = new LowLatencyProcessor(stack, 'Processor', {
    config,
    table,
    topics,
    deadLetterQueue: new Queue(stack, 'RelayDlq'),
    image: ContainerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim'),
    ...overrides(stack),
  });
  return { stack, processor, template: Template.fromStack(stack) };
}

const environmentOf = (template: Template): Record<string, unknown> =>
  Object.fromEntries(
    (
      Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0]!.Properties.ContainerDefinitions[0].Environment as {
        Name: string;
        Value: unknown;
      }[]
    ).map((e) => [e.Name, e.Value]),
  );

/** Every statement of the policies on the ECS task role (not the execution role). */
function taskRoleStatements(template: Template) {
  const taskRole = Object.keys(template.findResources('AWS::IAM::Role')).find((id) => id.includes('TaskRole'))!;
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: taskRole }]))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
}

const actionsOf = (statement: { Action: string | string[] }) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

describe('the processor’s failed-batch bucket', () => {
  it('gets a private, encrypted, expiring bucket of its own when built alone, named in its environment, with put rights on its prefix only', () => {
    const { template, processor } = standalone();
    const bucketId = logicalId(template, 'AWS::S3::Bucket', 'ProcessorFailedBatches');
    expect(resource(template, 'AWS::S3::Bucket', bucketId).Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LifecycleConfiguration: { Rules: [{ Id: 'ExpireFailedBatches', ExpirationInDays: 90, Status: 'Enabled' }] },
    });
    expect(environmentOf(template)[PROCESSOR_ENV.failedBatchBucket]).toEqual({ Ref: bucketId });
    const s3 = taskRoleStatements(template).filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    expect(s3).toEqual([
      {
        Action: 's3:PutObject',
        Effect: 'Allow',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/outbox-processor/*']] },
      },
    ]);
    expect(unacknowledgedFindings(processor)).toEqual([]);
  });

  it('writes to a bucket it is given, creating none, and may use the bucket’s key to encrypt there', () => {
    const { template } = standalone((stack) => ({
      failedBatchBucket: new Bucket(stack, 'Shared', { encryptionKey: new Key(stack, 'BucketKey') }),
    }));
    expect(Object.keys(template.findResources('AWS::S3::Bucket'))).toEqual([logicalId(template, 'AWS::S3::Bucket', 'Shared')]);
    const sharedId = logicalId(template, 'AWS::S3::Bucket', 'Shared');
    expect(environmentOf(template)[PROCESSOR_ENV.failedBatchBucket]).toEqual({ Ref: sharedId });
    const keyId = logicalId(template, 'AWS::KMS::Key', 'BucketKey');
    const onKey = taskRoleStatements(template).filter((s) => JSON.stringify(s.Resource).includes(keyId));
    expect(onKey.flatMap(actionsOf)).toEqual(['kms:GenerateDataKey']);
  });

  it('shares the relay’s failed-batch bucket inside an Outbox, and alarms on every record given up on and every failed write', () => {
    const stack = new OutboxStack(appWithoutBundling(), 'ProcessorGivenUp', { config });
    const template = Template.fromStack(stack);
    const relayBucket = logicalId(template, 'AWS::S3::Bucket', 'OutboxRelayFailedBatches');
    expect(Object.keys(template.findResources('AWS::S3::Bucket')).filter((id) => id.includes('Processor'))).toEqual([]);
    const environment = environmentOf(template);
    expect(environment[PROCESSOR_ENV.failedBatchBucket]).toEqual({ Ref: relayBucket });
    const alarmTopic = { Ref: logicalId(template, 'AWS::SNS::Topic', 'OutboxAlarmsAlarmTopic') };
    const alarm = (prefix: string) =>
      resource(template, 'AWS::CloudWatch::Alarm', logicalId(template, 'AWS::CloudWatch::Alarm', prefix)).Properties;
    for (const [id, metricName] of [
      ['OutboxAlarmsProcessorOnFailureRecords', PROCESSOR_METRICS.onFailureRecords],
      ['OutboxAlarmsProcessorOnFailureWriteFailures', PROCESSOR_METRICS.onFailureWriteFailures],
    ] as const) {
      expect(alarm(id)).toMatchObject({
        Namespace: environment.POWERTOOLS_METRICS_NAMESPACE,
        MetricName: metricName,
        Dimensions: expect.arrayContaining([
          { Name: 'service', Value: environment.POWERTOOLS_SERVICE_NAME },
          { Name: PROCESSOR_METRICS.leaseTableDimension, Value: environment[PROCESSOR_ENV.leaseTable] },
        ]),
        Statistic: 'Sum',
        // A count summed over 5 minutes: one record given up on is enough to fire.
        Period: 300,
        Threshold: 1,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [alarmTopic],
        OKActions: [alarmTopic],
      });
    }
    expect(alarm('OutboxAlarmsProcessorOnFailureRecords').Dimensions).toHaveLength(2);
    expect(unacknowledgedFindings(stack.outbox)).toEqual([]);
  });
});
