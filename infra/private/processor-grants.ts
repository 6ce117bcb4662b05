import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { PROCESSOR_KEY_WRITER } from '../../shared/on-failure/s3-object.js';
import { grantPublishOn } from '../outbox-topics.js';

/** What the processor's task role is granted on. */
export interface ProcessorGrants {
  readonly leaseTable: ITable;
  readonly failedBatchBucket: IBucket;
  readonly encryptionKey?: IKey | undefined;
  readonly table: ITable;
  readonly topics: ReadonlyMap<string, ITopic>;
  readonly deadLetterQueue: IQueue;
  readonly grantRelay?: ((grantee: IGrantable) => void) | undefined;
}

/**
 * Grants the processor's task role what it calls: the lease table, the failed-batch bucket under
 * the processor's own prefix, and what the relay needs (the stream, the topics, the relay DLQ),
 * through `grantRelay` when the `Outbox` construct gives it.
 */
export function grantProcessorTask(role: IRole, on: ProcessorGrants): void {
  // Every call DynamoDbLeaseTable makes (GetItem: a parent a paginated scan missed).
  on.leaseTable.grant(role, 'dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem');
  // Named actions on the one key, as for the table's other readers and writers (grantReadWriteData would add wildcards).
  on.encryptionKey?.grant(role, 'kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey');
  grantFailedBatchWrites(role, on.failedBatchBucket);
  if (on.grantRelay === undefined) {
    // On the stream ARN, as TableV2's grantStreamRead does; Table's would allow ListStreams on "*".
    on.table.grantStream(role, 'dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator');
    on.table.encryptionKey?.grant(role, 'kms:Decrypt', 'kms:DescribeKey');
    // Topics of an OutboxTopics deny publishers it has not granted: grant through it.
    grantPublishOn(on.topics.values(), role);
    on.deadLetterQueue.grantSendMessages(role);
  } else {
    on.grantRelay(role);
  }
}

/**
 * `s3:PutObject` on the processor's keys of the failed-batch bucket only (not Lambda's, not
 * reads), plus the key use S3 needs to encrypt them with the bucket's customer-managed key.
 */
function grantFailedBatchWrites(role: IRole, bucket: IBucket): void {
  role.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects(`${PROCESSOR_KEY_WRITER}/*`)] }),
  );
  bucket.encryptionKey?.grant(role, 'kms:GenerateDataKey');
  const cfnBucket = bucket.node.defaultChild as CfnElement | undefined;
  if (cfnBucket !== undefined) {
    const bucketId = Stack.of(cfnBucket).getLogicalId(cfnBucket);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${PROCESSOR_KEY_WRITER}/*]`,
      reason:
        'The processor names each failed-batch object itself (per shard, time and a random id, as Lambda does), so s3:PutObject covers every key under its own prefix of this one bucket.',
    });
  }
}
