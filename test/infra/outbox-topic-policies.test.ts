import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { AccountRootPrincipal, Role, ServicePrincipal, User } from 'aws-cdk-lib/aws-iam';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { OutboxStack } from '../../examples/orders/infra/orders-stack.js';
import { config as exampleConfig } from '../../examples/orders/outbox.config.js';
import { LowLatencyProcessor } from '../../infra/low-latency-processor.js';
import { Outbox } from '../../infra/outbox.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { defineConfig } from '../../shared/config.js';
import { appWithoutBundling, CONSUMER_ENTRY, expectPropsError, logicalId, type Statement, unacknowledgedFindings } from '../helpers/cdk.js';

const image = ContainerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim');
const lowLatency = defineConfig({ ...exampleConfig, lowLatencyAggregateTypes: ['payment'] });

/** Every statement of the policies on the topic with this logical id. */
function topicStatements(template: Template, topicId: string): Statement[] {
  const policies = template.findResources('AWS::SNS::TopicPolicy', { Properties: { Topics: [{ Ref: topicId }] } });
  return Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

const topicIdsOf = (template: Template): string[] =>
  Object.keys(template.findResources('AWS::SNS::Topic')).filter((id) => id.includes('Topics'));
const roleArn = (roleId: string) => ({ 'Fn::GetAtt': [roleId, 'Arn'] });

/** What the topic policy says of sns:Publish by a principal of the account, TLS aside: the principal ARNs let through. */
function publishers(template: Template, topicId: string): unknown {
  const statements = topicStatements(template, topicId);
  // Nothing in a topic policy allows anyone anything: access comes from IAM alone, within the denials.
  expect(statements.filter((s) => s.Effect === 'Allow')).toEqual([]);
  const denials = statements.filter((s) => s.Effect === 'Deny' && JSON.stringify(s.Action).includes('sns:Publish'));
  const byPrincipal = denials.filter((s) => JSON.stringify(s.Condition).includes('aws:PrincipalArn'));
  expect(byPrincipal).toHaveLength(1);
  expect(byPrincipal[0]).toMatchObject({ Principal: { AWS: '*' }, Resource: { Ref: topicId } });
  return (byPrincipal[0]!.Condition as { ArnNotEquals: Record<string, unknown> }).ArnNotEquals['aws:PrincipalArn'];
}

describe('topic policies: only the relays publish', () => {
  let stack: OutboxStack;
  let template: Template;
  beforeAll(() => {
    stack = new OutboxStack(appWithoutBundling(), 'TopicPolicies', { config: exampleConfig, consumerEntry: CONSUMER_ENTRY });
    template = Template.fromStack(stack);
  });

  it("denies sns:Publish on every topic to every principal but the relay's role", () => {
    const relayRole = logicalId(template, 'AWS::IAM::Role', 'OutboxRelayRole');
    expect(topicIdsOf(template)).toHaveLength(exampleConfig.topics.length);
    for (const topic of topicIdsOf(template)) expect(publishers(template, topic)).toEqual([roleArn(relayRole)]);
  });

  it('lets each subscriber queue receive messages from its own topic only', () => {
    for (const [name, topic] of stack.outbox.topics.topics) {
      const topicId = stack.getLogicalId(topic.node.defaultChild as never);
      const queue = stack.outbox.subscribers.get(`ExampleConsumer${name === 'orders.fifo' ? 'OrdersFifo' : 'Payments'}`)!.queue;
      const queueId = stack.getLogicalId(queue.node.defaultChild as never);
      const policies = template.findResources('AWS::SQS::QueuePolicy', { Properties: { Queues: [{ Ref: queueId }] } });
      const allows = Object.values(policies)
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
        .filter((s) => s.Effect === 'Allow');
      expect(allows).toEqual([
        expect.objectContaining({
          Action: 'sqs:SendMessage',
          Principal: { Service: 'sns.amazonaws.com' },
          Condition: { ArnEquals: { 'aws:SourceArn': { Ref: topicId } } },
        }),
      ]);
    }
  });
});

describe('topic policies: the low-latency processor and other publishers', () => {
  it("lets the relay's role and the processor's task role publish, and no one else, with cdk-nag clean", () => {
    const stack = new Stack(appWithoutBundling(), 'WithProcessor', { env: { region: 'eu-west-1' } });
    new Outbox(stack, 'Outbox', { config: lowLatency, processor: { image } });
    const template = Template.fromStack(stack);
    const relayRole = logicalId(template, 'AWS::IAM::Role', 'OutboxRelayRole');
    const taskRole = logicalId(template, 'AWS::IAM::Role', 'OutboxProcessorTaskTaskRole');
    for (const topic of topicIdsOf(template)) expect(publishers(template, topic)).toEqual([roleArn(relayRole), roleArn(taskRole)]);
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });

  it('lets through a role or user the app grants with outbox.topics.grantPublish, such as a redrive role', () => {
    const stack = new Stack(appWithoutBundling(), 'Granted');
    const outbox = new Outbox(stack, 'Outbox', { config: exampleConfig });
    const redrive = new Role(stack, 'Redrive', { assumedBy: new AccountRootPrincipal() });
    outbox.topics.grantPublish(redrive);
    outbox.topics.grantPublish(new User(stack, 'Operator'));
    outbox.topics.grantPublish(Role.fromRoleArn(stack, 'Imported', 'arn:aws:iam::123456789012:role/ops/publisher'));
    const template = Template.fromStack(stack);
    const relayRole = logicalId(template, 'AWS::IAM::Role', 'OutboxRelayRole');
    for (const topic of topicIdsOf(template)) {
      expect(publishers(template, topic)).toEqual([
        roleArn(relayRole),
        roleArn(logicalId(template, 'AWS::IAM::Role', 'Redrive')),
        roleArn(logicalId(template, 'AWS::IAM::User', 'Operator')),
        'arn:aws:iam::123456789012:role/ops/publisher',
      ]);
    }
  });

  it('lets a processor built on its own publish to topics of an OutboxTopics', () => {
    const stack = new Stack(appWithoutBundling(), 'OwnProcessor');
    const table = new Table(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream: StreamViewType.NEW_IMAGE });
    const topics = new OutboxTopics(stack, 'Topics', { config: lowLatency });
    new LowLatencyProcessor(stack, 'Processor', {
      config: lowLatency,
      table,
      topics: topics.topics,
      deadLetterQueue: new Queue(stack, 'Dlq'),
      image,
    });
    const template = Template.fromStack(stack);
    const taskRole = logicalId(template, 'AWS::IAM::Role', 'ProcessorTaskTaskRole');
    for (const topic of topicIdsOf(template)) expect(publishers(template, topic)).toEqual([roleArn(taskRole)]);
  });

  it('rejects a grantee whose principal has no ARN a topic policy could name', () => {
    const stack = new Stack(appWithoutBundling(), 'Unnamed');
    const topics = new OutboxTopics(stack, 'Topics', { config: exampleConfig });
    expectPropsError(
      () => topics.grantPublish({ grantPrincipal: new ServicePrincipal('events.amazonaws.com') }),
      'grantPublish',
      'has no role or user ARN the topic policies could name',
      'allowed: a role',
    );
  });
});
