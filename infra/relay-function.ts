import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { Metric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  CfnEventSourceMapping,
  Code,
  type IEventSourceDlq,
  type IFunction,
  MetricType,
  StartingPosition,
  type Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type OutboxConfig, serializeRuntimeConfig } from '../shared/config.js';
import { MAX_DEAD_LETTER_MESSAGE_BYTES } from '../shared/dead-letter.js';
import { RELAY_ENV, relayEventSourceSettings } from '../shared/event-source.js';
import { relayIgnoredAggregateTypes } from '../shared/publishing-paths.js';
import { RELAY_METRICS, type RelayMetricName } from '../shared/relay/metrics.js';
import { LowLatencyProcessor } from './low-latency-processor.js';
import { OutboxFunction } from './outbox-function.js';
import type { OutboxTopics } from './outbox-topics.js';
import { prebuiltAssetDir } from './private/assets.js';
import { propsConfig } from './private/config-check.js';
import { relayMetric } from './private/emf-metrics.js';
import { failedBatchBucket } from './private/failed-batch-bucket.js';
import { checkLambdaEnvironment, queueUrlStandIn, topicArnStandIn } from './private/lambda-environment.js';
import { validateRelayProps } from './private/relay-props.js';
import { SQS_MAX_RETENTION } from './private/retention.js';

export { relayMetric } from './private/emf-metrics.js';

/** Props of {@link RelayFunction}. */
export interface RelayFunctionProps {
  /** The validated outbox config: tuning, filter and routes all come from it; with the topic ARNs it must fit Lambda's 4 KB environment. */
  readonly config: OutboxConfig;
  /** The outbox table; its stream (NEW_IMAGE) is the relay's event source. */
  readonly table: ITable;
  /** The topics of `config`, which the relay may publish to and nothing else. */
  readonly topics: OutboxTopics;
  /**
   * A relay handler file of your own, exporting `handler` (see `createRelayHandler` in
   * `dynamodb-outbox/relay`), bundled at synthesis by the locally installed esbuild.
   * @default the relay this package ships prebuilt: nothing is bundled at synthesis
   */
  readonly entry?: string;
  /** Memory in MB (AWS: 128–10,240). @default 512 */
  readonly memorySize?: number;
  /**
   * Timeout per batch; it bounds one batch's publish retries.
   * @deprecated set `relay.timeoutSeconds` in the config, which the local runner applies too; a
   * value here that differs from it is refused.
   * @default Duration.seconds(config.relay.timeoutSeconds)
   */
  readonly timeout?: Duration;
  /** Key for the relay DLQ and the failed-batch bucket. @default SQS-managed and S3-managed encryption */
  readonly encryptionKey?: IKey;
  /**
   * What happens to the DLQ, the failed-batch bucket and the logs when they leave the stack; with
   * `DESTROY` the bucket is emptied first. @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /** How long the relay's logs are kept. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * How long the failed-batch bucket keeps a failed batch (whole days, at least 1) before S3
   * expires it: redrive within this time. @default Duration.days(90)
   */
  readonly failedBatchRetention?: Duration;
  /** Bucket that receives S3 server access logs of the failed-batch bucket. @default no access logs */
  readonly accessLogsBucket?: IBucket;
  /** X-Ray tracing of the relay. @default Tracing.ACTIVE */
  readonly tracing?: Tracing;
  /**
   * Who publishes the config's `lowLatencyAggregateTypes` (those not also in `handoverAggregateTypes`),
   * whose events this relay's filter leaves out, acknowledged unpublished: `'stream-processor'` says a
   * stream processor deployed apart from this construct (in another stack, say) publishes them. Not
   * needed when a `LowLatencyProcessor` stands beside this relay in its scope, as in the `Outbox`
   * construct; without either, synthesis fails rather than deploy a relay that drops those events.
   * @default the `LowLatencyProcessor` beside this relay; none needed when the config has no such types
   */
  readonly lowLatencyPublisher?: 'stream-processor';
}

/**
 * The Lambda relay: reads outbox-slot records from the table's stream through an event source
 * mapping whose settings and filter come from `relayEventSourceSettings(config)` (the same
 * definition the local runner applies), publishes each event to its routed topic, and sends
 * permanent failures with their envelope to the relay DLQ. Batches that exhaust their retries
 * or age go, as full records, to an S3 bucket (the mapping's on-failure destination).
 *
 * Its role may publish to the outbox topics, send to the relay DLQ, read this table's stream,
 * write its own logs and traces, and write failed batches to its bucket; nothing else.
 *
 * @example
 * ```ts
 * const relay = new RelayFunction(this, 'Relay', { config, table: table.table, topics });
 * relay.deadLetterQueue.grantConsumeMessages(redriveFunction);
 * ```
 */
