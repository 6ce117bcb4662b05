import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { OutboxEnvelope } from '../envelope.js';
import type { HandlerLogger } from '../logger.js';
import type { CatalogSource } from './catalog-schemas.js';
import type { MessageRejectedError } from './errors.js';

/** One DocumentClient-style transaction action (`Put`, `Update`, `Delete` or `ConditionCheck`). */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** What a `transaction` handler gets besides its event. */
export interface TransactionContext {
  /** Name of the consumer, as in the inbox key. */
  readonly consumer: string;
  /** How many times SQS has delivered this message, when known. */
  readonly receiveCount?: number;
  /**
   * The id of the replay that sent this event again (its `outbox-replay` message attribute), absent
   * for a live event. A replayed event is the original (same id, sequence and time): the inbox skips
   * it when it was handled before, and sequence tracking reports no gap or out-of-order for it. The
   * attribute is not proof of a replay (a publisher to the topic can set it): trust nothing else on it.
   */
  readonly replayId?: string;
  /**
   * Adds a write that commits in one `TransactWriteItems` with the inbox record of this event:
   * all of them apply, exactly once, or none does.
   */
  write(item: TransactItem): void;
}

/** What a `claim` handler gets besides its event. */
export interface ClaimContext {
  readonly consumer: string;
  readonly receiveCount?: number;
  /** The id of the replay that sent this event again, absent for a live event: see {@link TransactionContext.replayId}. */
  readonly replayId?: string;
  /** When this worker's claim lapses (epoch ms): finish the side effect before then. */
  readonly claimExpiresAt: number;
}

interface HandlerBase<TData> {
  /** Validates and types `data` before the handler runs (zod, valibot, ArkType, …). @default no validation */
  readonly schema?: StandardSchemaV1<unknown, TData>;
}

/**
 * Idempotency by transaction (the default): the handler's own DynamoDB writes commit together
 * with the inbox record, so a redelivered event finds the record and is skipped.
 */
export interface TransactionHandler<TData = unknown> extends HandlerBase<TData> {
  /** @default 'transaction' */
  readonly idempotency?: 'transaction';
  handle(event: OutboxEnvelope<TData>, context: TransactionContext): Promise<void> | void;
}

/**
 * Idempotency by claim, for side effects outside DynamoDB: the inbox record is claimed before the
 * handler runs, completed after it succeeds and released when it fails.
 */
export interface ClaimHandler<TData = unknown> extends HandlerBase<TData> {
  readonly idempotency: 'claim';
  handle(event: OutboxEnvelope<TData>, context: ClaimContext): Promise<void> | void;
}

/** The handler of one event type: idempotent by transaction (the default) or by claim. */
export type EventHandler<TData = unknown> = TransactionHandler<TData> | ClaimHandler<TData>;

/** Where the inbox records live: the outbox table or the consumer's own table with the same `pk`/`sk` string keys. */
export interface InboxOptions {
  /**
   * The client the inbox reads and writes through, created once and reused: a `DynamoDBDocumentClient`,
   * or a `DynamoDBClient`, which is wrapped in one (as the `Outbox` wraps its client).
   */
  readonly document: DynamoDBClient | DynamoDBDocumentClient;
  readonly tableName: string;
  /** How long an inbox record (and a sequence record) is kept before TTL removes it. @default 1209600 (14 days, the longest SQS retention) */
  readonly retentionSeconds?: number;
  /**
   * How long a claim holds before another worker may take it over. @default in the Lambda
   * handler, until the invocation's timeout (plus 1 s), when a handler can no longer be running;
   * with `pollOnce`, until the messages' visibility timeout ends, when SQS may deliver them again;
   * with `process`, its `claimExpiresAt` when given, else 300
   */
  readonly claimTimeoutSeconds?: number;
  /**
   * Also look an event up under the inbox key of releases before the source was part of it
   * (`pk = INBOX#<consumer>#<event id>`, `sk = INBOX`), so an event handled before the upgrade is
   * still a duplicate. Costs one more key in the batch's read of the inbox; turn it off once `retentionSeconds`
   * have passed since the upgrade, when every such record has expired. @default true
   */
  readonly legacyKeyCheck?: boolean;
}

