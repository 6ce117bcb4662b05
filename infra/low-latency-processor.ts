import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, Billing, type ITable, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IVpc, SecurityGroup, SubnetType } from 'aws-cdk-lib/aws-ec2';
import {
  Cluster,
  type ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  FargateService,
  FargateTaskDefinition,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { OutboxConfig } from '../shared/config.js';
import { ProcessorOptionsError } from '../shared/processor/errors.js';
import { LEASE_TABLE } from '../shared/processor/lease-table.js';
import { PROCESSOR_METRICS } from '../shared/processor/observability.js';
import { DEFAULT_FAILOVER_MS } from '../shared/processor/settings.js';
import { processorAggregateTypes } from '../shared/publishing-paths.js';
import { propsConfig } from './private/config-check.js';
import { processorMetric } from './private/emf-metrics.js';
import { failedBatchBucket } from './private/failed-batch-bucket.js';
import { fargateTaskSizeProblem } from './private/fargate-task-size.js';
import { acknowledgeProcessorContainer, addProcessorContainer } from './private/processor-container.js';
import { grantProcessorTask } from './private/processor-grants.js';
import { validateProcessorProps } from './private/processor-props.js';
import { publicProcessorVpc } from './private/processor-vpc.js';
import { millisTokenProblem } from './private/props-error.js';
import { DEFAULT_LOG_RETENTION } from './private/retention.js';

/** Props of {@link LowLatencyProcessor}. */
export interface LowLatencyProcessorProps {
  /** The outbox config; `lowLatencyAggregateTypes` and `handoverAggregateTypes` must not both be empty (see {@link LowLatencyProcessor.isEnabled}). */
  readonly config: OutboxConfig;
  /** The outbox table; its stream is read. */
  readonly table: ITable;
  /** Topic name (as in the config) → topic; every configured topic is needed. */
  readonly topics: ReadonlyMap<string, ITopic>;
  /** The relay dead-letter queue, shared with the Lambda relay. */
  readonly deadLetterQueue: IQueue;
  /**
   * Grants what a relay needs (read the stream, publish to the topics, send to the DLQ, with any
   * key use): the `Outbox` construct passes its `grantRelay`, which names every KMS action.
   * @default stream reads on the table's stream ARN, and the resources' own `grantPublish` and `grantSendMessages`
   */
  readonly grantRelay?: (grantee: IGrantable) => void;
  /**
   * Where the processor writes records it gave up on (after the config's `relay.maxRetryAttempts`
   * or `relay.maxRecordAgeSeconds`), under `outbox-processor/`, in the shape of Lambda's S3
   * on-failure destination. The `Outbox` construct passes its relay's failed-batch bucket, so one
   * bucket (and one `redrive on-failure`) serves both paths. The task may put objects under that
   * prefix only (and use the bucket's key to encrypt them).
   * @default a bucket of its own, encrypted with `encryptionKey` (else S3-managed), objects expired after 90 days
   */
  readonly failedBatchBucket?: IBucket;
  /** @default a new VPC over two AZs with public subnets only (no NAT gateway), with flow logs */
  readonly vpc?: IVpc;
  /** @default an arm64 image of the processor this package ships prebuilt (its Dockerfile copies the bundles) */
  readonly image?: ContainerImage;
  /** Fewest running tasks; two keep a warm standby for a hand-off. @default 2 */
  readonly minTasks?: number;
  /** Most running tasks under CPU load (AWS: shards are the limit: at most 2 readers per shard). @default 4 */
  readonly maxTasks?: number;
  /** Lease failover time (1–600 s; a token only as `Duration.millis`). @default Duration.millis(10000) */
  readonly failover?: Duration;
  /** Task CPU units (Fargate: 256, 512, 1,024, 2,048, 4,096, 8,192 or 16,384). @default 256 */
  readonly cpu?: number;
  /**
   * Task memory in MiB, one Fargate offers for `cpu` (256 CPU: 512, 1,024 or 2,048; 512: 1,024–4,096;
   * 1,024: 2,048–8,192; 2,048: 4,096–16,384; 4,096: 8,192–30,720, all in steps of 1,024; 8,192:
   * 16,384–61,440 in steps of 4,096; 16,384: 32,768–122,880 in steps of 8,192). @default 512
   */
  readonly memoryLimitMiB?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * Customer-managed key for the lease table (the `Outbox` construct passes its own); the task
   * role may use it for the lease table's reads and writes. Needs a stack with an explicit region.
   * @default an AWS-owned key
   */
  readonly encryptionKey?: IKey;
  /**
   * What happens to the lease table, the logs and the failed-batch bucket it makes when they leave
   * the stack; with `DESTROY` that bucket is emptied first. @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The low-latency path: a lease table (keys from `shared/processor/lease-table.ts`) and an arm64
 * Fargate service running the stream processor, scaled on CPU between `minTasks` and
 * `maxTasks`, with its own log group and a task role allowed exactly: read the table's stream,
 * read and write the lease table, publish to the topics, send to the relay DLQ, and put the
 * records it gives up on into the failed-batch bucket (`outbox-processor/` keys only).
 *
 * @example
 * ```ts
 * if (LowLatencyProcessor.isEnabled(config)) {
 *   new LowLatencyProcessor(this, 'Processor', { config, table, topics, deadLetterQueue });
 * }
 * ```
 */
export class LowLatencyProcessor extends Construct {
  /** Whether the config sends any aggregate type through the processor: a low-latency or a handed-over one. */
  static isEnabled(config: OutboxConfig): boolean {
    return processorAggregateTypes(config).length > 0;
  }

  readonly leaseTable: TableV2;
  /** Where records given up on go (`OUTBOX_FAILED_BATCH_BUCKET`): the one given, or the processor's own. */
  readonly failedBatchBucket: IBucket;
  readonly service: FargateService;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: LowLatencyProcessorProps) {
    super(scope, id);
    props = { ...props, config: propsConfig(this.node.path, props.config) };
    const minTasks = props.minTasks ?? 2;
    const maxTasks = props.maxTasks ?? 4;
    const failoverProblem = millisTokenProblem(props.failover);
    if (failoverProblem) throw new ProcessorOptionsError(`${this.node.path}.failover`, failoverProblem);
    const failoverMs = props.failover?.toMilliseconds() ?? DEFAULT_FAILOVER_MS;
    const cpu = props.cpu ?? 256;
    const memoryLimitMiB = props.memoryLimitMiB ?? 512;
    validateProcessorProps(this, props, { minTasks, maxTasks, failoverMs });
    const taskSize = fargateTaskSizeProblem(cpu, memoryLimitMiB);
    if (taskSize) throw new ProcessorOptionsError(`${this.node.path}.${taskSize.prop}`, taskSize.message);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const streamArn = props.table.tableStreamArn!;

    this.leaseTable = new TableV2(this, 'LeaseTable', {
      partitionKey: { name: LEASE_TABLE.partitionKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      // Losing the leases loses only checkpoints: the stream is replayed, as duplicates.
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
      encryption: props.encryptionKey ? TableEncryptionV2.customerManagedKey(props.encryptionKey) : TableEncryptionV2.dynamoOwnedKey(),
    });

    this.failedBatchBucket =
      props.failedBatchBucket ??
      failedBatchBucket(this, 'FailedBatches', {
        encryptionKey: props.encryptionKey,
        removalPolicy,
        logRetention: props.logRetention,
        writer: 'the processor task role',
      });

    const logRetention = props.logRetention ?? DEFAULT_LOG_RETENTION;
    const vpc = props.vpc ?? publicProcessorVpc(this, logRetention, removalPolicy);
    const cluster = new Cluster(this, 'Cluster', { vpc, containerInsightsV2: ContainerInsights.ENABLED });
    this.logGroup = new LogGroup(this, 'Logs', { retention: logRetention, removalPolicy });
    const task = new FargateTaskDefinition(this, 'Task', {
      cpu,
      memoryLimitMiB,
      runtimePlatform: { cpuArchitecture: CpuArchitecture.ARM64, operatingSystemFamily: OperatingSystemFamily.LINUX },
    });
    addProcessorContainer(task, {
      ...props,
      logGroup: this.logGroup,
      streamArn,
      leaseTable: this.leaseTable,
      failedBatchBucket: this.failedBatchBucket,
      failoverMs,
    });

    grantProcessorTask(task.taskRole, { ...props, leaseTable: this.leaseTable, failedBatchBucket: this.failedBatchBucket });

    this.service = new FargateService(this, 'Service', {
      cluster,
      taskDefinition: task,
      // No DesiredCount: CloudFormation would set it again on every update of the service (a new
      // image or config), scaling a service scaled out under load back in mid-deploy. ECS starts
      // the service with one task, and registering the scalable target raises it to minTasks.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { rollback: true },
      assignPublicIp: props.vpc === undefined,
      securityGroups: [
        new SecurityGroup(this, 'SecurityGroup', { vpc, allowAllOutbound: true, description: 'Outbox processor: outbound only' }),
      ],
      ...(props.vpc === undefined ? { vpcSubnets: { subnetType: SubnetType.PUBLIC } } : {}),
    });
    const scaling = this.service.autoScaleTaskCount({ minCapacity: minTasks, maxCapacity: maxTasks });
    scaling.scaleOnCpuUtilization('Cpu', { targetUtilizationPercent: 60 });

    acknowledgeProcessorContainer(task);
  }

  /**
   * The processor's lag: the largest now − `ApproximateCreationDateTime` of the oldest record of
   * each page its tasks published or failed to publish, in ms (EMF, flushed every 10 s per task),
   * for this deployment's lease table. Only busy shards report it; a shard that keeps failing to
   * publish reports it on every retry.
   *
   * @example
   * ```ts
   * new Alarm(this, 'Lag', { metric: processor.metricLag(), threshold: 30_000, evaluationPeriods: 3 });
   * ```
   */
  metricLag(props: MetricOptions = {}): Metric {
    return processorMetric(this.leaseTable.tableName, PROCESSOR_METRICS.lag, props);
  }

  /**
   * Records the processor gave up on and wrote to the failed-batch bucket (sum per period, 5
   * minutes by default): any is an alarm, as they were not published (`OutboxAlarms.addProcessor`
   * raises one). EMF, flushed every 10 s per task, for this deployment's lease table.
   *
   * @example
   * ```ts
   * new Alarm(this, 'GivenUp', { metric: processor.metricOnFailureRecords(), threshold: 1, evaluationPeriods: 1 });
   * ```
   */
  metricOnFailureRecords(props: MetricOptions = {}): Metric {
    return processorMetric(this.leaseTable.tableName, PROCESSOR_METRICS.onFailureRecords, props);
  }

  /**
   * Failed writes to the failed-batch bucket (sum per period, 5 minutes by default): while they
   * fail, the shard of the records given up on waits, so any is an alarm.
   *
   * @example
   * ```ts
   * new Alarm(this, 'BucketDown', { metric: processor.metricOnFailureWriteFailures(), threshold: 1, evaluationPeriods: 1 });
   * ```
   */
  metricOnFailureWriteFailures(props: MetricOptions = {}): Metric {
    return processorMetric(this.leaseTable.tableName, PROCESSOR_METRICS.onFailureWriteFailures, props);
  }

  /**
   * Tasks of the service in the RUNNING state (Container Insights, which the cluster turns on).
   *
   * @example
   * ```ts
   * new Alarm(this, 'Down', { metric: processor.metricRunningTaskCount(), threshold: 1, evaluationPeriods: 3, comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD });
   * ```
   */
  metricRunningTaskCount(props: MetricOptions = {}): Metric {
    return new Metric({
      namespace: 'ECS/ContainerInsights',
      metricName: 'RunningTaskCount',
      dimensionsMap: { ClusterName: this.service.cluster.clusterName, ServiceName: this.service.serviceName },
      statistic: 'Minimum',
      period: Duration.minutes(1),
      ...props,
    });
  }
}
