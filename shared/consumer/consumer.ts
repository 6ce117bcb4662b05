import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { catalogSchemas } from '../catalog/consumer-schemas.js';
import type { OutboxEnvelope } from '../envelope.js';
import { LAMBDA_FUNCTION_NAME_ENV } from '../relay/metrics.js';
import { BatchWorker } from './batch-worker.js';
import { type MessageHandlingDeps, type PreparedMessage, prepareMessage } from './handle-message.js';
import { Inbox } from './inbox.js';
import { readInboxSnapshot } from './inbox-snapshot.js';
import { fromSqsRecord } from './messages.js';
import { validateConsumerOptions, validateProcessOptions } from './options.js';
import { groupsOf, runPool } from './pool.js';
import { runEvents } from './run-events.js';
import { type SequenceObservation, SequenceTracker } from './sequence-tracker.js';
import { traceMessage } from './tracing.js';
import type {
  BatchResult,
  ConsumerLogger,
  ConsumerMessage,
  ConsumerMetrics,
  ConsumerOptions,
  MessageOutcome,
  ProcessOptions,
} from './types.js';

/** A configured consumer: `handler` for an SQS-triggered Lambda, `process` for any other SQS poller. */
export interface Consumer {
  readonly name: string;
  /** Handles a batch; a FIFO group stops at its first failure and its later messages are reported failed, unprocessed. */
  process(messages: readonly ConsumerMessage[], options?: ProcessOptions): Promise<BatchResult>;
  /**
   * The Lambda handler (enable `ReportBatchItemFailures` on the event source mapping). Unless
   * `inbox.claimTimeoutSeconds` is set, its claims last until the invocation's timeout.
   */
  readonly handler: (event: SQSEvent, context?: LambdaContext) => Promise<SQSBatchResponse>;
}

/** Lambda's context as the handler reads it: the time left always; the rest (request id, function) when Lambda passes it. */
export type LambdaContext = Pick<Context, 'getRemainingTimeInMillis'> & Partial<Context>;

export const METRICS_NAMESPACE = 'DynamoDbOutbox';

/**
 * The consumer's lag metric: now − the envelope's `time` (set by the write helper at commit), in
 * ms, when its handler has run; per batch, the maximum of each event type, each on an EMF line
 * of its own with the extra {@link CONSUMER_LAG_DIMENSION} dimension.
 */
export const CONSUMER_LAG_METRIC = 'HandledLag';
/** The dimension of {@link CONSUMER_LAG_METRIC}: an event type the consumer has a handler for (its handlers bound the set). */
export const CONSUMER_LAG_DIMENSION = 'eventType';
/** The value of {@link CONSUMER_LAG_DIMENSION} for a type outside the consumer's handlers; none is handled today, it only bounds the set. */
export const OTHER_EVENT_TYPE = 'other';

class Reporter {
  readonly #consumer: string;
  readonly #logger: ConsumerLogger;
  readonly #metrics: ConsumerMetrics;
  readonly #types: ReadonlySet<string>;
  readonly #now: () => number;
  readonly #lagByType = new Map<string, number>();
  #pending = 0;

  constructor(consumer: string, logger: ConsumerLogger, metrics: ConsumerMetrics, types: ReadonlySet<string>, now: () => number) {
    this.#consumer = consumer;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#types = types;
    this.#now = now;
  }

  handled(envelope: OutboxEnvelope): void {
    const committed = Date.parse(envelope.time);
    if (Number.isNaN(committed)) return;
    const type = this.#types.has(envelope.type) ? envelope.type : OTHER_EVENT_TYPE;
    const lag = Math.max(0, this.#now() - committed);
    this.#lagByType.set(type, Math.max(this.#lagByType.get(type) ?? 0, lag));
  }

  #count(name: string): void {
    this.#metrics.addMetric(name, 'Count', 1);
    this.#pending++;
  }

