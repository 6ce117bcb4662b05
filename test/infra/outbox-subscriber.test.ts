import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { OutboxSubscriber, type OutboxSubscriberProps } from '../../infra/outbox-subscriber.js';
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

function synth(fifo: boolean, props: Partial<OutboxSubscriberProps>) {
  const stack = new Stack(appWithoutBundling(), 'Test');
  const topic = new Topic(stack, 'Topic', { fifo, enforceSSL: true });
  const subscriber = new OutboxSubscriber(stack, 'Billing', { topic, ...props });
  return { stack, subscriber, template: Template.fromStack(stack) };
}

describe('OutboxSubscriber', { timeout: 120_000 }, () => {
  it('filters on the type and aggregatetype message attributes', () => {
    const { template } = synth(false, { eventTypes: ['order.placed', 'order.paid'], aggregateTypes: ['order'] });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      RawMessageDelivery: true,
      FilterPolicy: { type: ['order.placed', 'order.paid'], aggregatetype: ['order'] },
    });
  });

  it('delivers everything when no filter is given', () => {
    const { template } = synth(false, {});
    const subscription = Object.values(template.findResources('AWS::SNS::Subscription'))[0]!;
    expect(subscription.Properties.FilterPolicy).toBeUndefined();
  });

  it('sizes the visibility timeout from the consumer timeout and batching window', () => {
    const { template } = synth(false, {
      consumerEntry: CONSUMER_ENTRY,
      consumerTimeout: Duration.seconds(45),
      maxBatchingWindow: Duration.seconds(10),
    });
    const queue = resource(template, 'AWS::SQS::Queue', logicalId(template, 'AWS::SQS::Queue', 'BillingQueue')).Properties;
    expect(queue.VisibilityTimeout).toBe(6 * 45 + 10);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      MaximumBatchingWindowInSeconds: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('makes FIFO queues on a FIFO topic that keep the relay deduplication id and scale per message group', () => {
    const { template } = synth(true, { maxReceiveCount: 3 });
    const queue = resource(template, 'AWS::SQS::Queue', logicalId(template, 'AWS::SQS::Queue', 'BillingQueue')).Properties;
    expect(queue).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    });
    expect((queue.RedrivePolicy as { maxReceiveCount: number }).maxReceiveCount).toBe(3);
    expect(
      resource(template, 'AWS::SQS::Queue', logicalId(template, 'AWS::SQS::Queue', 'BillingDeadLetterQueue')).Properties.FifoQueue,
    ).toBe(true);
  });

  it('keeps its queues and its consumer logs when they leave the stack, unless removalPolicy says otherwise', () => {
    const policies = (template: Template) =>
      Object.fromEntries(
        ['AWS::SQS::Queue', 'AWS::Logs::LogGroup'].flatMap((type) =>
          Object.entries(template.findResources(type)).map(([id, r]) => [id, [r.DeletionPolicy, r.UpdateReplacePolicy]]),
        ),
      );
    // The DLQ holds the events the consumer kept failing and those SNS could not deliver: deleting it loses them.
    const kept = policies(synth(false, { consumerEntry: CONSUMER_ENTRY }).template);
    expect(Object.keys(kept)).toHaveLength(3);
    for (const [id, policy] of Object.entries(kept)) expect(policy, id).toEqual(['Retain', 'Retain']);
    const dropped = policies(synth(true, { consumerEntry: CONSUMER_ENTRY, removalPolicy: RemovalPolicy.DESTROY }).template);
    for (const [id, policy] of Object.entries(dropped)) expect(policy, id).toEqual(['Delete', 'Delete']);
  });

  it('grants consuming its queue, and only its queue, through grantConsumeMessages', () => {
    const stack = new Stack(appWithoutBundling(), 'Test');
    const subscriber = new OutboxSubscriber(stack, 'Billing', { topic: new Topic(stack, 'Topic', { enforceSSL: true }) });
    const role = new Role(stack, 'Worker', { assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com') });
    subscriber.grantConsumeMessages(role);
    const template = Template.fromStack(stack);
    const statements = roleStatements(template, logicalId(template, 'AWS::IAM::Role', 'Worker'));
    expect(statements.flatMap(actionsOf)).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']),
    );
    expect(statements.flatMap(resourcesOf)).toEqual([{ 'Fn::GetAtt': [logicalId(template, 'AWS::SQS::Queue', 'BillingQueue'), 'Arn'] }]);
  });

  it('is cdk-nag clean on an SSL-only topic, with and without a consumer', () => {
    expect(unacknowledgedFindings(synth(false, {}).stack)).toEqual([]);
    expect(unacknowledgedFindings(synth(true, { consumerEntry: CONSUMER_ENTRY }).stack)).toEqual([]);
  });

  it('lets SNS use the DLQ key to dead-letter undeliverable messages, also next to an existing queue under another key', () => {
    const stack = new Stack(appWithoutBundling(), 'DlqKey', { env: { account: '111111111111', region: 'eu-west-1' } });
    const key = new Key(stack, 'OutboxKey');
    const keyTopic = new Topic(stack, 'KeyTopic', { masterKey: key });
    const plainTopic = new Topic(stack, 'PlainTopic');
    const own = (id: string) => new Queue(stack, id, { encryption: QueueEncryption.SQS_MANAGED });
    // An existing queue on a topic this key encrypts, one on a topic it does not, and a new queue under the key.
    new OutboxSubscriber(stack, 'OnKeyTopic', { topic: keyTopic, queue: own('OwnQueueA'), encryptionKey: key });
    new OutboxSubscriber(stack, 'OnPlainTopic', { topic: plainTopic, queue: own('OwnQueueB'), encryptionKey: key });
    new OutboxSubscriber(stack, 'NewQueue', { topic: keyTopic, encryptionKey: key });
    // Template.fromStack also fails on a dependency cycle, which naming KeyTopic in its own key's policy would make.
    const template = Template.fromStack(stack);
    const keyPolicy = resource(template, 'AWS::KMS::Key', logicalId(template, 'AWS::KMS::Key', 'OutboxKey')).Properties.KeyPolicy as {
      Statement: Statement[];
    };
    const sns = keyPolicy.Statement.filter((s) => s.Effect === 'Allow' && JSON.stringify(s.Principal).includes('sns.amazonaws.com'));
    for (const statement of sns) expect(actionsOf(statement).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    expect(sns.map((s) => s.Condition)).toEqual([
      { ArnLike: { 'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:eu-west-1:111111111111:*']] } } },
      { ArnEquals: { 'aws:SourceArn': { Ref: logicalId(template, 'AWS::SNS::Topic', 'PlainTopic') } } },
      undefined, // SqsSubscription's grant for the new queue's key, which is also its DLQ's: nothing added for it
    ]);
  });
});
