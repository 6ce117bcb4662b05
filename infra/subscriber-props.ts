import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { OutboxConfig } from '../shared/config.js';

/** Props of {@link OutboxSubscriber}. */
export interface OutboxSubscriberProps {
  /** The outbox topic to subscribe to. */
  readonly topic: ITopic;
  /**
   * Deliver only events whose CloudEvents `type` is one of these. SNS allows at most 150 value
   * combinations in a filter policy: the number of event types times that of `aggregateTypes`.
   * @default every type
   */
  readonly eventTypes?: readonly string[];
  /** Deliver only events of these aggregate types (`aggregatetype`); see `eventTypes` for the limit. @default every aggregate type */
  readonly aggregateTypes?: readonly string[];
  /**
   * The outbox config (`defineConfig`) whose topics `topic` is one of: given, `eventTypes` and
   * `aggregateTypes` are checked against it at synth as `Outbox.addSubscriber` checks them (which
   * passes its own): an event type the catalog does not declare (under `undeclaredEventTypes:
   * 'reject'`) or declares only on aggregate types routed to another topic, and an aggregate type
   * not routed to this topic, are refused, as the subscriber would receive nothing of them. The
   * topic must then be one of an `OutboxTopics` of the app (`outbox.topics.topic(name)`,
   * `topics.topic(name)`), whose name in the config it knows.
   * @default no check of the filter against a config
   */
  readonly config?: OutboxConfig;
  /**
   * An existing queue to subscribe instead of a new one; its own redrive policy and visibility
   * timeout are the caller's (with a consumer, a timeout of this app's queue below the consumer's
   * is refused, as Lambda refuses it at deploy, and one below AWS's advice warned of). On a standard topic it must be standard. On a FIFO topic a standard
   * queue is taken, with a synth warning: SNS delivers to it without the message group or
   * deduplication, so each aggregate's events may arrive out of order and more than once (the
   * consumer's inbox drops the duplicates); a FIFO queue keeps the order.
   * @default a new queue, FIFO when the topic is, redriving to `deadLetterQueue`
   */
  readonly queue?: IQueue;
  /** Receives before a message moves to the DLQ (AWS: 1–1,000). @default 5 */
  readonly maxReceiveCount?: number;
  /** How long the new queue keeps a message (AWS: 60 s–14 days). @default Duration.days(4) */
  readonly retentionPeriod?: Duration;
  /**
   * Visibility timeout of the new queue (AWS: 0–43,200 s). With a consumer it must be at least
   * 6 × the consumer's timeout plus the batching window, so a slow batch is not delivered twice.
   * Needed when either of those is a token (known only at deploy): the default is sized at synth.
   * @default 6 × `consumerTimeout` + `maxBatchingWindow`
   */
  readonly visibilityTimeout?: Duration;
  /** Handler file of a consumer Lambda to create and feed from the queue; it must report batch item failures. @default no consumer */
  readonly consumerEntry?: string;
  /**
   * An existing consumer Lambda to feed from the queue instead (one function may consume several
   * queues); it must report batch item failures. Not together with `consumerEntry`.
   * @default no consumer
   */
  readonly consumer?: IFunction;
  /**
   * The consumer's timeout (AWS: 1–900 s), which sizes the queue's visibility timeout. For an
   * existing `consumer` it is read from the function when it is a `Function` of this app (or an
   * alias or version of one), and must be given otherwise (an imported function).
   * @default Duration.seconds(30), or the existing consumer's own
   */
  readonly consumerTimeout?: Duration;
  /** The consumer's memory in MB (AWS: 128–10,240). @default 256 */
  readonly consumerMemorySize?: number;
  /** Extra environment of the consumer. @default none */
  readonly consumerEnvironment?: Readonly<Record<string, string>>;
  /** Messages per consumer batch (AWS: 1–10 on FIFO, 1–10,000 on standard; above 10 needs a batching window). @default 10 */
  readonly batchSize?: number;
  /**
   * How long the event source gathers a batch (AWS: 0–300 s). Standard queues only: Lambda takes
   * no batching window from a FIFO queue, so a subscriber with a FIFO queue rejects one above 0.
   * @default no batching window
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Most concurrent consumer invocations the queue's event source makes (AWS: 2–1,000). A
   * consumer that writes to a table the API writes to too should be bounded: unbounded, it scales
   * with the queue's backlog (up to 1,000 for a standard queue) and can take the table's capacity
   * and the account's concurrency the API needs. At most `reservedConcurrency` when both are set.
   * @default `reservedConcurrency` (at most 1,000) when that is set, else no limit beyond the account's
   */
  readonly maxConcurrency?: number;
  /**
   * Concurrent executions reserved for the consumer created from `consumerEntry` (AWS: 0 or more,
   * and the account must keep 100 unreserved: Lambda checks that at deploy). Lambda keeps them
   * for the consumer and never runs more of it at once, so the consumer cannot take the account's
   * concurrency from other functions, and they cannot take its share. At least 2 here: the event
   * source does not count the reservation (it would take batches the function is throttled on,
   * counting a receive each time towards `maxReceiveCount`), so `maxConcurrency` is bounded by it,
   * and that is 2 at least. Not with an existing `consumer`: set its reservation on the function,
   * which may consume other queues too.
   * @default no reservation
   */
  readonly reservedConcurrency?: number;
  /**
   * Customer-managed key for the queues. The key policy gets a statement letting SNS use it for
   * this topic, so SNS can put undeliverable messages into the DLQ (with an existing `queue` under
   * another key too); an imported key's policy cannot be changed here, so grant that yourself.
   * @default SQS-managed encryption (SSE-SQS)
   */
  readonly encryptionKey?: IKey;
  /**
   * What happens to the queues and the created consumer's logs when they leave the stack (the DLQ
   * holds the events the consumer kept failing). @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /** How long the logs of the consumer created from `consumerEntry` are kept. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/** How long a new subscriber queue keeps a message by default. */
export const DEFAULT_QUEUE_RETENTION = Duration.days(4);
