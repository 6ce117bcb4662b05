import { fileURLToPath } from 'node:url';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import type { OutboxConfig } from '../shared/config.js';
import { Outbox } from './outbox.js';
import { OutboxPropsError } from './props-error.js';

/** The example consumer of this repository, used when no `consumerEntry` is given. */
export const DEFAULT_CONSUMER_ENTRY = fileURLToPath(new URL('../functions/example-consumer/handler.ts', import.meta.url));

/** Props of {@link OutboxStack}. */
export interface OutboxStackProps extends StackProps {
  /** The validated outbox config the stack is built from. */
  readonly config: OutboxConfig;
  /** Keep the data (table, queues, bucket, logs, keys) when the stack is deleted, and protect the table. @default false */
  readonly retainData?: boolean;
  /** Address subscribed to the alarm topic. @default no subscription */
  readonly alarmEmail?: string;
  /** Encrypt the table, topics, queues and bucket with one new KMS key (rotated yearly). @default false */
  readonly customerManagedKey?: boolean;
  /** The relay's handler file. @default this repository's `functions/relay/handler.ts` */
  readonly relayEntry?: string;
  /** The example consumer's handler file. @default this repository's `functions/example-consumer/handler.ts` */
  readonly consumerEntry?: string;
  /** Topic of the config the example consumer subscribes to. @default the config's first topic */
  readonly consumerTopic?: string;
}

/**
 * The repository's deployable app: one {@link Outbox} built from the config, the example
 * consumer subscribed to one of its topics, and the outputs a client or operator needs.
 *
 * @example
 * ```ts
 * new OutboxStack(app, 'DynamoDbOutbox', { config, retainData: true, alarmEmail: 'oncall@example.com' });
 * ```
 */
export class OutboxStack extends Stack {
  readonly outbox: Outbox;

  constructor(scope: Construct, id: string, props: OutboxStackProps) {
    super(scope, id, props);
    const { config } = props;
    const retain = props.retainData ?? false;
    const removalPolicy = retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const consumerTopic = props.consumerTopic ?? config.topics[0]?.name;
    if (consumerTopic === undefined) {
      throw new OutboxPropsError(
        this.node.path,
        'config',
        'has no topics; allowed: a config from defineConfig, which requires at least one',
      );
    }
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
    const consumer = this.outbox.addSubscriber('ExampleConsumer', {
      topic: consumerTopic,
      consumerEntry: props.consumerEntry ?? DEFAULT_CONSUMER_ENTRY,
    });

    new CfnOutput(this, 'TableName', { value: this.outbox.table.tableName, description: 'The outbox table' });
    for (const [name, topic] of this.outbox.topics.topics) {
      new CfnOutput(this, `TopicArn${outputSuffix(name)}`, { value: topic.topicArn, description: `ARN of the outbox topic ${name}` });
    }
    new CfnOutput(this, 'ExampleConsumerQueueUrl', {
      value: consumer.queue.queueUrl,
      description: `Queue of the example consumer on ${consumerTopic}`,
    });
    new CfnOutput(this, 'ExampleConsumerDeadLetterQueueUrl', {
      value: consumer.deadLetterQueue.queueUrl,
      description: 'DLQ of the example consumer',
    });
    new CfnOutput(this, 'RelayDeadLetterQueueUrl', {
      value: this.outbox.relay.deadLetterQueue.queueUrl,
      description: 'Events the relay could never publish',
    });
    new CfnOutput(this, 'FailedBatchBucketName', {
      value: this.outbox.relay.failedBatchBucket.bucketName,
      description: 'Full stream records of batches that exhausted their retries',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.outbox.alarms.alarmTopic.topicArn,
      description: 'Subscribe here to receive outbox alarms',
    });
  }
}

/** `orders.fifo` → `OrdersFifo`: output ids allow only letters and digits. */
function outputSuffix(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
