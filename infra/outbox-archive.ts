import { type CfnElement, Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Metric, type MetricOptions, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Code, type IFunction, type Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ARCHIVE_ENV } from '../shared/archive/archiver-env.js';
import { ARCHIVE_MALFORMED_ROOT } from '../shared/archive/archiver-malformed.js';
import { ARCHIVER_METRICS, type ArchiverMetricName } from '../shared/archive/archiver-metrics.js';
import { ARCHIVE_ROOT } from '../shared/archive/layout.js';
import type { OutboxConfig } from '../shared/config.js';
import { OutboxFunction } from './outbox-function.js';
import { prebuiltAssetDir } from './private/assets.js';
import { propsConfig } from './private/config-check.js';
import { privateBucket } from './private/private-bucket.js';
import { checkInteger, checkSeconds, OutboxPropsError } from './private/props-error.js';
import { SQS_MAX_RETENTION } from './private/retention.js';
import { minVisibilityTimeoutSeconds } from './private/visibility-timeout.js';

/** The archiver's batching defaults: why these values is told in docs/replay.md ("On AWS"). */
export const ARCHIVER_DEFAULTS = Object.freeze({
  /** Records per invocation at most; Lambda's 6 MB invocation payload usually cuts a batch first. */
  batchSize: 10_000,
  /**
   * Seconds the event source gathers records before it invokes: the archive trails the topics by
   * about this much, and a quiet outbox writes one object per partition per window.
   */
  maxBatchingWindowSeconds: 300,
  /** Concurrent archiver invocations at most (2 is the least an SQS event source takes). */
  maxConcurrency: 2,
  timeoutSeconds: 60,
  memorySize: 512,
  /** Receives of a message before the archive queue moves it to its DLQ. */
  maxReceiveCount: 5,
});

/** Props of {@link OutboxArchive}. */
export interface OutboxArchiveProps {
  /** The validated outbox config; its `archive.retentionDays` sets how long S3 keeps archive objects. */
  readonly config: OutboxConfig;
  /** Config topic name → topic: the archive queue is subscribed to each, and every topic of `config` must be here. */
  readonly topics: ReadonlyMap<string, ITopic>;
  /**
   * An archiver handler file of your own, exporting `handler`, bundled at synthesis by the
   * locally installed esbuild. @default the archiver this package ships prebuilt
   */
  readonly entry?: string;
  /** Key for the bucket and the queues. @default S3-managed and SQS-managed encryption */
  readonly encryptionKey?: IKey;
  /**
   * What happens to the bucket, the queues and the logs when they leave the stack; with `DESTROY`
   * the bucket is emptied first. @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /** How long the archiver's logs are kept. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** X-Ray tracing of the archiver. @default Tracing.ACTIVE */
  readonly tracing?: Tracing;
  /** Bucket that receives S3 server access logs of the archive bucket. @default no access logs */
  readonly accessLogsBucket?: IBucket;
  /** Records per archiver invocation at most (AWS: 10–10,000 with a batching window). @default 10,000 */
  readonly batchSize?: number;
  /** How long the event source gathers records before it invokes the archiver (1–300 s). @default 300 s */
  readonly maxBatchingWindow?: Duration;
  /** Concurrent archiver invocations at most (AWS: 2–1,000). @default 2 */
  readonly maxConcurrency?: number;
  /** The archiver's memory in MB (AWS: 128–10,240). @default 512 */
  readonly memorySize?: number;
  /** The archiver's timeout per batch (1–900 s); the archive queue's visibility timeout is 6× it plus the batching window. @default 60 s */
  readonly timeout?: Duration;
}

/**
 * The event archive on AWS: a standard SQS queue subscribed to every outbox topic (standard and
 * FIFO) with raw message delivery, and the archiver, a Lambda function fed by that queue in large
 * batches, which writes each batch's envelopes as gzip NDJSON objects, one per partition
 * (aggregate type, event type, UTC hour), to a private bucket whose lifecycle rule deletes them
 * after `config.archive.retentionDays`. `dynamodb-outbox replay` reads that bucket.
 *
 * Messages the archiver keeps failing move to the DLQ after five receives; messages SNS cannot
 * deliver go to the same DLQ (a FIFO one for FIFO topics, as SNS requires).
 *
 * @example
 * ```ts
 * const archive = new OutboxArchive(this, 'Archive', { config, topics: outboxTopics.topics });
 * archive.grantReplay(operatorRole, newConsumerQueue);
 * ```
 */
