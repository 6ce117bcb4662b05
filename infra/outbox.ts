import { RemovalPolicy } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { OutboxConfig } from '../shared/config.js';
import { addArchiveAlarms } from './archive-alarms.js';
import { LowLatencyProcessor } from './low-latency-processor.js';
import { checkProcessorLagThreshold } from './outbox-alarm-specs.js';
import { OutboxAlarms } from './outbox-alarms.js';
import { OutboxArchive } from './outbox-archive.js';
import type { OutboxProps, OutboxSubscriptionOptions } from './outbox-props.js';
import { OutboxSubscriber } from './outbox-subscriber.js';
import { OutboxTable } from './outbox-table.js';
import { OutboxTopics } from './outbox-topics.js';
import { checkDeployedConfig, propsConfig } from './private/config-check.js';
import { OutboxPropsError } from './private/props-error.js';
import { checkRelayTimeout } from './private/relay-props.js';
import { restrictSnsKeyUse } from './private/sns-key-policy.js';
import { queueAgeThreshold } from './private/subscriber-checks.js';
import { RelayFunction } from './relay-function.js';

export type { OutboxProps, OutboxSubscriptionOptions } from './outbox-props.js';

/**
 * The whole transactional outbox in one construct: the table, the topics of the config, the
 * Lambda relay with its event source mapping, relay DLQ and failed-batch bucket, and alarms with
 * a dashboard. Subscribers are added by topic name; their DLQs, and the age of their queues'
 * oldest messages, are watched too.
 *
 * When the config names low-latency aggregate types (which the Lambda's filter leaves out), a
 * {@link LowLatencyProcessor} reads the same stream and publishes them to the same topics,
 * with the same relay DLQ: `processor`.
 *
 * @example
 * ```ts
 * const outbox = new Outbox(this, 'Outbox', { config, alarmEmail: 'oncall@example.com' });
 * const billing = outbox.addSubscriber('Billing', {
 *   topic: 'orders.fifo',
 *   eventTypes: ['order.placed'],
 *   consumerEntry: 'functions/billing/handler.ts',
 *   consumerEnvironment: { TABLE_NAME: outbox.table.tableName },
 * });
 * outbox.table.grantReadWriteData(billing.consumer!);
 * outbox.table.grantReadWriteData(apiFunction);
 * ```
 */
export class Outbox extends Construct {
  readonly config: OutboxConfig;
  readonly table: TableV2;
  readonly topics: OutboxTopics;
  readonly relay: RelayFunction;
  readonly alarms: OutboxAlarms;
  /** The low-latency stream processor; only when the config names low-latency or handed-over aggregate types. */
  readonly processor?: LowLatencyProcessor;
  /** The event archive (bucket, archive queue, archiver); only when the config has `archive`. */
  readonly archive?: OutboxArchive;
  private readonly subscriberMap = new Map<string, OutboxSubscriber>();
  private readonly props: OutboxProps;
  private readonly removalPolicy: RemovalPolicy;

  constructor(scope: Construct, id: string, props: OutboxProps) {
    super(scope, id);
    props = { ...props, config: propsConfig(this.node.path, props.config) };
    this.props = props;
    this.config = props.config;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.removalPolicy = removalPolicy;
    checkDeployedConfig(this.node.path, props.config);
    checkProcessorLagThreshold(this.node.path, 'processorLagThreshold', props.processorLagThreshold);
    checkRelayTimeout(this.node.path, 'relayTimeout', props.relayTimeout, props.config);
    if (props.encryptionKey) restrictSnsKeyUse(this, props.encryptionKey);
    this.table = new OutboxTable(this, 'Table', {
      tableName: props.tableName,
      encryptionKey: props.encryptionKey,
      removalPolicy,
      deletionProtection: props.deletionProtection,
      pointInTimeRecovery: props.pointInTimeRecovery,
    }).table;
    this.topics = new OutboxTopics(this, 'Topics', { config: props.config, encryptionKey: props.encryptionKey });
    this.relay = new RelayFunction(this, 'Relay', {
      config: props.config,
      table: this.table,
      topics: this.topics,
      entry: props.relayEntry,
      memorySize: props.relayMemorySize,
      timeout: props.relayTimeout,
      tracing: props.relayTracing,
      encryptionKey: props.encryptionKey,
      removalPolicy,
      logRetention: props.logRetention,
      accessLogsBucket: props.accessLogsBucket,
      failedBatchRetention: props.failedBatchRetention,
    });
    this.alarms = new OutboxAlarms(this, 'Alarms', {
      relayFunction: this.relay.function,
      relayEventSourceMappingId: this.relay.eventSource.eventSourceMappingId,
      topics: [...this.topics.topics.values()],
      alarmTopic: props.alarmTopic,
      alarmEmail: props.alarmEmail,
      iteratorAgeThreshold: props.iteratorAgeThreshold,
      removalPolicy,
      config: props.config,
    });
    this.alarms.addDeadLetterQueue('RelayDeadLetterQueue', this.relay.deadLetterQueue);
    if (LowLatencyProcessor.isEnabled(props.config)) {
      this.processor = new LowLatencyProcessor(this, 'Processor', {
        ...props.processor,
        config: props.config,
        table: this.table,
        topics: this.topics.topics,
        deadLetterQueue: this.relay.deadLetterQueue,
        // One failed-batch bucket for both paths: one place to look, one redrive.
        failedBatchBucket: this.relay.failedBatchBucket,
        grantRelay: (grantee) => this.grantRelay(grantee),
        encryptionKey: props.encryptionKey,
        removalPolicy,
        ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      });
      this.alarms.addProcessor(this.processor, { lagThreshold: props.processorLagThreshold });
    }
    if (props.config.archive !== undefined) {
      const { queueAgeThreshold, ...archiveProps } = props.archive ?? {};
      this.archive = new OutboxArchive(this, 'Archive', {
        ...archiveProps,
        config: props.config,
        topics: this.topics.topics,
        encryptionKey: props.encryptionKey,
        removalPolicy,
        logRetention: props.logRetention,
        tracing: props.relayTracing,
        accessLogsBucket: props.accessLogsBucket,
      });
      addArchiveAlarms(this.alarms, this.archive, { queueAgeThreshold });
    }
  }

