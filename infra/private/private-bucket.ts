import { type Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';

/** What a private bucket of the outbox is made with. */
export interface PrivateBucketOptions {
  /** @default S3-managed encryption (SSE-S3) */
  readonly encryptionKey?: IKey;
  readonly removalPolicy: RemovalPolicy;
  /** How long S3 keeps an object before it expires it (whole days). */
  readonly expiration: Duration;
  /** The id of the lifecycle rule that expires objects, which names what the bucket holds. */
  readonly expirationRuleId: string;
  /** @default no access logs (acknowledged with `accessLogsReason`) */
  readonly accessLogsBucket?: IBucket;
  /** Why the bucket may go without access logs: who writes to it and who reads it. */
  readonly accessLogsReason: string;
}

/**
 * A bucket for the outbox's own data: private (all public access blocked), TLS only, encrypted
 * with the key given (an S3 Bucket Key in front of it, so S3 calls KMS once per bucket key
 * period rather than per object) or S3-managed, objects owned by the bucket owner (no ACLs), and
 * each object expired after `expiration`. The failed-batch buckets and the event archive are
 * made this way.
 */
export function privateBucket(scope: Construct, id: string, options: PrivateBucketOptions): Bucket {
  const bucket = new Bucket(scope, id, {
    encryption: options.encryptionKey ? BucketEncryption.KMS : BucketEncryption.S3_MANAGED,
    encryptionKey: options.encryptionKey,
    bucketKeyEnabled: options.encryptionKey ? true : undefined,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    serverAccessLogsBucket: options.accessLogsBucket,
    lifecycleRules: [{ id: options.expirationRuleId, expiration: options.expiration }],
    removalPolicy: options.removalPolicy,
  });
  if (options.accessLogsBucket === undefined) {
    Validations.of(bucket).acknowledge({ id: 'AwsSolutions-S1', reason: options.accessLogsReason });
  }
  return bucket;
}