  outcome(outcome: MessageOutcome): void {
    const consumer = this.#consumer;
    switch (outcome.status) {
      case 'processed':
        this.#count('EventsProcessed');
        return;
      case 'duplicate':
        this.#logger.info('Duplicate event acknowledged and skipped', {
          consumer,
          messageId: outcome.messageId,
          eventId: outcome.eventId,
          type: outcome.type,
        });
        this.#count('DuplicateEvents');
        return;
      case 'rejected':
        this.#logger.error('Message rejected; it goes to the DLQ by the queue redrive policy', {
          consumer,
          messageId: outcome.messageId,
          code: outcome.error.code,
          reason: outcome.error.message,
        });
        this.#count('RejectedMessages');
        return;
      case 'failed':
        this.#logger.error('Event handling failed; the message will be retried', {
          consumer,
          messageId: outcome.messageId,
          eventId: outcome.eventId,
          type: outcome.type,
          error: outcome.error,
        });
        this.#count('FailedMessages');
        return;
      case 'skipped':
        this.#logger.warn('Message not processed: an earlier message of its FIFO group failed', {
          consumer,
          messageId: outcome.messageId,
          failedMessageId: outcome.failedMessageId,
        });
        this.#count('SkippedMessages');
        return;
    }
  }

  /** A replayed event acknowledged: counted apart, and kept out of `HandledLag` and the sequence metrics. */
  replayed(): void {
    this.#count('ReplayedEvents');
  }

  sequence(envelope: OutboxEnvelope, observation: SequenceObservation): void {
    if (observation.status !== 'gap' && observation.status !== 'out-of-order') return;
    const detail = {
      consumer: this.#consumer,
      eventId: envelope.id,
      type: envelope.type,
      aggregateType: envelope.aggregatetype,
      aggregateId: envelope.subject,
      received: observation.received,
      last: observation.last,
      ...(observation.status === 'gap' ? { missing: observation.missing } : {}),
    };
    if (observation.status === 'gap') {
      this.#logger.warn('Sequence gap: events of this aggregate before this one have not been handled', detail);
      this.#count('SequenceGaps');
    } else {
      this.#logger.warn('Out-of-order event: it is not after the last handled event of its aggregate', detail);
      this.#count('SequenceOutOfOrder');
    }
  }

  trackingFailed(envelope: OutboxEnvelope, error: unknown): void {
    this.#logger.error('Sequence tracking failed; the event itself was handled', { consumer: this.#consumer, eventId: envelope.id, error });
    this.#count('SequenceTrackingErrors');
  }

  flush(): void {
    if (this.#pending > 0) this.#metrics.publishStoredMetrics?.();
    this.#pending = 0;
    const metrics = this.#metrics;
    if (metrics.addDimension !== undefined && metrics.publishStoredMetrics !== undefined) {
      // A line per type: the dimension set differs from the counts' line above.
      for (const [type, lag] of this.#lagByType) {
        metrics.addDimension(CONSUMER_LAG_DIMENSION, type);
        metrics.addMetric(CONSUMER_LAG_METRIC, 'Milliseconds', lag);
        metrics.publishStoredMetrics();
      }
    }
    this.#lagByType.clear();
  }
}

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
export function createConsumer(options: ConsumerOptions): Consumer {
  validateConsumerOptions(options);
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
      logger.warn("Reading the batch's inbox records at once failed; each event reads its own", { consumer: options.name, error }),
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
    const runGroup = async (group: readonly number[]) => {
      let failedMessageId: string | undefined;
      for (const index of group) {
        const message = messages[index] as ConsumerMessage;
        if (failedMessageId !== undefined) {
          outcomes[index] = { status: 'skipped', messageId: message.messageId, reason: 'EARLIER_MESSAGE_OF_GROUP_FAILED', failedMessageId };
          reporter.outcome(outcomes[index]);
          continue;
        }
        const ready = prepared[index] as PreparedMessage;
        if (ready.status === 'done') reporter.outcome(ready.outcome);
        // Each event is reported as it runs; a batch message's events run in order, and its first failure ends it.
        const outcome = await traceMessage(options.tracing, message, ready, async () =>
          ready.status === 'done' ? ready.outcome : runEvents(deps, message, ready, { claimUntil, snapshot, tracker, reporter }),
        );
        outcomes[index] = outcome;
        if ((outcome.status === 'failed' || outcome.status === 'rejected') && message.messageGroupId !== undefined) {
          failedMessageId = message.messageId;
        }
      }
    };
    await runPool(groupsOf(messages), concurrency, () => (options.commit === 'batch' ? new BatchWorker(context) : { run: runGroup }));
    reporter.flush();
    const batchItemFailures = outcomes
      .filter((o) => o.status !== 'processed' && o.status !== 'duplicate')
      .map((o) => ({ itemIdentifier: o.messageId }));
    return { batchItemFailures, outcomes };
  };

  // No handler of this invocation runs past its timeout, so a claim it leaves behind (a crash, a timeout) can be
  // taken over as soon as SQS delivers the message again: the queue's visibility timeout is longer than the function's.
  const invocationEnd = (context?: Pick<Context, 'getRemainingTimeInMillis'>): number | undefined =>
    typeof context?.getRemainingTimeInMillis === 'function'
      ? Math.ceil((now() + context.getRemainingTimeInMillis()) / 1000) + 1
      : undefined;

  return {
    name: options.name,
    process: async (messages, processOptions) => {
      validateProcessOptions(processOptions);
      return process(messages, processOptions?.claimExpiresAt);
    },
    handler: async (event, context) => {
      // Every log line of the invocation names its request, as Powertools' injectLambdaContext does.
      if (typeof context?.awsRequestId === 'string') logger.addContext?.(context as Context);
      const { batchItemFailures } = await process(event.Records.map(fromSqsRecord), invocationEnd(context));
      return { batchItemFailures };
    },
  };
}
