import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';

/** How long failed batches are kept by default: long enough to find the cause and redrive. */
export const DEFAULT_FAILED_BATCH_RETENTION_DAYS = 90;

/** What a failed-batch bucket is made with. */
export interface FailedBatchBucketOptions {
  readonly encryptionKey?: IKey;
  readonly removalPolicy: RemovalPolicy;
  /** @default Duration.days(DEFAULT_FAILED_BATCH_RETENTION_DAYS) */
  readonly retention?: Duration;
  /** @default no access logs (acknowledged: only the writers' roles can put objects, and only operators read them) */
  readonly accessLogsBucket?: IBucket;
  /** Who writes the objects, for the acknowledgement of the missing access logs. */
  readonly writer: string;
}

/**
 * An on-failure destination bucket: private, TLS only, encrypted with the key given (else
 * S3-managed), objects owned by the bucket owner and expired after the retention. The relay's
 * event source mapping and a stream processor built on its own each make one this way.
 */
export function failedBatchBucket(scope: Construct, id: string, options: FailedBatchBucketOptions): Bucket {
  const bucket = new Bucket(scope, id, {
    encryption: options.encryptionKey ? BucketEncryption.KMS : BucketEncryption.S3_MANAGED,
    encryptionKey: options.encryptionKey,
    bucketKeyEnabled: options.encryptionKey ? true : undefined,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    serverAccessLogsBucket: options.accessLogsBucket,
    lifecycleRules: [{ id: 'ExpireFailedBatches', expiration: options.retention ?? Duration.days(DEFAULT_FAILED_BATCH_RETENTION_DAYS) }],
    removalPolicy: options.removalPolicy,
  });
  if (options.accessLogsBucket === undefined) {
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: `Only ${options.writer} can write here and nothing reads it but operators; pass accessLogsBucket to log access where policy requires it.`,
    });
  }
  return bucket;
}
