import { Annotations, ArnFormat, Duration, Names, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Alias, type CfnFunction, type IFunction, Function as LambdaFunction, Version } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { type ITopic, type Subscription, SubscriptionFilter, Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { DeduplicationScope, FifoThroughputLimit, type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_FUNCTION_TIMEOUT, OutboxFunction } from './outbox-function.js';
import { OutboxTopics } from './outbox-topics.js';
import { SQS_MAX_RETENTION } from './private/retention.js';
import { checkSubscriberConfig, validateSubscriberProps } from './private/subscriber-checks.js';
import { checkQueueVisibility, minVisibilityTimeoutSeconds } from './private/visibility-timeout.js';
import { DEFAULT_QUEUE_RETENTION, type OutboxSubscriberProps } from './subscriber-props.js';

export type { OutboxSubscriberProps } from './subscriber-props.js';

/** Lambda's timeout of a function created without one. */
const LAMBDA_DEFAULT_TIMEOUT = Duration.seconds(3);

/** The most an SQS event source's maxConcurrency can be. */
const MAX_EVENT_SOURCE_CONCURRENCY = 1_000;

/**
 * The timeout of an existing consumer when this app defines it: a `Function`'s (`undefined` when
 * it sets none), an alias's or version's function's; `unknown` for an imported function.
 */
function consumerOwnTimeout(consumer: IFunction | undefined): Duration | undefined | 'unknown' {
  if (consumer === undefined) return undefined;
  const fn = consumer instanceof Alias ? consumer.version.lambda : consumer instanceof Version ? consumer.lambda : consumer;
  return fn instanceof LambdaFunction ? fn.timeout : 'unknown';
}

/** The name `topic` has in the outbox config, when it is a topic of an {@link OutboxTopics} (an `Outbox`'s or the app's own). */
function configTopicName(topic: ITopic): string | undefined {
  const owner = topic.node.scope;
  return owner instanceof OutboxTopics && owner.topics.get(topic.node.id) === topic ? topic.node.id : undefined;
}

/**
 * An SQS subscriber of an outbox topic: a queue (a new one FIFO on a FIFO topic) with raw message delivery
 * (the body is the CloudEvents envelope, the attributes `type` and `aggregatetype`), an optional
 * filter policy on those attributes, a DLQ that takes both messages the consumer keeps failing
 * and messages SNS could not deliver, and optionally a consumer Lambda that reports batch item
 * failures. Given the outbox `config`, the filter is checked against it at synth, as
 * `Outbox.addSubscriber` checks it: an event type or aggregate type no event on the topic can
 * carry is refused, before the subscriber joins the tree.
 *
 * @example
 * ```ts
 * new OutboxSubscriber(this, 'Billing', {
 *   topic: outbox.topics.topic('orders.fifo'),
 *   config,
 *   eventTypes: ['order.placed'],
 *   consumerEntry: 'functions/billing/handler.ts',
 * });
 * ```
 */
export class OutboxSubscriber extends Construct {
  readonly topic: ITopic;
  readonly queue: IQueue;
  /** Takes messages the consumer kept failing and messages SNS could not deliver. */
  readonly deadLetterQueue: Queue;
  readonly subscription: Subscription;
  /** The Lambda fed by the queue, when there is one. */
  readonly consumer?: IFunction;

  constructor(scope: Construct, id: string, props: OutboxSubscriberProps) {
    // Checked before the subscriber joins the tree, so a refused one leaves nothing behind.
    checkSubscriberConfig([scope.node.path, id].filter((part) => part !== '').join('/'), props, configTopicName(props.topic));
    super(scope, id);
    const { topic } = props;
    this.topic = topic;
    const fifo = topic.fifo;
    const ownTimeout = consumerOwnTimeout(props.consumer);
    const consumerTimeout = props.consumerTimeout ?? (ownTimeout === 'unknown' ? undefined : ownTimeout) ?? DEFAULT_FUNCTION_TIMEOUT;
    const window = props.maxBatchingWindow ?? Duration.seconds(0);
    validateSubscriberProps(this.node.path, props, fifo, consumerTimeout, window, ownTimeout);
    const hasConsumer = props.consumerEntry !== undefined || props.consumer !== undefined;
    // An existing function of the app without a timeout runs with Lambda's 3 s (a new queue is sized for 30 s all the same).
    const runTimeout =
      props.consumer !== undefined && props.consumerTimeout === undefined && ownTimeout === undefined
        ? LAMBDA_DEFAULT_TIMEOUT
        : consumerTimeout;
    const short = hasConsumer && props.queue !== undefined && checkQueueVisibility(this.node.path, props.queue, runTimeout, window);
    if (short) {
      Annotations.of(this).addWarningV2(
        'dynamodb-outbox:queue-visibility-below-advice',
        `the visibility timeout of ${props.queue!.node.path} is ${short.seconds} s, below the ${short.advised} s AWS advises (6 × the consumer timeout + the batching window): a message of a batch the consumer is still on, or one Lambda was throttled on, may be received again (the consumer's inbox drops the duplicate) and counted towards the DLQ sooner`,
      );
    }
    if (fifo && props.queue !== undefined && !props.queue.fifo) {
      Annotations.of(this).addWarningV2(
        'dynamodb-outbox:standard-queue-on-fifo-topic',
        `the standard queue ${props.queue.node.path} on the FIFO topic ${topic.node.path} gets each message without the message group or deduplication: each aggregate's events may arrive out of order and more than once (the consumer's inbox drops the duplicates); give a FIFO queue to keep the order${
          // Imported (no CfnQueue of its own) by an ARN that is a token: CDK cannot tell a FIFO queue from it.
          props.queue.node.defaultChild === undefined && Token.isUnresolved(props.queue.queueArn)
            ? '. Its ARN is known only at deploy time, so it is taken for standard: if it is a FIFO queue, import it with Queue.fromQueueAttributes({ queueArn, fifo: true }), which also holds batchSize to 10 and refuses maxBatchingWindow, as Lambda does for FIFO queues'
            : ''
        }`,
      );
    }
    // Retained as every other stateful resource of the outbox: the DLQ holds the events the consumer
    // kept failing and those SNS could not deliver, which deleting it would lose.
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const encryption = {
      encryption: props.encryptionKey ? QueueEncryption.KMS : QueueEncryption.SQS_MANAGED,
      encryptionMasterKey: props.encryptionKey,
      enforceSSL: true,
      removalPolicy,
      // SNS passes the relay's MessageDeduplicationId (the event id) through, so content never decides.
      ...(fifo ? { fifo: true, contentBasedDeduplication: false } : {}),
    };

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', { ...encryption, retentionPeriod: SQS_MAX_RETENTION });
    this.queue =
      props.queue ??
      new Queue(this, 'Queue', {
        ...encryption,
        ...(fifo
          ? { deduplicationScope: DeduplicationScope.MESSAGE_GROUP, fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID }
          : {}),
        retentionPeriod: props.retentionPeriod ?? DEFAULT_QUEUE_RETENTION,
        visibilityTimeout: props.visibilityTimeout ?? Duration.seconds(minVisibilityTimeoutSeconds(consumerTimeout, window)),
        deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 5 },
      });

    this.subscription = topic.addSubscription(
      new SqsSubscription(this.queue, {
        rawMessageDelivery: true,
        deadLetterQueue: this.deadLetterQueue,
        filterPolicy: this.filterPolicy(props),
      }),
    );
    if (props.encryptionKey) this.allowSnsToUseDeadLetterKey(props.encryptionKey);

    this.consumer =
      props.consumerEntry === undefined
        ? props.consumer
        : new OutboxFunction(this, 'Consumer', {
            entry: props.consumerEntry,
            description: `Consumes outbox events from ${topic.node.path}`,
            serviceName: id,
            timeout: consumerTimeout,
            memorySize: props.consumerMemorySize,
            environment: props.consumerEnvironment,
            logRetention: props.logRetention,
            removalPolicy,
          }).function;
    const reserved = props.reservedConcurrency;
    if (reserved !== undefined && this.consumer instanceof LambdaFunction) {
      // The function is this construct's own (consumerEntry); OutboxFunction takes no reservation.
      (this.consumer.node.defaultChild as CfnFunction).reservedConcurrentExecutions = reserved;
    }
    if (this.consumer) {
      const eventSource = new SqsEventSource(this.queue, {
        batchSize: props.batchSize ?? 10,
        // On a FIFO queue the window is 0 (validated): CDK refuses any window there, even that.
        maxBatchingWindow: this.queue.fifo ? undefined : props.maxBatchingWindow,
        // Bounded by the reservation, which the event source does not count: beyond it, Lambda throttles.
        maxConcurrency:
          props.maxConcurrency ??
          (reserved === undefined || Token.isUnresolved(reserved) ? undefined : Math.min(reserved, MAX_EVENT_SOURCE_CONCURRENCY)),
        reportBatchItemFailures: true,
      });
      this.consumer.addEventSource(eventSource);
      const mapping = this.consumer.node.tryFindChild(`SqsEventSource:${Names.nodeUniqueId(this.queue.node)}`) ?? this.consumer;
      Validations.of(mapping).acknowledge({
        id: 'Serverless-LambdaEventSourceMappingDestination',
        reason:
          'SQS event source mappings take no on-failure destination: a message that keeps failing moves to the queue DLQ through its redrive policy (maxReceiveCount).',
      });
    }

    const dlqReason = `This queue is itself a dead-letter queue (${props.queue === undefined ? 'of the subscriber queue and ' : ''}of the SNS subscription); a further DLQ would only hide messages.`;
    Validations.of(this.deadLetterQueue).acknowledge(
      { id: 'AwsSolutions-SQS3', reason: dlqReason },
      { id: 'Serverless-SQSRedrivePolicy', reason: dlqReason },
    );
  }

  /**
   * Lets a principal receive, delete and change the visibility of the queue's messages.
   *
   * @example
   * ```ts
   * subscriber.grantConsumeMessages(containerTaskRole);
   * ```
   */
  grantConsumeMessages(grantee: IGrantable) {
    return this.queue.grantConsumeMessages(grantee);
  }

  /**
   * SNS itself sends undeliverable messages to the DLQ, so it needs the DLQ's key (`kms:GenerateDataKey`
   * and `kms:Decrypt`), for this topic only; `SqsSubscription` grants it only the subscribed
   * queue's key, which is enough when that queue has the DLQ's key. Naming a topic that this very
   * key encrypts would make key and topic depend on each other (a cycle CloudFormation refuses),
   * so for such a topic the grant is confined to topics of its account and region instead.
   */
  private allowSnsToUseDeadLetterKey(key: IKey): void {
    if (this.queue.encryptionMasterKey === key) return;
    const topic = this.topic;
    const keyEncryptsTopic = topic instanceof Topic && topic.masterKey === key;
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('sns.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: ['*'],
        conditions: keyEncryptsTopic
          ? {
              ArnLike: {
                'aws:SourceArn': Stack.of(topic).formatArn({ service: 'sns', resource: '*', arnFormat: ArnFormat.NO_RESOURCE_NAME }),
              },
            }
          : { ArnEquals: { 'aws:SourceArn': topic.topicArn } },
      }),
    );
  }

  private filterPolicy(props: OutboxSubscriberProps): Record<string, SubscriptionFilter> | undefined {
    const policy: Record<string, SubscriptionFilter> = {};
    if (props.eventTypes) policy.type = SubscriptionFilter.stringFilter({ allowlist: [...props.eventTypes] });
    if (props.aggregateTypes) policy.aggregatetype = SubscriptionFilter.stringFilter({ allowlist: [...props.aggregateTypes] });
    return Object.keys(policy).length > 0 ? policy : undefined;
  }
}
