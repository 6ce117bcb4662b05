import { fileURLToPath } from 'node:url';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import type { OutboxConfig } from 'dynamodb-outbox';
import { Outbox, OutboxFunction } from 'dynamodb-outbox/cdk';
import { distinctIds } from '../../../infra/private/construct-ids.js';
import { ORDER_VIEW_LEADING_KEYS } from '../consumer/keys.js';

/** The example consumer of this repository, used when no `consumerEntry` is given. */
export const DEFAULT_CONSUMER_ENTRY = fileURLToPath(new URL('../consumer/handler.ts', import.meta.url));

/** Props of {@link OutboxStack}. */
export interface OutboxStackProps extends StackProps {
  /** The validated outbox config the stack is built from. */
  readonly config: OutboxConfig;
  /**
   * Keep the data (table, queues, bucket, logs, keys) when the stack is deleted, and protect the
   * table from deletion; `false` (a development stack) deletes them with the stack. @default true
   */
  readonly retainData?: boolean;
  /** Address subscribed to the alarm topic. @default no subscription */
  readonly alarmEmail?: string;
  /** Encrypt the table, topics, queues and bucket with one new KMS key (rotated yearly). @default false */
  readonly customerManagedKey?: boolean;
  /** The relay's handler file. @default this repository's `functions/relay/handler.ts` */
  readonly relayEntry?: string;
  /** The example consumer's handler file. @default this repository's `functions/example-consumer/handler.ts` */
  readonly consumerEntry?: string;
}

/** What the consumer helper does to its table: get, put, update, delete and condition checks in transactions. */
const EXAMPLE_CONSUMER_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
];

/** The variable `functions/example-consumer/handler.ts` reads its table name from. */
export const EXAMPLE_CONSUMER_TABLE_ENV = 'CONSUMER_TABLE_NAME';

/**
 * The repository's deployable app: one {@link Outbox} built from the config, the example
 * consumer (the order view, fed by `order.*` and `payment.*` events) subscribed through one
 * queue per topic, and the outputs a client or operator needs.
 *
 * @example
 * ```ts
 * new OutboxStack(app, 'DynamoDbOutbox', { config, alarmEmail: 'oncall@example.com' });
 * ```
 */
export class OutboxStack extends Stack {
  readonly outbox: Outbox;

  constructor(scope: Construct, id: string, props: OutboxStackProps) {
    super(scope, id, props);
    const { config } = props;
    const retain = props.retainData ?? true;
    const removalPolicy = retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const encryptionKey = props.customerManagedKey
      ? new Key(this, 'OutboxKey', {
          description: 'Encrypts the outbox table, topics, queues and failed batches',
          enableKeyRotation: true,
          removalPolicy,
        })
      : undefined;

    this.outbox = new Outbox(this, 'Outbox', {
      config,
      relayEntry: props.relayEntry,
      encryptionKey,
      removalPolicy,
      deletionProtection: retain,
      alarmEmail: props.alarmEmail,
    });
    // The order view and its inbox records live in the outbox table, as in the local stack.
    const consumer = new OutboxFunction(this, 'ExampleConsumer', {
      entry: props.consumerEntry ?? DEFAULT_CONSUMER_ENTRY,
      description: 'Example consumer: keeps the order view from outbox events',
      serviceName: 'example-consumer',
      environment: { [EXAMPLE_CONSUMER_TABLE_ENV]: this.outbox.table.tableName },
      removalPolicy,
    }).function;
    // Exactly the item actions of the consumer helper (inbox transaction, view updates); the stock
    // grantReadWriteData would add Scan, batch actions and, with a key, wildcard KMS actions.
    // Only on its own items: the table also holds the outbox slots, which the relay publishes.
    consumer.addToRolePolicy(
      new PolicyStatement({
        actions: EXAMPLE_CONSUMER_TABLE_ACTIONS,
        resources: [this.outbox.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...ORDER_VIEW_LEADING_KEYS] } },
      }),
    );
    encryptionKey?.grant(consumer, 'kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey');
    // Names that differ only in punctuation or case (orders.fifo, orders_fifo) would share ids.
    const suffixes = distinctIds(
      config.topics.map((topic) => topic.name),
      outputSuffix,
    );
    const subscribers = config.topics.map((topic, i) => ({
      topic: topic.name,
      suffix: suffixes[i]!,
      subscriber: this.outbox.addSubscriber(`ExampleConsumer${suffixes[i]}`, { topic: topic.name, consumer }),
    }));

    new CfnOutput(this, 'TableName', { value: this.outbox.table.tableName, description: 'The outbox table' });
    for (const { topic, suffix } of subscribers) {
      new CfnOutput(this, `TopicArn${suffix}`, {
        value: this.outbox.topics.topics.get(topic)!.topicArn,
        description: `ARN of the outbox topic ${topic}`,
      });
    }
    for (const { topic, suffix, subscriber } of subscribers) {
      new CfnOutput(this, `ExampleConsumerQueueUrl${suffix}`, {
        value: subscriber.queue.queueUrl,
        description: `Example consumer queue on ${topic}`,
      });
      new CfnOutput(this, `ExampleConsumerDeadLetterQueueUrl${suffix}`, {
        value: subscriber.deadLetterQueue.queueUrl,
        description: `DLQ of the example consumer queue on ${topic}`,
      });
    }
    new CfnOutput(this, 'RelayDeadLetterQueueUrl', {
      value: this.outbox.relay.deadLetterQueue.queueUrl,
      description: 'Events the relay could never publish',
    });
    new CfnOutput(this, 'FailedBatchBucketName', {
      value: this.outbox.relay.failedBatchBucket.bucketName,
      description: 'Full stream records of batches that exhausted their retries',
    });
    const archiveBucket = this.outbox.archiveBucket;
    if (archiveBucket !== undefined) {
      new CfnOutput(this, 'ArchiveBucketName', {
        value: archiveBucket.bucketName,
        description: 'Every published event, for dynamodb-outbox replay (--bucket)',
      });
    }
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.outbox.alarms.alarmTopic.topicArn,
      description: 'Subscribe here to receive outbox alarms',
    });
  }
}

/** `orders.fifo` → `OrdersFifo`: output ids allow only letters and digits (see `distinctIds` for names that collide). */
function outputSuffix(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