  /** The archive bucket `dynamodb-outbox replay` reads; only when the config has `archive`. */
  get archiveBucket(): IBucket | undefined {
    return this.archive?.bucket;
  }

  /**
   * Lets a principal run `dynamodb-outbox replay` from this outbox's archive (list and read the
   * archive's objects, and decrypt them), and, given a target queue, send to it. Throws when the
   * config has no `archive`.
   *
   * @example
   * ```ts
   * outbox.grantReplay(operatorRole, shipping.queue);
   * ```
   */
  grantReplay(grantee: IGrantable, target?: IQueue): void {
    if (this.archive === undefined) {
      throw new OutboxPropsError(
        this.node.path,
        'config',
        'has no archive setting, so there is nothing to replay; allowed: a config with archive: { retentionDays }',
      );
    }
    this.archive.grantReplay(grantee, target);
  }

  /** The environment any relay of this outbox runs with (config, topic ARNs, DLQ URL). */
  get relayEnvironment(): Readonly<Record<string, string>> {
    return this.relay.environment;
  }

  /** Subscribers added so far, by id. */
  get subscribers(): ReadonlyMap<string, OutboxSubscriber> {
    return this.subscriberMap;
  }

  /**
   * Subscribes a new queue (and optionally a consumer Lambda) to a topic of the config, with the
   * outbox's key, removal policy and log retention, and raises an alarm on its DLQ. Throws when
   * the config has no such topic, or the filter lets nothing of it through (the subscriber checks
   * it against the outbox's config).
   *
   * @example
   * ```ts
   * outbox.addSubscriber('Shipping', { topic: 'orders.fifo', aggregateTypes: ['order'], consumerEntry: 'functions/shipping/handler.ts' });
   * ```
   */
  addSubscriber(id: string, options: OutboxSubscriptionOptions): OutboxSubscriber {
    const { topic, queueAgeThreshold: ageThreshold, ...rest } = options;
    const taken = this.node.tryFindChild(id);
    if (taken !== undefined) {
      const what = this.subscriberMap.has(id) ? 'another subscriber' : `the outbox's own ${taken.node.path}`;
      throw new OutboxPropsError(
        `${this.node.path}/${id}`,
        'id',
        `is "${id}", already the id of ${what}; allowed: an id not yet used in ${this.node.path} (taken: ${this.node.children.map((c) => c.node.id).join(', ')})`,
      );
    }
    // `??`, not a spread over the defaults: an option given as undefined keeps the outbox's.
    const subscriber = new OutboxSubscriber(this, id, {
      ...rest,
      encryptionKey: rest.encryptionKey ?? this.props.encryptionKey,
      removalPolicy: rest.removalPolicy ?? this.removalPolicy,
      // Only a consumer the subscriber creates has logs of its own: the subscriber refuses it otherwise.
      logRetention: rest.consumerEntry === undefined ? rest.logRetention : (rest.logRetention ?? this.props.logRetention),
      topic: this.topics.topic(topic),
      // The subscriber checks its filter against it: a type or aggregate type the topic never carries is refused.
      config: this.config,
    });
    this.subscriberMap.set(id, subscriber);
    this.alarms.addDeadLetterQueue(`${id}DeadLetterQueue`, subscriber.deadLetterQueue);
    this.alarms.addQueueAge(`${id}Queue`, subscriber.queue, queueAgeThreshold(subscriber.node.path, options, ageThreshold));
    return subscriber;
  }

  /**
   * Grants what any relay of this outbox needs, and only that: read the table's stream, publish
   * to the outbox topics, send to the relay DLQ.
   *
   * @example
   * ```ts
   * outbox.grantRelay(processorTaskDefinition.taskRole);
   * ```
   */
  grantRelay(grantee: IGrantable): void {
    this.table.grantStreamRead(grantee);
    this.topics.grantPublish(grantee);
    this.relay.grantSendDeadLetters(grantee);
  }
}
