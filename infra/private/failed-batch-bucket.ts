import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { privateBucket } from './private-bucket.js';

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
  /** The construct's `logRetention`, for the auto-delete provider's logs ({@link privateBucket}). */
  readonly logRetention?: RetentionDays;
}

/**
 * An on-failure destination bucket: a {@link privateBucket} whose objects expire after the
 * retention. The relay's event source mapping and a stream processor built on its own each make
 * one this way.
 */
export function failedBatchBucket(scope: Construct, id: string, options: FailedBatchBucketOptions): Bucket {
  return privateBucket(scope, id, {
    encryptionKey: options.encryptionKey,
    removalPolicy: options.removalPolicy,
    expiration: options.retention ?? Duration.days(DEFAULT_FAILED_BATCH_RETENTION_DAYS),
    expirationRuleId: 'ExpireFailedBatches',
    accessLogsBucket: options.accessLogsBucket,
    logRetention: options.logRetention,
    accessLogsReason: `Only ${options.writer} can write here and nothing reads it but operators; pass accessLogsBucket to log access where policy requires it.`,
  });
}
