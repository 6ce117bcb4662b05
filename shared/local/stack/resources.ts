import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { CreateTopicCommand, type SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { OutboxConfig } from '../../config.js';
import { ARCHIVE_DLQ_NAME, ARCHIVE_FIFO_DLQ_NAME, ARCHIVE_QUEUE_NAME, checkSubscriptions, RELAY_DLQ_NAME } from './options.js';
import type { OutboxTestSubscriber } from './test-stack-types.js';

/** A queue subscribed to one of the config's topics, as the CDK stack's `OutboxSubscriber` deploys it. */
export type LocalSubscription = Pick<OutboxTestSubscriber, 'name' | 'topic' | 'eventTypes' | 'aggregateTypes' | 'maxReceiveCount'>;

/** An SQS queue of the emulator. */
export interface LocalQueue {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
}

/** A subscription as created: its queue, its DLQ and whether it is FIFO. */
export interface CreatedSubscription {
  readonly subscription: LocalSubscription;
  readonly fifo: boolean;
  readonly queue: LocalQueue;
  readonly deadLetterQueue: LocalQueue;
}

/** The archive, when the config has one: the bucket, and the queue (with its DLQ) subscribed to every topic that the archiver reads. */
export interface LocalArchiveResources {
  readonly bucket: string;
  readonly queue: LocalQueue;
  /** Messages the archiver kept failing, and what SNS could not deliver from standard topics. */
  readonly deadLetterQueue: LocalQueue;
  /** What SNS could not deliver from FIFO topics (SNS takes only a FIFO DLQ there); only when the config has one. */
  readonly fifoDeadLetterQueue?: LocalQueue;
}

/** What {@link createLocalResources} made: the names and addresses the relay and the pollers need. */
export interface LocalResources {
  /** Topic name → topic ARN, as the relay reads it from `OUTBOX_TOPIC_ARNS`. */
  readonly topicArns: Readonly<Record<string, string>>;
  readonly relayDeadLetterQueue: LocalQueue;
  /** Bucket of the relay's and the stream processor's on-failure destination: full records of batches given up on. */
  readonly failedBatchBucket: string;
  readonly subscriptions: readonly CreatedSubscription[];
  /** The subscriber queues' visibility timeout, in seconds. */
  readonly visibilityTimeoutSeconds: number;
  /** The archive, when the config has one. */
  readonly archive?: LocalArchiveResources;
}

export interface LocalResourceOptions {
  readonly config: OutboxConfig;
  readonly subscriptions: readonly LocalSubscription[];
  /**
   * Visibility timeout of the subscriber queues, in seconds. Deployed queues use 6 × the
   * consumer's timeout (180 s); locally a failed message comes back sooner so retries and
   * dead-lettering show within a minute. @default 10
   */
  readonly visibilityTimeoutSeconds?: number;
}

export const FAILED_BATCH_BUCKET = 'outbox-failed-batches';
/** The archive bucket, when the config has an archive. */
export const ARCHIVE_BUCKET = 'outbox-archive';
/** The name the local relay goes by where a deployed one has its function's name: failed-batch records, metrics. */
export { LOCAL_RELAY_FUNCTION_NAME } from '../event-source/types.js';
export { ARCHIVE_DLQ_NAME, ARCHIVE_FIFO_DLQ_NAME, ARCHIVE_QUEUE_NAME, RELAY_DLQ_NAME };

const DEFAULT_MAX_RECEIVE_COUNT = 5;
const FOUR_DAYS = String(4 * 24 * 3600);
const FOURTEEN_DAYS = String(14 * 24 * 3600);

function filterPolicy(subscription: LocalSubscription): string | undefined {
  const policy: Record<string, string[]> = {};
  if (subscription.eventTypes !== undefined) policy.type = [...subscription.eventTypes];
  if (subscription.aggregateTypes !== undefined) policy.aggregatetype = [...subscription.aggregateTypes];
  return Object.keys(policy).length > 0 ? JSON.stringify(policy) : undefined;
}

/** The clients the resources are made with: the emulator's APIs, as a deployment's are. */
export interface ResourceClients {
  readonly sns: Pick<SNSClient, 'send'>;
  readonly sqs: Pick<SQSClient, 'send'>;
  readonly s3: Pick<S3Client, 'send'>;
}

/** Creates a queue and reads back its URL and ARN. */
async function createQueue(sqs: ResourceClients['sqs'], name: string, attributes: Record<string, string>): Promise<LocalQueue> {
  const { QueueUrl: url } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return { name, url: url as string, arn: Attributes?.QueueArn as string };
}

/**
 * Creates on the emulator what the CDK stack deploys for a config: one topic per config topic
 * (FIFO where configured, deduplicating by the relay's id, never by content), the relay DLQ,
 * the failed-batch bucket, and for each subscription a queue (FIFO on a FIFO topic) with a DLQ
 * after `maxReceiveCount` receives, subscribed with raw message delivery, its filter policy,
 * and the DLQ as the subscription's own dead-letter target. Everything is made through the SNS,
 * SQS and S3 APIs the clients reach.
 *
 * @example
 * ```ts
 * const resources = await createLocalResources(clients, { config, subscriptions: [{ name: 'billing', topic: 'orders.fifo' }] });
 * ```
 */
export async function createLocalResources(clients: ResourceClients, options: LocalResourceOptions): Promise<LocalResources> {
  const { config, subscriptions } = options;
  checkSubscriptions(config, subscriptions);
  const topicArns: Record<string, string> = {};
  for (const topic of config.topics) {
    const attributes: Record<string, string> = topic.fifo ? { FifoTopic: 'true', ContentBasedDeduplication: 'false' } : {};
    const { TopicArn } = await clients.sns.send(new CreateTopicCommand({ Name: topic.name, Attributes: attributes }));
    topicArns[topic.name] = TopicArn as string;
  }
  const relayDeadLetterQueue = await createQueue(clients.sqs, RELAY_DLQ_NAME, { MessageRetentionPeriod: FOURTEEN_DAYS });
  await clients.s3.send(new CreateBucketCommand({ Bucket: FAILED_BATCH_BUCKET }));
  const visibilityTimeoutSeconds = options.visibilityTimeoutSeconds ?? 10;
  const visibility = String(visibilityTimeoutSeconds);

  const created: CreatedSubscription[] = [];
  for (const subscription of subscriptions) {
    const fifo = config.topics.find((t) => t.name === subscription.topic)?.fifo === true;
    const suffix = fifo ? '.fifo' : '';
    const fifoAttributes: Record<string, string> = fifo ? { FifoQueue: 'true', ContentBasedDeduplication: 'false' } : {};
    const deadLetterQueue = await createQueue(clients.sqs, `${subscription.name}-dlq${suffix}`, {
      ...fifoAttributes,
      MessageRetentionPeriod: FOURTEEN_DAYS,
    });
    const queue = await createQueue(clients.sqs, `${subscription.name}${suffix}`, {
      ...fifoAttributes,
      MessageRetentionPeriod: FOUR_DAYS,
      VisibilityTimeout: visibility,
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: deadLetterQueue.arn,
        maxReceiveCount: String(subscription.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT),
      }),
    });
    const policy = filterPolicy(subscription);
    await clients.sns.send(
      new SubscribeCommand({
        TopicArn: topicArns[subscription.topic],
        Protocol: 'sqs',
        Endpoint: queue.arn,
        Attributes: {
          RawMessageDelivery: 'true',
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterQueue.arn }),
          ...(policy === undefined ? {} : { FilterPolicy: policy }),
        },
      }),
    );
    created.push({ subscription, fifo, queue, deadLetterQueue });
  }

  const archive = options.config.archive === undefined ? undefined : await createArchive(clients, config, topicArns, visibility);
  return {
    topicArns,
    relayDeadLetterQueue,
    failedBatchBucket: FAILED_BATCH_BUCKET,
    subscriptions: created,
    visibilityTimeoutSeconds,
    ...(archive === undefined ? {} : { archive }),
  };
}

