import { CfnResource, type Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { DEFAULT_LOG_RETENTION } from './retention.js';

/** The construct id aws-cdk-lib gives the stack's auto-delete provider (`Custom::S3AutoDeleteObjects` + `CustomResourceProvider`). */
const AUTO_DELETE_PROVIDER_ID = 'Custom::S3AutoDeleteObjectsCustomResourceProvider';

/** What a private bucket of the outbox is made with. */
export interface PrivateBucketOptions {
  /** @default S3-managed encryption (SSE-S3) */
  readonly encryptionKey?: IKey;
  /**
   * `DESTROY` also empties the bucket when CloudFormation deletes it (`autoDeleteObjects`), or
   * deleting the stack would fail on a bucket that holds objects.
   */
  readonly removalPolicy: RemovalPolicy;
  /** How long S3 keeps an object before it expires it (whole days). */
  readonly expiration: Duration;
  /** The id of the lifecycle rule that expires objects, which names what the bucket holds. */
  readonly expirationRuleId: string;
  /** @default no access logs (acknowledged with `accessLogsReason`) */
  readonly accessLogsBucket?: IBucket;
  /** Why the bucket may go without access logs: who writes to it and who reads it. */
  readonly accessLogsReason: string;
  /**
   * With `DESTROY`, how long the stack's auto-delete provider keeps its logs, when this bucket is the
   * stack's first of the outbox's to be emptied (the construct's `logRetention`). @default DEFAULT_LOG_RETENTION
   */
  readonly logRetention?: RetentionDays;
}

/**
 * A bucket for the outbox's own data: private (all public access blocked), TLS only, encrypted
 * with the key given (an S3 Bucket Key in front of it, so S3 calls KMS once per bucket key
 * period rather than per object) or S3-managed, objects owned by the bucket owner (no ACLs), and
 * each object expired after `expiration`. The failed-batch buckets and the event archive are
 * made this way. With `RemovalPolicy.DESTROY` the stack's auto-delete provider (one Lambda
 * function and role per stack, from aws-cdk-lib) empties the bucket before it is deleted, and logs to
 * a log group of the stack ({@link autoDeleteProviderLogs}); with any other policy there is no
 * provider and the objects stay.
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
    autoDeleteObjects: options.removalPolicy === RemovalPolicy.DESTROY,
  });
  if (options.removalPolicy === RemovalPolicy.DESTROY) autoDeleteProviderLogs(bucket, options.logRetention ?? DEFAULT_LOG_RETENTION);
  if (options.accessLogsBucket === undefined) {
    Validations.of(bucket).acknowledge({ id: 'AwsSolutions-S1', reason: options.accessLogsReason });
  }
  return bucket;
}

/**
 * Gives the stack's auto-delete provider a log group of the stack, kept `retention` and deleted
 * with the stack (the provider exists only for buckets deleted with it). aws-cdk-lib makes the
 * provider's function without a logging config (neither the bucket nor `CustomResourceConfig` sets
 * one), so Lambda would create `/aws/lambda/<function>` on the first call: never expiring, and left
 * behind by the stack. Once per stack, whoever's bucket made the provider.
 */
function autoDeleteProviderLogs(bucket: Bucket, retention: RetentionDays): void {
  const provider = Stack.of(bucket).node.tryFindChild(AUTO_DELETE_PROVIDER_ID);
  const handler = provider?.node.tryFindChild('Handler');
  if (provider === undefined || !(handler instanceof CfnResource) || provider.node.tryFindChild('Logs') !== undefined) return;
  const logs = new LogGroup(provider, 'Logs', { retention, removalPolicy: RemovalPolicy.DESTROY });
  handler.addPropertyOverride('LoggingConfig', { LogGroup: logs.logGroupName });
}
