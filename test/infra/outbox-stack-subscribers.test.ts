import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxStack } from '../../infra/outbox-stack.js';
import { config } from '../../outbox.config.js';
import { actionsOf, CONSUMER_FIXTURE, logicalId, resource, resourcesOf, roleStatements } from '../helpers/cdk.js';

let stack: OutboxStack;
let template: Template;
let ids: { queue: string; dlq: string; consumerFn: string; consumerRole: string; relayFn: string; relayDlq: string; alarmTopic: string };
const consumerTopic = config.topics[0]!;

beforeAll(() => {
  stack = new OutboxStack(new App(), 'OutboxTest', {
    config,
    consumerEntry: CONSUMER_FIXTURE,
    alarmEmail: 'oncall@example.com',
    retainData: true,
  });
  template = Template.fromStack(stack);
  ids = {
    queue: logicalId(template, 'AWS::SQS::Queue', 'OutboxExampleConsumerQueue'),
    dlq: logicalId(template, 'AWS::SQS::Queue', 'OutboxExampleConsumerDeadLetterQueue'),
    consumerFn: logicalId(template, 'AWS::Lambda::Function', 'OutboxExampleConsumerFunction'),
    consumerRole: logicalId(template, 'AWS::IAM::Role', 'OutboxExampleConsumerRole'),
    relayFn: logicalId(template, 'AWS::Lambda::Function', 'OutboxRelayFunction'),
    relayDlq: logicalId(template, 'AWS::SQS::Queue', 'OutboxRelayDeadLetterQueue'),
    alarmTopic: logicalId(template, 'AWS::SNS::Topic', 'OutboxAlarmsAlarmTopic'),
  };
});

const topicRef = () => ({ Ref: stack.getLogicalId(stack.outbox.topics.topics.get(consumerTopic.name)!.node.defaultChild as never) });
const alarms = () => Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties as Record<string, unknown>);

describe('OutboxStack: example consumer subscription', () => {
  it('subscribes a queue of the same kind as the topic, with raw message delivery and a DLQ for undeliverable messages', () => {
    const queue = resource(template, 'AWS::SQS::Queue', ids.queue).Properties;
    expect(Boolean(queue.FifoQueue)).toBe(consumerTopic.fifo);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: topicRef(),
      Endpoint: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      RawMessageDelivery: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [ids.dlq, 'Arn'] } },
    });
  });

  it('redrives to a 14-day DLQ after maxReceiveCount receives, both queues encrypted and TLS only', () => {
    const queue = resource(template, 'AWS::SQS::Queue', ids.queue).Properties;
    const dlq = resource(template, 'AWS::SQS::Queue', ids.dlq).Properties;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [ids.dlq, 'Arn'] }, maxReceiveCount: 5 });
    expect(dlq.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    expect(Boolean(dlq.FifoQueue)).toBe(consumerTopic.fifo);
    for (const id of [ids.queue, ids.dlq]) {
      expect(resource(template, 'AWS::SQS::Queue', id).Properties.SqsManagedSseEnabled).toBe(true);
      const policy = Object.values(template.findResources('AWS::SQS::QueuePolicy', { Properties: { Queues: [{ Ref: id }] } }))[0]!;
      const statements = policy.Properties.PolicyDocument.Statement as { Effect: string; Condition?: unknown; Principal?: unknown }[];
      expect(statements).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
      // SNS may send to the queue and to the DLQ, and only from this topic.
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { Service: 'sns.amazonaws.com' },
          Condition: { ArnEquals: { 'aws:SourceArn': topicRef() } },
        }),
      );
    }
  });

  it('sets the visibility timeout to at least 6 × the consumer timeout', () => {
    const timeout = resource(template, 'AWS::Lambda::Function', ids.consumerFn).Properties.Timeout as number;
    expect(resource(template, 'AWS::SQS::Queue', ids.queue).Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
  });

  it('feeds the consumer through an SQS event source that reports batch item failures', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.consumerFn },
      EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
    });
  });

  it('lets the consumer only consume its own queue, log and trace', () => {
    const statements = roleStatements(template, ids.consumerRole);
    const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap(resourcesOf)).toEqual([{ 'Fn::GetAtt': [ids.queue, 'Arn'] }]);
    expect(sqs.flatMap(actionsOf)).not.toContain('sqs:SendMessage');
    const services = new Set(statements.flatMap(actionsOf).map((a) => a.split(':')[0]));
    expect([...services].sort()).toEqual(['logs', 'sqs', 'xray']);
  });
});

