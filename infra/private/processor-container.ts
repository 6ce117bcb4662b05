import { Duration, Size, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { AwsLogDriver, AwsLogDriverMode, ContainerImage, type FargateTaskDefinition } from 'aws-cdk-lib/aws-ecs';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { type OutboxConfig, serializeRuntimeConfig } from '../../shared/config.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { PROCESSOR_METRICS } from '../../shared/processor/observability.js';
import { PROCESSOR_ENV } from '../../shared/processor/processor-env.js';
import { prebuiltAssetDir } from './assets.js';

const HEALTH_PORT = 8080;

/** What the processor's container runs and reaches: its environment names each resource. */
export interface ProcessorContainerProps {
  readonly config: OutboxConfig;
  /** Topic name (as in the config) → topic; holds every configured topic (checked by `validateProcessorProps`). */
  readonly topics: ReadonlyMap<string, ITopic>;
  readonly deadLetterQueue: IQueue;
  /** @default the processor this package ships prebuilt, as an arm64 image */
  readonly image?: ContainerImage | undefined;
  readonly logGroup: ILogGroup;
  readonly streamArn: string;
  readonly leaseTable: ITable;
  readonly failedBatchBucket: IBucket;
  readonly failoverMs: number;
}

/**
 * Adds the stream processor's container to its task: the environment `processorEnvironment`
 * reads, the health check, and a stop timeout long enough for the graceful hand-off.
 */
export function addProcessorContainer(task: FargateTaskDefinition, props: ProcessorContainerProps): void {
  const topicArns = Object.fromEntries(props.config.topics.map((t) => [t.name, props.topics.get(t.name)!.topicArn]));
  task.addContainer('Processor', {
    image:
      props.image ??
      // The processor ships prebuilt: the image copies its bundles, nothing is compiled in Docker.
      ContainerImage.fromAsset(prebuiltAssetDir('processor'), { platform: Platform.LINUX_ARM64 }),
    logging: new AwsLogDriver({
      logGroup: props.logGroup,
      streamPrefix: 'processor',
      // Stated, or the account's ECS setting decides (defaultLogDriverMode): in blocking mode a
      // CloudWatch Logs slowdown blocks the container's writes to stdout, and with them the
      // publishing. Non-blocking keeps publishing and buffers up to 25 MiB of lines (EMF metrics
      // among them), dropping lines only once that is full.
      mode: AwsLogDriverMode.NON_BLOCKING,
      maxBufferSize: Size.mebibytes(25),
    }),
    environment: {
      [RELAY_ENV.config]: serializeRuntimeConfig(props.config),
      [RELAY_ENV.topicArns]: Stack.of(task).toJsonString(topicArns),
      [RELAY_ENV.deadLetterQueueUrl]: props.deadLetterQueue.queueUrl,
      [PROCESSOR_ENV.streamArn]: props.streamArn,
      [PROCESSOR_ENV.leaseTable]: props.leaseTable.tableName,
      [PROCESSOR_ENV.failedBatchBucket]: props.failedBatchBucket.bucketName,
      [PROCESSOR_ENV.failoverMs]: String(props.failoverMs),
      [PROCESSOR_ENV.healthPort]: String(HEALTH_PORT),
      POWERTOOLS_SERVICE_NAME: PROCESSOR_METRICS.service,
      POWERTOOLS_METRICS_NAMESPACE: PROCESSOR_METRICS.namespace,
    },
    healthCheck: {
      command: ['CMD', 'node', 'health-check.mjs'],
      interval: Duration.seconds(10),
      timeout: Duration.seconds(3),
      retries: 3,
      startPeriod: Duration.seconds(20),
    },
    // SIGTERM first: the batch in flight is finished, checkpointed and the leases released. A
    // publish under retries can take several SDK attempts of up to 5 s each, so the Fargate
    // maximum: SIGKILL before the hand-off leaves the leases to expire and the batch to repeat.
    stopTimeout: Duration.seconds(120),
    readonlyRootFilesystem: true,
  });
}

/** The findings the container brings to its task, each with why it stands. */
export function acknowledgeProcessorContainer(task: FargateTaskDefinition): void {
  if (task.executionRole !== undefined) {
    Validations.of(task.executionRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ecr:GetAuthorizationToken, which pulls the image from ECR, supports no resource-level permissions; the rest is scoped to the repository and the log group.',
    });
  }
  Validations.of(task).acknowledge({
    id: 'AwsSolutions-ECS2',
    reason: 'The environment holds only non-secret settings (config JSON, ARNs, the queue URL, timings); no credentials or keys.',
  });
}