export class RelayFunction extends Construct {
  readonly function: IFunction;
  readonly outboxFunction: OutboxFunction;
  /** Where the relay sends events it can never publish (SQS, 14 days). */
  readonly deadLetterQueue: Queue;
  /** The event source mapping's on-failure destination: full records of failed batches. */
  readonly failedBatchBucket: Bucket;
  readonly eventSource: DynamoEventSource;
  /** The relay's environment (`RELAY_ENV`): any other relay, such as a stream processor, needs the same. */
  readonly environment: Readonly<Record<string, string>>;
  private readonly encryptionKey?: IKey;

  constructor(scope: Construct, id: string, props: RelayFunctionProps) {
    super(scope, id);
    props = { ...props, config: propsConfig(this.node.path, props.config) };
    validateRelayProps(this, props);
    const { config, table, topics } = props;
    const settings = relayEventSourceSettings(config);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.encryptionKey = props.encryptionKey;

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod: SQS_MAX_RETENTION,
      // Dead letters carry a whole envelope or raw image: SQS's largest message, not an older default of 256 KiB.
      maxMessageSizeBytes: MAX_DEAD_LETTER_MESSAGE_BYTES,
      encryption: props.encryptionKey ? QueueEncryption.KMS : QueueEncryption.SQS_MANAGED,
      encryptionMasterKey: props.encryptionKey,
      enforceSSL: true,
      removalPolicy,
    });
    this.failedBatchBucket = failedBatchBucket(this, 'FailedBatches', {
      encryptionKey: props.encryptionKey,
      accessLogsBucket: props.accessLogsBucket,
      retention: props.failedBatchRetention,
      removalPolicy,
      logRetention: props.logRetention,
      writer: 'the relay role (and a stream processor of the same outbox)',
    });

    this.environment = {
      [RELAY_ENV.config]: serializeRuntimeConfig(config),
      [RELAY_ENV.topicArns]: Stack.of(this).toJsonString(topics.topicArns()),
      [RELAY_ENV.deadLetterQueueUrl]: this.deadLetterQueue.queueUrl,
    };
    this.outboxFunction = new OutboxFunction(this, 'Relay', {
      ...(props.entry === undefined ? { code: Code.fromAsset(prebuiltAssetDir('relay')) } : { entry: props.entry }),
      description: 'Publishes outbox events from the table stream to SNS',
      serviceName: RELAY_METRICS.service,
      memorySize: props.memorySize ?? 512,
      // From the one definition the local runner applies too.
      timeout: props.timeout ?? Duration.seconds(settings.functionTimeoutSeconds),
      logRetention: props.logRetention,
      removalPolicy,
      tracing: props.tracing,
      environment: this.environment,
    });
    this.function = this.outboxFunction.function;
    // OUTBOX_TOPIC_ARNS grows with every topic, and the ARNs and the DLQ URL are tokens until deploy.
    const topicArns = Object.fromEntries([...topics.topics].map(([name, topic]) => [name, topicArnStandIn(topic)]));
    checkLambdaEnvironment(
      this.node.path,
      'config',
      this.outboxFunction.environment,
      { [RELAY_ENV.topicArns]: JSON.stringify(topicArns), [RELAY_ENV.deadLetterQueueUrl]: queueUrlStandIn(this.deadLetterQueue) },
      `the relay's environment holds the config, the declared event types' names (${Object.keys(config.eventTypes ?? {}).length} here) and every topic's ARN (${config.topics.length} topics here), so use fewer topics or shorter topic names, aggregate types and source, declare fewer or shorter event type names, or use a shorter stack name`,
    );

    topics.grantPublish(this.function);
    this.grantSendDeadLetters(this.function);

    this.eventSource = new DynamoEventSource(table, {
      startingPosition: StartingPosition[settings.startingPosition],
      batchSize: settings.batchSize,
      maxBatchingWindow: Duration.seconds(settings.maxBatchingWindowSeconds),
      parallelizationFactor: settings.parallelizationFactor,
      bisectBatchOnError: settings.bisectBatchOnError,
      // -1 (no limit) goes through as is; CDK takes it for retryAttempts but not for maxRecordAge (below).
      retryAttempts: settings.maxRetryAttempts,
      maxRecordAge: settings.maxRecordAgeSeconds === -1 ? undefined : Duration.seconds(settings.maxRecordAgeSeconds),
      reportBatchItemFailures: settings.reportBatchItemFailures,
      filters: settings.filterPatterns.map((pattern) => ({ pattern: JSON.stringify(pattern) })),
      onFailure: this.failedBatchDestination(props.encryptionKey),
      // OnFailureDestinationDeliveredEventCount among them: the only trace of records given up on.
      metricsConfig: { metrics: [MetricType.EVENT_COUNT] },
    });
    this.function.addEventSource(this.eventSource);
    if (settings.maxRecordAgeSeconds === -1) {
      // Stated rather than left out, so that a mapping deployed with a finite age is set back to no limit.
      this.eventSourceMapping().addPropertyOverride('MaximumRecordAgeInSeconds', -1);
    }

    this.acknowledgeFindings();
    // At synthesis, when the rest of the scope is built: the Outbox construct adds its processor after the relay.
    this.node.addValidation({ validate: () => this.unpublishedTypes(props) });
  }

  /**
   * What this relay's filter would leave unpublished: the config's low-latency types when no
   * `LowLatencyProcessor` stands beside it and `lowLatencyPublisher` does not say who publishes them.
   */
  private unpublishedTypes(props: RelayFunctionProps): string[] {
    const left = relayIgnoredAggregateTypes(props.config);
    if (left.length === 0 || props.lowLatencyPublisher !== undefined) return [];
    if (this.node.scope?.node.children.some((sibling) => sibling instanceof LowLatencyProcessor) === true) return [];
    const types = left.map((type) => JSON.stringify(type)).join(', ');
    return [
      `Invalid props for ${this.node.path}: lowLatencyPublisher is not set, and the config's lowLatencyAggregateTypes ${types} are left out by this relay's event source filter (acknowledged unpublished), with no LowLatencyProcessor beside it to publish them; allowed: a LowLatencyProcessor in the same scope (as the Outbox construct builds), lowLatencyPublisher: 'stream-processor' when a processor deployed elsewhere publishes them, or the types in handoverAggregateTypes too or out of lowLatencyAggregateTypes, so that this relay publishes them`,
    ];
  }

  /** The CloudFormation resource of the relay's event source mapping (the function has no other). */
  private eventSourceMapping(): CfnEventSourceMapping {
    const mappings = this.function.node.findAll().filter((c): c is CfnEventSourceMapping => c instanceof CfnEventSourceMapping);
    if (mappings.length !== 1) throw new Error(`expected one event source mapping on ${this.function.node.path}, found ${mappings.length}`);
    return mappings[0]!;
  }

  /**
   * One of the EMF metrics this relay writes (`published`, `retried`, `deadLettered`,
   * `failedRecords`, `lag`, `lagByAggregateType`, `lagByEventType`), under this function's name
   * and `extraDimensions`: see {@link relayMetric}.
   *
   * @example
   * ```ts
   * new Alarm(this, 'RelayLag', { metric: relay.metric('lag'), threshold: 60_000, evaluationPeriods: 3 });
   * new Alarm(this, 'OrderLag', { metric: relay.metric('lagByAggregateType', {}, { aggregateType: 'order' }), threshold: 30_000, evaluationPeriods: 3 });
   * ```
   */
  metric(metricName: RelayMetricName, props: MetricOptions = {}, extraDimensions: Readonly<Record<string, string>> = {}): Metric {
    return relayMetric(this.function.functionName, metricName, props, extraDimensions);
  }

  /**
   * Lets a principal send to the relay DLQ and nothing else: `sqs:SendMessage` on this queue
   * (`grantSendMessages` would add two read actions a relay never calls), plus the KMS actions
   * SQS needs when the queue uses a customer-managed key.
   *
   * @example
   * ```ts
   * relay.grantSendDeadLetters(processorTaskRole);
   * ```
   */
  grantSendDeadLetters(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetterQueue.queueArn] }),
    );
    this.encryptionKey?.grant(grantee, 'kms:GenerateDataKey', 'kms:Decrypt');
  }

  /**
   * The S3 on-failure destination with only what Lambda needs to write a failed batch
   * (`s3:PutObject`, `s3:ListBucket`); the stock destination grants full read-write.
   */
  private failedBatchDestination(key: IKey | undefined): IEventSourceDlq {
    const bucket = this.failedBatchBucket;
    return {
      bind: (_mapping, target) => {
        target.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
        target.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects('*')] }));
        key?.grant(target, 'kms:GenerateDataKey');
        return { destination: bucket.bucketArn };
      },
    };
  }

  private acknowledgeFindings(): void {
    const dlqReason =
      'This queue is itself the relay dead-letter queue: messages land here after the relay gave up, so a further DLQ would only hide them.';
    Validations.of(this.deadLetterQueue).acknowledge(
      { id: 'AwsSolutions-SQS3', reason: dlqReason },
      { id: 'Serverless-SQSRedrivePolicy', reason: dlqReason },
    );
    const bucketId = Stack.of(this).getLogicalId(this.failedBatchBucket.node.defaultChild as CfnElement);
    Validations.of(this.outboxFunction.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
      reason:
        'Lambda names the failed-batch objects itself (per mapping, shard and time), so s3:PutObject must cover every key of this one bucket.',
    });
  }
}