describe('OutboxStack: alarms and dashboard', () => {
  it('alarms on relay iterator age, errors and throttles of the relay function', () => {
    for (const metric of ['IteratorAge', 'Errors', 'Throttles']) {
      const found = alarms().filter(
        (a) =>
          a.MetricName === metric &&
          a.Namespace === 'AWS/Lambda' &&
          JSON.stringify(a.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: ids.relayFn } }]),
      );
      expect(found, metric).toHaveLength(1);
    }
    const age = alarms().find((a) => a.MetricName === 'IteratorAge')!;
    expect(age).toMatchObject({ Statistic: 'Maximum', Threshold: 60_000, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('alarms on the first message in every DLQ', () => {
    for (const queue of [ids.relayDlq, ids.dlq]) {
      const found = alarms().filter(
        (a) =>
          a.MetricName === 'ApproximateNumberOfMessagesVisible' &&
          JSON.stringify(a.Dimensions).includes(`"Fn::GetAtt":["${queue}","QueueName"]`),
      );
      expect(found, queue).toHaveLength(1);
      expect(found[0]).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1 });
    }
  });

  it('alarms on SNS delivery failures of every outbox topic', () => {
    const failing = alarms().filter((a) => a.MetricName === 'NumberOfNotificationsFailed' && a.Namespace === 'AWS/SNS');
    expect(failing).toHaveLength(config.topics.length);
  });

  it('notifies the alarm topic on alarm and OK, and the topic is encrypted with a key CloudWatch may use', () => {
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions).toEqual([{ Ref: ids.alarmTopic }]);
      expect(alarm.OKActions).toEqual([{ Ref: ids.alarmTopic }]);
    }
    const keyId = (resource(template, 'AWS::SNS::Topic', ids.alarmTopic).Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    const key = resource(template, 'AWS::KMS::Key', keyId).Properties;
    expect(key.EnableKeyRotation).toBe(true);
    expect(JSON.stringify(key.KeyPolicy)).toContain('cloudwatch.amazonaws.com');
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: ids.alarmTopic },
    });
  });

  it('shows every alarm on the dashboard', () => {
    const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody);
    for (const id of Object.keys(template.findResources('AWS::CloudWatch::Alarm'))) expect(body).toContain(`"${id}","Arn"`);
  });
});

describe('OutboxStack: outputs and retention', () => {
  it('outputs the table name, topic ARNs, queue URLs and the alarm topic ARN', () => {
    const outputs = template.findOutputs('*');
    const values = Object.values(outputs).map((o) => JSON.stringify(o.Value));
    expect(values).toContain(JSON.stringify({ Ref: stack.getLogicalId(stack.outbox.table.node.defaultChild as never) }));
    for (const topic of stack.outbox.topics.topics.values())
      expect(values).toContain(JSON.stringify({ Ref: stack.getLogicalId(topic.node.defaultChild as never) }));
    for (const queue of [ids.queue, ids.dlq, ids.relayDlq]) expect(values).toContain(JSON.stringify({ Ref: queue }));
    expect(values).toContain(JSON.stringify({ Ref: ids.alarmTopic }));
  });

  it('with retainData keeps the table, queues and bucket and protects the table from deletion', () => {
    const table = resource(template, 'AWS::DynamoDB::GlobalTable', logicalId(template, 'AWS::DynamoDB::GlobalTable', 'OutboxTable'));
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.Replicas).toEqual([expect.objectContaining({ DeletionProtectionEnabled: true })]);
    for (const id of [ids.queue, ids.dlq, ids.relayDlq]) expect(resource(template, 'AWS::SQS::Queue', id).DeletionPolicy).toBe('Retain');
    expect(resource(template, 'AWS::S3::Bucket', logicalId(template, 'AWS::S3::Bucket', 'OutboxRelayFailedBatches')).DeletionPolicy).toBe(
      'Retain',
    );
  });
});
