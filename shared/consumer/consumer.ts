import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { documentClientOf } from '../aws/document-client.js';
import { remainingTimeFault } from '../lambda-context.js';
import { LAMBDA_FUNCTION_NAME_ENV } from '../relay/metrics.js';
import { BatchWorker } from './batch-worker.js';
import { catalogSchemas } from './catalog-schemas.js';
import { withCheckedRun } from './checked-process.js';
import { ConsumerOptionsError } from './errors.js';
import { runEventGroup } from './event-worker.js';
import { type MessageHandlingDeps, type PreparedMessage, prepareMessage } from './handle-message.js';
import { Inbox, type ResolvedInboxOptions } from './inbox.js';
import { readInboxSnapshot } from './inbox-snapshot.js';
import { jsonExcerpt } from './limits.js';
import { validateMessages, validateRecords } from './message-checks.js';
import { messageOfRecord, withoutNullValues } from './messages.js';
import { validateConsumerOptions, validateProcessOptions } from './options.js';
import { groupsOf, runPool } from './pool.js';
import { Reporter } from './reporter.js';
import { SequenceTracker } from './sequence-tracker.js';
import type { BatchResult, ConsumerMessage, ConsumerOptions, MessageOutcome, ProcessOptions } from './types.js';
import { logSafely } from './unexpected.js';

/** A configured consumer: `handler` for an SQS-triggered Lambda, `process` for any other SQS poller. */
export interface Consumer {
  readonly name: string;
  /** Handles a batch; a FIFO group stops at its first failure and its later messages are reported failed, unprocessed. */
  process(messages: readonly ConsumerMessage[], options?: ProcessOptions): Promise<BatchResult>;
  /**
   * The Lambda handler (enable `ReportBatchItemFailures` on the event source mapping). Unless
   * `inbox.claimTimeoutSeconds` is set, its claims last until the invocation's timeout.
   */
  readonly handler: ConsumerHandler;
}

/**
 * The Lambda handler a consumer gives (`Consumer['handler']`): handles an SQS event's batch and
 * answers the messages that failed. Named, so that a service's `export const handler =
 * createConsumer(…).handler` declares its type as this package's, without naming `aws-lambda`'s
 * types, which a declaration build cannot reach where installs are not hoisted (TS2742).
 */
export type ConsumerHandler = (event: SQSEvent, context?: LambdaContext) => Promise<SQSBatchResponse>;

/** Lambda's context as the handler reads it: the time left always; the rest (request id, function) when Lambda passes it. */
export type LambdaContext = Pick<Context, 'getRemainingTimeInMillis'> & Partial<Context>;

/** The CloudWatch namespace of a consumer's metrics when `metrics` is not given (`'DynamoDbOutbox'`). */
export const METRICS_NAMESPACE = 'DynamoDbOutbox';

export { CONSUMER_LAG_DIMENSION, CONSUMER_LAG_METRIC, OTHER_EVENT_TYPE } from './reporter.js';

/** The inbox keys of the events ready to run: their own and, unless turned off, those of earlier releases. */
const inboxKeys = (inbox: Inbox, prepared: readonly PreparedMessage[]) =>
  prepared.flatMap((p) => {
    if (p.status === 'done') return [];
    return p.events.flatMap(({ envelope }) => {
      const { own, legacy } = inbox.keysOf(envelope);
      return legacy === undefined ? [own] : [own, legacy];
    });
  });

/**
 * A consumer's default metrics: namespace {@link METRICS_NAMESPACE}, the consumer's name as
 * `service`, and in Lambda the function's name as `functionName` (from
 * `AWS_LAMBDA_FUNCTION_NAME`), so consumers of the same name in two deployments in one account
 * never share a metric.
 */
export function consumerMetrics(name: string, env: NodeJS.ProcessEnv = process.env): Metrics {
  const functionName = env[LAMBDA_FUNCTION_NAME_ENV];
  return new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: name,
    ...(functionName === undefined || functionName === '' ? {} : { defaultDimensions: { functionName } }),
  });
}

/**
 * Creates an idempotent SQS consumer: parses raw and SNS-enveloped outbox messages, accepts only
 * events of its `sources` (and SNS notifications of its `topicArns`), dispatches by event type,
 * validates `data` with the handler's Standard Schema, and records every handled event in an
 * inbox, keyed by source and id, so duplicates are acknowledged and skipped.
 *
 * @example
 * ```ts
 * export const { handler } = createConsumer({
 *   name: 'order-projection',
 *   sources: [config.source],
 *   inbox: { document, tableName },
 *   handlers: {
 *     'order.placed': {
 *       handle: (event, ctx) => ctx.write({ Put: { TableName: tableName, Item: { pk: `ORDER#${event.subject}`, sk: 'VIEW' } } }),
 *     },
 *   },
 * });
 * ```
 */
