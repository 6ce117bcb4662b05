import { AnyPrincipal, Effect, type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Alias, type IKey } from 'aws-cdk-lib/aws-kms';
import { FifoThroughputScope, type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { OutboxConfig } from '../shared/config.js';
import { OutboxPropsError } from './private/props-error.js';

/** The actions of SNS's default topic policy other than `sns:Publish`. */
const NON_PUBLISH_TOPIC_ACTIONS = [
  'sns:Subscribe',
  'sns:ListSubscriptionsByTopic',
  'sns:GetTopicAttributes',
  'sns:SetTopicAttributes',
  'sns:AddPermission',
  'sns:RemovePermission',
  'sns:DeleteTopic',
];

const MAX_DISPLAY_NAME_LENGTH = 100;

/** Props of {@link OutboxTopics}. */
export interface OutboxTopicsProps {
  /** The validated outbox config (`defineConfig`); one topic is created per `config.topics` entry. */
  readonly config: OutboxConfig;
  /** Customer-managed key for server-side encryption. @default the AWS-managed key `alias/aws/sns` */
  readonly encryptionKey?: IKey;
}

/**
 * The outbox's SNS topics, one per topic in the config: encrypted at rest, reachable only over
 * TLS (the topic policy denies `aws:SecureTransport = false`), FIFO where the config says so.
 * A FIFO topic deduplicates by the `MessageDeduplicationId` the relay sets (the event id), never
 * by content, and scopes throughput and deduplication to the message group (one per aggregate).
 *
 * @example
 * ```ts
 * const topics = new OutboxTopics(this, 'Topics', { config });
 * topics.grantPublish(relayFunction);
 * new OutboxSubscriber(this, 'Billing', { topic: topics.topic('orders.fifo') });
 * ```
 */
export class OutboxTopics extends Construct {
  /** Config topic name → topic, in config order. */
  readonly topics: ReadonlyMap<string, Topic>;
  readonly encryptionKey: IKey;
  private readonly customerKey?: IKey;

  constructor(scope: Construct, id: string, props: OutboxTopicsProps) {
    super(scope, id);
    this.customerKey = props.encryptionKey;
    // The id has a character no topic name may have, so no topic's construct can collide with it.
    this.encryptionKey = props.encryptionKey ?? Alias.fromAliasName(this, 'Key:aws-sns', 'alias/aws/sns');
    const topics = new Map<string, Topic>();
    for (const { name, fifo } of props.config.topics) {
      // Config names may contain "." which construct ids and generated physical names handle fine.
      const topic = new Topic(this, name, {
        // SNS takes display names of at most 100 characters; topic names go up to 256.
        displayName: `Outbox ${name}`.slice(0, MAX_DISPLAY_NAME_LENGTH),
        fifo,
        contentBasedDeduplication: fifo ? false : undefined,
        fifoThroughputScope: fifo ? FifoThroughputScope.MESSAGE_GROUP : undefined,
        masterKey: this.encryptionKey,
        enforceSSL: true,
      });
      // enforceSSL covers only sns:Publish; the rest of what a topic policy can grant is denied over plain HTTP too.
      topic.addToResourcePolicy(
        new PolicyStatement({
          sid: 'DenyNonTlsAccess',
          effect: Effect.DENY,
          principals: [new AnyPrincipal()],
          actions: NON_PUBLISH_TOPIC_ACTIONS,
          resources: [topic.topicArn],
          conditions: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
      topics.set(name, topic);
    }
    this.topics = topics;
  }

  /**
   * The topic a config topic name stands for. Throws when the config has no such topic.
   *
   * @example
   * ```ts
   * new OutboxSubscriber(this, 'Shipping', { topic: topics.topic('orders.fifo') });
   * ```
   */
  topic(name: string): ITopic {
    const topic = this.topics.get(name);
    if (!topic) {
      const known = [...this.topics.keys()].map((n) => JSON.stringify(n)).join(', ');
      throw new OutboxPropsError(this.node.path, 'topic', `${JSON.stringify(name)} is not a topic of the outbox config; allowed: ${known}`);
    }
    return topic;
  }

  /** Config topic name → topic ARN, as the relay reads it from `OUTBOX_TOPIC_ARNS`. */
  topicArns(): Record<string, string> {
    return Object.fromEntries([...this.topics].map(([name, topic]) => [name, topic.topicArn]));
  }

  /**
   * Lets a principal publish to every outbox topic and nothing else: `sns:Publish` (which also
   * authorises `PublishBatch`) on exactly these topic ARNs, plus the two KMS actions SNS needs
   * from a publisher when the topics use a customer-managed key.
   *
   * @example
   * ```ts
   * topics.grantPublish(processorTaskRole);
   * ```
   */
  grantPublish(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sns:Publish'], resources: [...this.topics.values()].map((t) => t.topicArn) }),
    );
    this.customerKey?.grant(grantee, 'kms:GenerateDataKey', 'kms:Decrypt');
  }
}
