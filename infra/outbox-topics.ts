import { Lazy, Tokenization } from 'aws-cdk-lib';
import {
  AccountPrincipal,
  AnyPrincipal,
  ArnPrincipal,
  Effect,
  type IGrantable,
  type IPrincipal,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import { Alias, type IKey } from 'aws-cdk-lib/aws-kms';
import { FifoThroughputScope, type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { OutboxConfig } from '../shared/config.js';
import { propsConfig } from './private/config-check.js';
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
 * The ARN IAM gives a principal's requests as `aws:PrincipalArn`: a role's (also for its
 * sessions) or a user's; `undefined` for principals that have none a topic policy could name.
 */
function principalArnOf(principal: IPrincipal): string | undefined {
  const named = principal as Partial<{ roleArn: string; userArn: string }>;
  if (typeof named.roleArn === 'string') return named.roleArn;
  if (typeof named.userArn === 'string') return named.userArn;
  // An AccountPrincipal is an ArnPrincipal too, whose ARN is a token until resolved.
  if (!(principal instanceof ArnPrincipal) || principal instanceof AccountPrincipal) return undefined;
  // An account's (`…:root`) or anyone's (`*`) ARN is no principal ARN a role's request carries: in
  // the denial's ArnNotEquals, the first would let none of the account's roles through, the second
  // every principal. An ARN known only at deploy (one token, a role's `Arn` say) is taken as given.
  const fragments = Tokenization.reverseString(principal.arn);
  const wholeToken = fragments.length === 1 && fragments.firstToken !== undefined;
  return wholeToken || IAM_ROLE_OR_USER_ARN.test(principal.arn) ? principal.arn : undefined;
}

/** A role's or a user's ARN (any partition, a token standing for it included). */
const IAM_ROLE_OR_USER_ARN = /^arn:[^:]+:iam::[^:]*:(role|user)\/./;

/**
 * The outbox's SNS topics, one per topic in the config: encrypted at rest, reachable only over
 * TLS (the topic policy denies `aws:SecureTransport = false`), FIFO where the config says so.
 * A FIFO topic deduplicates by the `MessageDeduplicationId` the relay sets (the event id), never
 * by content, and scopes throughput and deduplication to the message group (one per aggregate).
 * Once a principal is granted with {@link OutboxTopics.grantPublish}, each topic's policy denies
 * `sns:Publish` to every principal not granted so, whatever its IAM policies allow: only the
 * relays (and whom the app grants, such as a redrive role) can put events on the topics.
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
  /** `aws:PrincipalArn`s that may publish; read when the template is written, so later grants count too. */
  private readonly publisherArns = new Set<string>();

  constructor(scope: Construct, id: string, props: OutboxTopicsProps) {
    super(scope, id);
    props = { ...props, config: propsConfig(this.node.path, props.config) };
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
   * from a publisher when the topics use a customer-managed key. The principal (a role, or a
   * user) joins the topics' publishers: their policies deny every other one. A topic's own
   * `grantPublish` does not, so a principal granted only that is denied.
   *
   * @example
   * ```ts
   * topics.grantPublish(processorTaskRole);
   * topics.grantPublish(redriveRole); // an operator's role for `dynamodb-outbox redrive`
   * ```
   */
  grantPublish(grantee: IGrantable): void {
    this.allowPublisher(grantee);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sns:Publish'], resources: [...this.topics.values()].map((t) => t.topicArn) }),
    );
    this.customerKey?.grant(grantee, 'kms:GenerateDataKey', 'kms:Decrypt');
  }

  /** Adds the grantee to the principals the topic policies let publish; the first one turns the denial of all others on. */
  private allowPublisher(grantee: IGrantable): void {
    const arn = principalArnOf(grantee.grantPrincipal);
    if (arn === undefined) {
      throw new OutboxPropsError(
        this.node.path,
        'grantPublish',
        `${grantee.grantPrincipal.toString()} has no role or user ARN the topic policies could name; allowed: a role (a function's or a task's) or a user`,
      );
    }
    if (this.publisherArns.size === 0) {
      const publishers = Lazy.list({ produce: () => [...this.publisherArns] });
      for (const topic of this.topics.values()) {
        topic.addToResourcePolicy(
          new PolicyStatement({
            sid: 'DenyPublishByOthers',
            effect: Effect.DENY,
            principals: [new AnyPrincipal()],
            actions: ['sns:Publish'],
            resources: [topic.topicArn],
            // A request without a principal ARN (an AWS service's) matches too: only the publishers are let through.
            conditions: { ArnNotEquals: { 'aws:PrincipalArn': publishers } },
          }),
        );
      }
    }
    this.publisherArns.add(arn);
  }
}

/**
 * Grants `sns:Publish` on topics: through their {@link OutboxTopics} for topics of one (all of its
 * topics, and the grantee is let through their topic policies), through each topic's own
 * `grantPublish` for any other.
 */
export function grantPublishOn(topics: Iterable<ITopic>, grantee: IGrantable): void {
  const owners = new Set<OutboxTopics>();
  for (const topic of topics) {
    const owner = topic.node.scope;
    if (owner instanceof OutboxTopics && owner.topics.get(topic.node.id) === topic) owners.add(owner);
    else topic.grantPublish(grantee);
  }
  for (const owner of owners) owner.grantPublish(grantee);
}
