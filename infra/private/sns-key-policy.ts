import { Annotations, ArnFormat, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

/**
 * Denies SNS the outbox's key for topics of other accounts or regions, or, when the key is
 * imported and its policy cannot be changed, warns at `scope` of what that policy must allow.
 *
 * A subscription lets sns.amazonaws.com use its queue's key for any topic. Naming the topic
 * instead (the aws-sns-subscriptions:restrictSqsDescryption feature flag) would make this key
 * and the topics it encrypts depend on each other, so SNS is denied it outside this account and region.
 *
 * @example
 * ```ts
 * if (props.encryptionKey) restrictSnsKeyUse(this, props.encryptionKey);
 * ```
 */
export function restrictSnsKeyUse(scope: Construct, key: IKey): void {
  const denied = key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'DenySnsForOtherAccountsTopics',
      effect: Effect.DENY,
      principals: [new ServicePrincipal('sns.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: ['*'],
      // Only where SNS names the topic (it does when it delivers to a queue): a request without one keeps the Allow.
      conditions: {
        Null: { 'aws:SourceArn': 'false' },
        ArnNotLike: {
          'aws:SourceArn': Stack.of(scope).formatArn({ service: 'sns', resource: '*', arnFormat: ArnFormat.NO_RESOURCE_NAME }),
        },
      },
    }),
  );
  if (denied.statementAdded) return;
  // Nor can the subscriptions' grants to SNS be added: without them SNS delivers to no queue of the outbox.
  Annotations.of(scope).addWarningV2(
    'dynamodb-outbox:imported-encryption-key',
    `the encryptionKey ${key.node.path} is imported, so its key policy cannot be changed here: it must let sns.amazonaws.com use kms:GenerateDataKey and kms:Decrypt for the outbox topics (condition aws:SourceArn), or SNS cannot deliver to the subscriber and archive queues it encrypts, nor to their dead-letter queues`,
  );
}