export class OutboxArchive extends Construct {
  /** The archive: `events/v1/…` objects, each expired after the retention. */
  readonly bucket: Bucket;
  /** The queue subscribed to every topic; the archiver reads it. */
  readonly queue: Queue;
  /** Messages the archiver kept failing, and messages SNS could not deliver from standard topics. */
  readonly deadLetterQueue: Queue;
  /** Messages SNS could not deliver from FIFO topics; only when the config has one. */
  readonly fifoDeadLetterQueue?: Queue;
  readonly function: IFunction;
  readonly outboxFunction: OutboxFunction;
  readonly eventSource: SqsEventSource;
  private readonly encryptionKey?: IKey;

  constructor(scope: Construct, id: string, props: OutboxArchiveProps) {
    super(scope, id);
    props = { ...props, config: propsConfig(this.node.path, props.config) };
    const path = this.node.path;
    const { config, topics } = props;
    const archive = config.archive;
    if (archive === undefined) {
      throw new OutboxPropsError(path, 'config', 'has no archive setting; allowed: a config with archive: { retentionDays }');
    }
    const missing = config.topics.filter((t) => !topics.has(t.name)).map((t) => t.name);
    if (missing.length > 0) {
      throw new OutboxPropsError(path, 'topics', `lacks the config topics ${missing.join(', ')}; the archive must receive every topic`);
    }
    const batchSize = props.batchSize ?? ARCHIVER_DEFAULTS.batchSize;
    const window = props.maxBatchingWindow ?? Duration.seconds(ARCHIVER_DEFAULTS.maxBatchingWindowSeconds);
    const timeout = props.timeout ?? Duration.seconds(ARCHIVER_DEFAULTS.timeoutSeconds);
    checkInteger(path, 'batchSize', props.batchSize, 10, 10_000);
    checkSeconds(path, 'maxBatchingWindow', props.maxBatchingWindow, 1, 300);
    checkInteger(path, 'maxConcurrency', props.maxConcurrency, 2, 1_000);
    checkSeconds(path, 'timeout', props.timeout, 1, 900);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.encryptionKey = props.encryptionKey;

    this.bucket = privateBucket(this, 'Bucket', {
      encryptionKey: props.encryptionKey,
      removalPolicy,
      expiration: Duration.days(archive.retentionDays),
      expirationRuleId: 'ExpireArchivedEvents',
      accessLogsBucket: props.accessLogsBucket,
      logRetention: props.logRetention,
      accessLogsReason:
        'Of the outbox, only the archiver role is granted writes here, and only roles granted replay read it; pass accessLogsBucket to log access where policy requires it.',
    });

    const encryption = {
      encryption: props.encryptionKey ? QueueEncryption.KMS : QueueEncryption.SQS_MANAGED,
      encryptionMasterKey: props.encryptionKey,
      enforceSSL: true,
      removalPolicy,
      retentionPeriod: SQS_MAX_RETENTION,
    };
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', encryption);
    this.queue = new Queue(this, 'Queue', {
      ...encryption,
      visibilityTimeout: Duration.seconds(minVisibilityTimeoutSeconds(timeout, window)),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: ARCHIVER_DEFAULTS.maxReceiveCount },
    });
    // SNS sends what it cannot deliver from a FIFO topic only to a FIFO queue.
    if (config.topics.some((t) => t.fifo)) {
      this.fifoDeadLetterQueue = new Queue(this, 'FifoDeadLetterQueue', { ...encryption, fifo: true, contentBasedDeduplication: false });
    }
    for (const { name, fifo } of config.topics) {
      // Raw delivery: the body is the envelope (or a batch message) as published, with its attributes.
      const deadLetterQueue = fifo ? this.fifoDeadLetterQueue : this.deadLetterQueue;
      (topics.get(name) as ITopic).addSubscription(new SqsSubscription(this.queue, { rawMessageDelivery: true, deadLetterQueue }));
    }

