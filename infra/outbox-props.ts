/**
 * The props of {@link Outbox} and the options of `Outbox.addSubscriber`: what an app may set, with
 * AWS's limits and the defaults, apart from the construct that builds from them.
 */

import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Tracing } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { OutboxConfig } from '../shared/config.js';
import type { ArchiveAlarmsOptions } from './archive-alarms.js';
import type { LowLatencyProcessorProps } from './low-latency-processor.js';
import type { OutboxArchiveProps } from './outbox-archive.js';
import type { OutboxSubscriberProps } from './subscriber-props.js';

/** Props of {@link Outbox}. */
export interface OutboxProps {
  /** The validated outbox config (`defineConfig`): topics, routes, low-latency types, relay tuning. */
  readonly config: OutboxConfig;
  /**
   * A relay handler file of your own, bundled at synthesis by the locally installed esbuild.
   * @default the relay this package ships prebuilt
   */
  readonly relayEntry?: string;
  /** Physical table name. @default a name CloudFormation generates */
  readonly tableName?: string;
  /**
   * One customer-managed key for the table, topics, queues and failed-batch bucket. A key defined
   * in the app gets a policy statement denying SNS the key for topics of other accounts or
   * regions (each subscription lets SNS use a queue's key, with no condition).
   * @default AWS-owned (table), AWS-managed (topics) and SQS-/S3-managed encryption
   */
  readonly encryptionKey?: IKey;
  /** What happens to the table, queues, buckets (emptied first with `DESTROY`), logs and keys when they leave the stack. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Table deletion protection. @default true */
  readonly deletionProtection?: boolean;
  /** Table point-in-time recovery. @default true */
  readonly pointInTimeRecovery?: boolean;
  /** The relay's memory in MB (AWS: 128–10,240). @default 512 */
  readonly relayMemorySize?: number;
  /**
   * The relay's timeout per batch.
   * @deprecated set `relay.timeoutSeconds` in the config, which the local runner applies too; a
   * value here that differs from it is refused.
   * @default Duration.seconds(config.relay.timeoutSeconds)
   */
  readonly relayTimeout?: Duration;
  /** X-Ray tracing of the relay. @default Tracing.ACTIVE */
  readonly relayTracing?: Tracing;
  /** How long function logs are kept. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Bucket for S3 server access logs of the failed-batch bucket. @default no access logs */
  readonly accessLogsBucket?: IBucket;
  /** How long the failed-batch bucket keeps a failed batch (whole days) before S3 expires it. @default Duration.days(90) */
  readonly failedBatchRetention?: Duration;
  /** Topic for alarm notifications. @default a new encrypted topic */
  readonly alarmTopic?: ITopic;
  /** Address subscribed to the alarm topic. @default no subscription */
  readonly alarmEmail?: string;
  /** Relay iterator age that raises an alarm (60 s–24 h; a token only as `Duration.millis`). @default Duration.minutes(1) */
  readonly iteratorAgeThreshold?: Duration;
  /** Processor lag that raises its alarm when held for three minutes (1 s–24 h; a token only as `Duration.millis`). @default Duration.seconds(30) */
  readonly processorLagThreshold?: Duration;
  /**
   * Settings of the low-latency stream processor, created when `config.lowLatencyAggregateTypes`
   * or `config.handoverAggregateTypes` is not empty. @default the processor's own defaults (its
   * image built at `cdk deploy` for linux/arm64 from the prebuilt bundles the package ships,
   * `dist/assets/processor`, which needs Docker; 2–4 tasks, 10 s failover)
   */
  readonly processor?: Pick<LowLatencyProcessorProps, 'image' | 'vpc' | 'minTasks' | 'maxTasks' | 'failover' | 'cpu' | 'memoryLimitMiB'>;
  /**
   * Settings of the event archive, created when the config has `archive` (its retention comes
   * from there). @default the archive's own defaults (the archiver shipped prebuilt, batches of
   * up to 10,000 messages gathered for up to 5 minutes, at most 2 at once, `ArchiveQueueAge` at 30 minutes)
   */
  readonly archive?: Pick<OutboxArchiveProps, 'entry' | 'batchSize' | 'maxBatchingWindow' | 'maxConcurrency' | 'memorySize' | 'timeout'> &
    ArchiveAlarmsOptions;
}

/** Props of {@link Outbox.addSubscriber}: a subscriber's props, with the topic named as in the config (the outbox's). */
export interface OutboxSubscriptionOptions extends Omit<OutboxSubscriberProps, 'topic' | 'config'> {
  /** Name of a topic of the outbox config, e.g. `orders.fifo`. */
  readonly topic: string;
  /**
   * Age of the queue's oldest message that raises its `<id>QueueAge` alarm (60 s to 14 days, and
   * below the queue's retention period, after which SQS deletes messages unread).
   * @default 1 hour, or half the retention period when that is shorter
   */
  readonly queueAgeThreshold?: Duration;
}