export function createConsumer(given: ConsumerOptions): Consumer {
  validateConsumerOptions(given);
  // A plain DynamoDBClient, or a client of another copy of the SDK (an older one cannot send this copy's commands).
  const options: ConsumerOptions & { readonly inbox: ResolvedInboxOptions } = {
    ...given,
    inbox: { ...given.inbox, document: documentClientOf(given.inbox.document) },
  };
  const now = options.now ?? Date.now;
  const inbox = new Inbox(options.name, options.inbox, now);
  const logger = options.logger ?? new Logger({ serviceName: options.name });
  const metrics = options.metrics ?? consumerMetrics(options.name);
  const tracker = options.sequenceTracking ? new SequenceTracker(options.name, options.inbox, inbox.retentionSeconds, now) : undefined;
  const trust = { sources: new Set(options.sources), topicArns: new Set(options.topicArns ?? []) };
  const catalog = options.catalog === undefined ? {} : { catalog: catalogSchemas(options.catalog) };
  const deps: MessageHandlingDeps = { consumer: options.name, handlers: options.handlers, inbox, logger, trust, ...catalog };
  const concurrency = options.concurrency ?? 1;
  const handledTypes: ReadonlySet<string> = new Set(Object.keys(options.handlers));

  /** `claimsLapseAt`: epoch seconds at which the batch's claims lapse, unless the claim timeout is set. */
  const process = async (messages: readonly ConsumerMessage[], claimsLapseAt?: number): Promise<BatchResult> => {
    const claimUntil = options.inbox.claimTimeoutSeconds === undefined ? claimsLapseAt : undefined;
    const reporter = new Reporter(options.name, logger, metrics, handledTypes, now);
    const outcomes: MessageOutcome[] = new Array(messages.length);
    const prepared = messages.map((message) => prepareMessage(deps, message));
    // One read of every inbox record the batch's events may have, instead of one or two per event.
    const snapshot = await readInboxSnapshot(options.inbox.document, options.inbox.tableName, inboxKeys(inbox, prepared), (error) =>
      logSafely(logger, 'warn', "Reading the batch's inbox records at once failed; each event reads its own", {
        consumer: options.name,
        error,
      }),
    );
    const context = {
      deps,
      inbox: options.inbox,
      tracing: options.tracing,
      messages,
      prepared,
      outcomes,
      claimUntil,
      snapshot,
      tracker,
      reporter,
    };
    await runPool(groupsOf(messages), concurrency, () =>
      options.commit === 'batch' ? new BatchWorker(context) : { run: (group: readonly number[]) => runEventGroup(context, group) },
    );
    reporter.flush();
    const batchItemFailures = outcomes
      .filter((o) => o.status !== 'processed' && o.status !== 'duplicate')
      .map((o) => ({ itemIdentifier: o.messageId }));
    return { batchItemFailures, outcomes };
  };

  // No handler of this invocation runs past its timeout, so its claims hold while it may run. One it leaves behind
  // (a crash, a timeout) has lapsed when SQS delivers the message again if the queue's visibility timeout covers the
  // wait before the invocation, the function's timeout and these 2 s: 6 × the function's + the batching window does.
  // Checked as process checks claimExpiresAt: NaN would fail every claim, a string be appended to the clock's value.
  const invocationEnd = (context?: Pick<Context, 'getRemainingTimeInMillis'>): number | undefined => {
    if (typeof context?.getRemainingTimeInMillis !== 'function') return undefined;
    // No upper bound: no timer waits on it, and the local SQS event source counts down from the queue's visibility timeout.
    const left: unknown = context.getRemainingTimeInMillis();
    const fault = remainingTimeFault(left);
    if (fault !== undefined) throw new ConsumerOptionsError('handler.context.getRemainingTimeInMillis', fault);
    return Math.ceil((now() + (left as number)) / 1000) + 1;
  };

  return {
    name: options.name,
    // A poller's messages, checked as fromSqsMessage made them, go to `process` without a second check.
    process: withCheckedRun(async (messages: readonly ConsumerMessage[], processOptions?: ProcessOptions) => {
      validateMessages(messages);
      validateProcessOptions(processOptions);
      return process(Array.from(messages, withoutNullValues), processOptions?.claimExpiresAt);
    }, process),
    handler: async (event, context) => {
      // Every log line of the invocation names its request, as Powertools' injectLambdaContext does.
      if (typeof context?.awsRequestId === 'string') logger.addContext?.(context as Context);
      if (!Array.isArray(event?.Records)) {
        throw new ConsumerOptionsError(
          'handler.event',
          `got ${jsonExcerpt(event)}, which is no SQS event; allowed: the event of an SQS event source mapping, { Records: [...] }`,
        );
      }
      // Checked as process checks its messages: a record Lambda would not build is refused before any is read.
      validateRecords(event.Records);
      const { batchItemFailures } = await process(Array.from(event.Records, messageOfRecord), invocationEnd(context));
      return { batchItemFailures };
    },
  };
}