/**
 * The archive as the CDK stack deploys it (`OutboxArchive`): a bucket, and a standard queue
 * (with a DLQ after {@link DEFAULT_MAX_RECEIVE_COUNT} receives) subscribed to every topic, FIFO
 * ones too, with raw message delivery and no filter, so it gets every message the relay and the
 * processor publish. A subscription's SNS dead-letter target is that DLQ for a standard topic and
 * a FIFO DLQ for a FIFO topic, the only kind SNS delivers a FIFO topic's messages to.
 */
async function createArchive(
  clients: ResourceClients,
  config: OutboxConfig,
  topicArns: Readonly<Record<string, string>>,
  visibility: string,
): Promise<LocalArchiveResources> {
  await clients.s3.send(new CreateBucketCommand({ Bucket: ARCHIVE_BUCKET }));
  const deadLetterQueue = await createQueue(clients.sqs, ARCHIVE_DLQ_NAME, { MessageRetentionPeriod: FOURTEEN_DAYS });
  const queue = await createQueue(clients.sqs, ARCHIVE_QUEUE_NAME, {
    MessageRetentionPeriod: FOURTEEN_DAYS,
    VisibilityTimeout: visibility,
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterQueue.arn, maxReceiveCount: String(DEFAULT_MAX_RECEIVE_COUNT) }),
  });
  const fifoDeadLetterQueue = config.topics.some((t) => t.fifo)
    ? await createQueue(clients.sqs, ARCHIVE_FIFO_DLQ_NAME, {
        FifoQueue: 'true',
        ContentBasedDeduplication: 'false',
        MessageRetentionPeriod: FOURTEEN_DAYS,
      })
    : undefined;
  for (const topic of config.topics) {
    const target = topic.fifo ? (fifoDeadLetterQueue as LocalQueue) : deadLetterQueue;
    await clients.sns.send(
      new SubscribeCommand({
        TopicArn: topicArns[topic.name],
        Protocol: 'sqs',
        Endpoint: queue.arn,
        Attributes: { RawMessageDelivery: 'true', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: target.arn }) },
      }),
    );
  }
  return { bucket: ARCHIVE_BUCKET, queue, deadLetterQueue, ...(fifoDeadLetterQueue === undefined ? {} : { fifoDeadLetterQueue }) };
}