    this.outboxFunction = new OutboxFunction(this, 'Archiver', {
      ...(props.entry === undefined ? { code: Code.fromAsset(prebuiltAssetDir('archiver')) } : { entry: props.entry }),
      description: 'Archives every published outbox event to S3 for replay',
      serviceName: ARCHIVER_METRICS.service,
      memorySize: props.memorySize ?? ARCHIVER_DEFAULTS.memorySize,
      timeout,
      logRetention: props.logRetention,
      removalPolicy,
      tracing: props.tracing,
      environment: { [ARCHIVE_ENV.bucket]: this.bucket.bucketName },
    });
    this.function = this.outboxFunction.function;
    this.grantArchiveWrites(this.function);
    this.eventSource = new SqsEventSource(this.queue, {
      batchSize,
      maxBatchingWindow: window,
      maxConcurrency: props.maxConcurrency ?? ARCHIVER_DEFAULTS.maxConcurrency,
      reportBatchItemFailures: true,
    });
    this.function.addEventSource(this.eventSource);
    this.acknowledgeFindings();
  }

  /**
   * One of the EMF metrics the archiver writes (`archivedEvents`, `objectsWritten`,
   * `failedWrites`, `failedRecords`, `malformedRecords`), under this function's name: the `Sum`
   * per 5 minutes unless `props` say otherwise.
   *
   * @example
   * ```ts
   * new Alarm(this, 'ArchiveFailedWrites', { metric: archive.metric('failedWrites'), threshold: 1, evaluationPeriods: 1 });
   * ```
   */
  metric(metricName: ArchiverMetricName, props: MetricOptions = {}): Metric {
    return new Metric({
      namespace: ARCHIVER_METRICS.namespace,
      metricName,
      dimensionsMap: { service: ARCHIVER_METRICS.service, [ARCHIVER_METRICS.functionDimension]: this.function.functionName },
      statistic: Stats.SUM,
      period: Duration.minutes(5),
      ...props,
    });
  }

  /**
   * Lets a principal run `dynamodb-outbox replay` from this archive: list the archive's keys
   * (`s3:ListBucket`, only under `events/`) and read its objects (`s3:GetObject`), with
   * `kms:Decrypt` when the bucket has a customer-managed key. Given a target queue, also lets it
   * send there (`grantSendMessages`: `sqs:SendMessage`, `sqs:GetQueueAttributes`,
   * `sqs:GetQueueUrl`, and the queue key's actions).
   *
   * @example
   * ```ts
   * outbox.archive?.grantReplay(operatorRole, newConsumer.queue);
   * ```
   */
  grantReplay(grantee: IGrantable, target?: IQueue): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${ARCHIVE_ROOT}*`] } },
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects(`${ARCHIVE_ROOT}*`)] }),
    );
    if (Construct.isConstruct(grantee.grantPrincipal)) {
      Validations.of(grantee.grantPrincipal).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${this.bucketLogicalId()}.Arn>/${ARCHIVE_ROOT}*]`,
        reason: `Replay reads whichever archive objects its filters select, so s3:GetObject covers every key under ${ARCHIVE_ROOT} of the archive bucket, and nothing else.`,
      });
    }
    this.encryptionKey?.grant(grantee, 'kms:Decrypt');
    if (target !== undefined) {
      // What sending needs, not grantSendMessages: on a customer-managed key that adds kms:Encrypt
      // and the wildcards kms:ReEncrypt* and kms:GenerateDataKey*, which no send uses.
      target.grant(grantee, 'sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl');
      target.encryptionMasterKey?.grant(grantee, 'kms:GenerateDataKey', 'kms:Decrypt');
    }
  }

  /** `s3:PutObject` under the archive's and the malformed records' prefixes only, and the key to encrypt there. */
  private grantArchiveWrites(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects(`${ARCHIVE_ROOT}*`), this.bucket.arnForObjects(`${ARCHIVE_MALFORMED_ROOT}*`)],
      }),
    );
    this.encryptionKey?.grant(grantee, 'kms:GenerateDataKey');
  }

  private bucketLogicalId(): string {
    return Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement);
  }

  private acknowledgeFindings(): void {
    const bucketId = this.bucketLogicalId();
    Validations.of(this.outboxFunction.role).acknowledge(
      ...[ARCHIVE_ROOT, ARCHIVE_MALFORMED_ROOT].map((prefix) => ({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${prefix}*]`,
        reason: `The archiver names each object after its partition and a name unique to the write, so s3:PutObject must cover every key under ${prefix} of this one bucket.`,
      })),
    );
    const mapping = this.function.node.tryFindChild(`SqsEventSource:${Names.nodeUniqueId(this.queue.node)}`) ?? this.function;
    Validations.of(mapping).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        'SQS event source mappings take no on-failure destination: a message the archiver keeps failing moves to the archive DLQ through the queue redrive policy.',
    });
    const dlqReason =
      'This queue is itself a dead-letter queue (of the archive queue, or of its SNS subscriptions); a further DLQ would only hide messages.';
    for (const dlq of [this.deadLetterQueue, this.fifoDeadLetterQueue]) {
      if (dlq === undefined) continue;
      Validations.of(dlq).acknowledge(
        { id: 'AwsSolutions-SQS3', reason: dlqReason },
        { id: 'Serverless-SQSRedrivePolicy', reason: dlqReason },
      );
    }
  }
}
