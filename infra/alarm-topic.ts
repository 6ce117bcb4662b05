import { ArnFormat, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/** CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key, hence a key of our own. */
export function createAlarmTopic(scope: Construct, removalPolicy: RemovalPolicy): ITopic {
  const key = new Key(scope, 'AlarmTopicKey', {
    description: 'Encrypts the outbox alarm topic; CloudWatch may use it to publish alarms',
    enableKeyRotation: true,
    removalPolicy,
  });
  const stack = Stack.of(scope);
  const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublish',
      principals: [cloudWatch],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
    }),
  );
  const topic = new Topic(scope, 'AlarmTopic', { displayName: 'Outbox alarms', masterKey: key, enforceSSL: true });
  // enforceSSL gives the topic a policy of its own, which replaces SNS's default one: without
  // this statement nothing would let CloudWatch publish.
  topic.addToResourcePolicy(
    new PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublish',
      principals: [cloudWatch],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({
            service: 'cloudwatch',
            resource: 'alarm',
            resourceName: '*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        },
      },
    }),
  );
  return topic;
}