/** The subset of a logger the consumer writes to; Powertools `Logger` fits. */
export type ConsumerLogger = HandlerLogger;

/** The subset of a metrics sink the consumer writes to; Powertools `Metrics` fits. */
export interface ConsumerMetrics {
  addMetric(name: string, unit: 'Count' | 'Milliseconds', value: number): void;
  /**
   * Adds a dimension to the metrics stored until the next `publishStoredMetrics`, which clears it,
   * as Powertools does. Without it (or without `publishStoredMetrics`), the consumer writes no
   * `HandledLag`: its per-type values would mix with the batch's counts.
   */
  addDimension?(name: string, value: string): void;
  publishStoredMetrics?(): void;
}

/** Options of `createConsumer`: its name, the sources and topics it trusts, its handlers and its inbox. */
export interface ConsumerOptions {
  /** Names the consumer in inbox keys: two consumers of one event each handle it once. 1–64 letters, digits, `.`, `_`, `-`. */
  readonly name: string;
  /**
   * The CloudEvents `source`s this consumer accepts: the `source` of the producers' outbox
   * configs (`[config.source]` when the consumer shares the producer's config). An event of any
   * other source is rejected (`UNTRUSTED_SOURCE`) and goes to the DLQ. Required: there is no
   * default a consumer could know, and accepting any source would let whoever can send to the
   * queue forge events.
   */
  readonly sources: readonly string[];
  /**
   * The topic ARNs whose SNS notifications (subscriptions without raw message delivery) this
   * consumer accepts, by the notification's `TopicArn`; others are rejected (`UNTRUSTED_TOPIC`).
   * Raw delivery, which `OutboxSubscriber` sets up, needs none. @default no SNS notification is accepted
   */
  readonly topicArns?: readonly string[];
  /** Event type → handler. A type without a handler is rejected (and goes to the DLQ). */
  // biome-ignore lint/suspicious/noExplicitAny: each handler narrows its own data type
  readonly handlers: Readonly<Record<string, EventHandler<any>>>;
  /**
   * The producers' config, whose `eventTypes` declare the schemas: a handler without its own
   * `schema` gets its event's data checked against the version the envelope's `dataschema` names
   * (the oldest declared one when it names none), so producer and consumer check against one
   * definition. Applies to events of the config's `source`. See docs/catalog.md. @default no catalog
   */
  readonly catalog?: CatalogSource;
  readonly inbox: InboxOptions;
  /** Track (`sequenceepoch`, `aggregatesequence`) per aggregate and report gaps and out-of-order arrivals. @default false */
  readonly sequenceTracking?: boolean;
  /** Message groups (FIFO) or messages (standard) handled at once; a group's messages always run in order. @default 1 */
  readonly concurrency?: number;
  /**
   * When the `transaction` handlers' writes commit. `'event'`: each event's writes and inbox
   * record in a `TransactWriteItems` of their own, before the next event runs. `'batch'`: the
   * handlers still run in turn, but each worker's events commit together in one
   * `TransactWriteItems` (up to 100 actions), before an event of an aggregate already waiting,
   * before a `claim` handler and at the end; when it fails, each event commits on its own. A
   * handler then does not see the writes of other aggregates' events still waiting: for handlers
   * that read only their own aggregate's state. See docs/consumers.md, "Batch commit".
   *
   * @example
   * ```ts
   * createConsumer({ ...options, commit: 'batch' }); // a batch of 10 events of 10 orders: one read, one transaction
   * ```
   * @default 'event'
   */
  readonly commit?: 'event' | 'batch';
  /** @default a Powertools Logger with the consumer's name as service */
  readonly logger?: ConsumerLogger;
  /** @default a Powertools Metrics: namespace `DynamoDbOutbox`, the consumer's name as service, in Lambda the function's name as `functionName` */
  readonly metrics?: ConsumerMetrics;
  /** Clock in epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /**
   * How each message's span (made only when `@opentelemetry/api` is installed and a tracer
   * provider registered) relates to the producer's trace context. See docs/consumers.md, "Tracing".
   * @default { producer: 'link' }
   */
  readonly tracing?: ConsumerTracingOptions;
}

/**
 * How a consumer's spans continue the producers' traces.
 *
 * @example
 * ```ts
 * createConsumer({ ...options, tracing: { producer: 'parent' } }); // one trace from the request to the handler
 * ```
 */
export interface ConsumerTracingOptions {
  /**
   * `'link'`: the message's span is linked to the context of each event's write (it stays in the
   * trace it runs in, such as the Lambda invocation's). `'parent'`: it is the child of the write's
   * context, so the request that wrote the event and its handling form one trace; a message of
   * several events with different contexts is linked all the same. @default 'link'
   */
  readonly producer?: 'link' | 'parent';
}

/** How `process` handles one batch. */
export interface ProcessOptions {
  /**
   * When the batch's claims (`idempotency: 'claim'`) lapse, in epoch seconds: the moment its
   * messages may be delivered again, such as the end of their visibility timeout. A message whose
   * turn comes after it is not handled (`CLAIM_DEADLINE_PASSED`) and is retried. Ignored when
   * `inbox.claimTimeoutSeconds` is set. @default each claim lapses 300 s after it is taken
   */
  readonly claimExpiresAt?: number;
}

/** One SQS message attribute, as a Lambda SQS record carries it (binary values are not needed). */
export interface MessageAttribute {
  readonly dataType: string;
  readonly stringValue?: string;
}

/** A message as any SQS poller sees it. `messageGroupId` is set on FIFO queues. */
export interface ConsumerMessage {
  readonly messageId: string;
  readonly body: string;
  readonly messageGroupId?: string;
  readonly receiveCount?: number;
  /**
   * The message's SQS attributes: with raw delivery, the SNS attributes the relay set (`type`,
   * `aggregatetype`). Each of those present must equal the envelope's field (`ATTRIBUTE_MISMATCH`
   * otherwise), since subscription filter policies decided on them. @default none, nothing to check
   */
  readonly messageAttributes?: Readonly<Record<string, MessageAttribute>>;
  /** The queue's name, the message's span's `messaging.destination.name`. @default unknown, the span is named `process` alone */
  readonly queueName?: string;
}

/** Set on the outcome of a message that carried a CloudEvents batch. */
interface BatchOutcome {
  /**
   * Each event's outcome, in the batch's order, up to the first that failed or was rejected (the
   * message's own outcome then); the message is `processed` when all were acknowledged and one
   * was processed, `duplicate` when all were duplicates. @default absent: one event per message
   */
  readonly events?: readonly MessageOutcome[];
}

/** What happened to one message (with a batch, to its events: see `events`); only `processed` and `duplicate` are acknowledged. */
export type MessageOutcome =
  | ({ readonly status: 'processed'; readonly messageId: string; readonly eventId: string; readonly type: string } & BatchOutcome)
  | ({ readonly status: 'duplicate'; readonly messageId: string; readonly eventId: string; readonly type: string } & BatchOutcome)
  | ({ readonly status: 'rejected'; readonly messageId: string; readonly error: MessageRejectedError } & BatchOutcome)
  | ({
      readonly status: 'failed';
      readonly messageId: string;
      readonly eventId: string;
      readonly type: string;
      readonly error: Error;
    } & BatchOutcome)
  | {
      readonly status: 'skipped';
      readonly messageId: string;
      readonly reason: 'EARLIER_MESSAGE_OF_GROUP_FAILED';
      readonly failedMessageId: string;
    };

/** One message of a batch that was not acknowledged, in the shape of Lambda's partial batch response. */
export interface BatchItemFailure {
  /** The SQS message id. */
  readonly itemIdentifier: string;
}

/** What `process` returns: the messages to retry, and every message's outcome. */
export interface BatchResult {
  /** The SQS partial batch response: every message not acknowledged, by message id. */
  readonly batchItemFailures: BatchItemFailure[];
  /** One outcome per message, in batch order. */
  readonly outcomes: MessageOutcome[];
}
