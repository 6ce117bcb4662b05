import type { PublishBatchCommand, PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import { followSignal } from '../abort.js';
import type { OutboxConfig } from '../config.js';
import { ConfigError } from '../errors.js';
import { type DeadLetterClient, DeadLetterSender } from './dead-letter-sender.js';
import type { RelayResult } from './outcome.js';
import { RelayRun } from './relay-run.js';
import { type RetryDelays, retryBackoff } from './retry-delays.js';
import type { StreamRecordInput } from './stream-record.js';

/** The SNS operation the relay needs; an `SNSClient` fits, and so does a wrapper around one. */
export interface PublishBatchClient {
  send(command: PublishBatchCommand, options?: { abortSignal?: AbortSignal }): Promise<PublishBatchCommandOutput>;
}

/** Which aggregate types a relay publishes; the two paths each take a disjoint share. */
export type AggregateTypeSelection =
  | {
      /**
       * Aggregate types left to the other publishing path: their records are `ignored`. The
       * default leaves the low-latency ones to the stream processor, as the Lambda relay must, so
       * a relay built without this option never publishes an event the processor publishes too.
       * @default config.lowLatencyAggregateTypes
       */
      readonly ignoreAggregateTypes?: readonly string[];
      readonly onlyAggregateTypes?: never;
    }
  | {
      /** The only aggregate types published; all others are left to the other path (the stream processor's choice). */
      readonly onlyAggregateTypes: readonly string[];
      readonly ignoreAggregateTypes?: never;
    };

export type RelayOptions = RelayBaseOptions & AggregateTypeSelection;

/** Options of one {@link Relay.relay} call. */
export interface RelayRunOptions {
  /** Epoch ms after which nothing new is sent (the Lambda handler sets it from the invocation's remaining time). @default none */
  readonly deadline?: number;
  /** Aborts the requests still in flight (the Lambda handler: just before the function's timeout); their records fail. @default none */
  readonly signal?: AbortSignal;
}

interface RelayBaseOptions {
  readonly config: OutboxConfig;
  readonly sns: PublishBatchClient;
  readonly sqs: DeadLetterClient;
  /** Topic name (as in the config) → topic ARN; every configured topic needs one. */
  readonly topicArns: Readonly<Record<string, string>>;
  /** URL of the relay dead-letter queue (SQS). */
  readonly deadLetterQueueUrl: string;
  /** Backoff between in-process retries (full jitter); attempts come from `config.relay.maxPublishAttempts`. @default 50 ms base, 2 s cap */
  readonly backoff?: RetryDelays;
}

/**
 * The relay core: decodes a batch of stream records into CloudEvents envelopes, routes each
 * to its topic and publishes with `PublishBatch`, in parallel across aggregates with bounded
 * concurrency and never reordering one aggregate's events. Transient failures are retried in
 * process; what still fails is reported per record; what can never be published goes to the
 * relay DLQ. Used by the Lambda relay and the stream processor alike.
 *
 * @example
 * ```ts
 * const relay = new Relay({ config, sns, sqs, topicArns, deadLetterQueueUrl });
 * const result = await relay.relay(event.Records);
 * const failed = lowestFailedSequenceNumber(result);
 * ```
 */
export class Relay {
  private readonly deadLetters: DeadLetterSender;

  constructor(private readonly options: RelayOptions) {
    for (const topic of options.config.topics) {
      const arn = options.topicArns[topic.name];
      if (typeof arn !== 'string' || !arn.startsWith('arn:')) {
        throw new ConfigError(
          `topicArns.${topic.name}`,
          `got ${JSON.stringify(arn)}; allowed: the ARN of topic "${topic.name}" (every configured topic needs one)`,
        );
      }
    }
    if (typeof options.deadLetterQueueUrl !== 'string' || !/^https?:\/\//.test(options.deadLetterQueueUrl)) {
      throw new ConfigError('deadLetterQueueUrl', `got ${JSON.stringify(options.deadLetterQueueUrl)}; allowed: an SQS queue URL`);
    }
    if (options.onlyAggregateTypes !== undefined && options.ignoreAggregateTypes !== undefined) {
      throw new ConfigError(
        'onlyAggregateTypes',
        'got both onlyAggregateTypes and ignoreAggregateTypes; allowed: at most one of them (each path publishes a disjoint set)',
      );
    }
    this.deadLetters = new DeadLetterSender(
      options.sqs,
      options.deadLetterQueueUrl,
      retryBackoff(options.config.relay.maxPublishAttempts, options.backoff),
    );
  }

  /**
   * Relays the records (in stream order) and says what happened to each. With a `deadline`
   * (epoch ms), nothing new is sent from then on: the requests in flight finish, and every
   * record not yet delivered is reported failed (`DEADLINE_REACHED`), so the caller retries
   * it instead of losing the whole batch's progress to a timeout.
   */
  async relay(records: readonly StreamRecordInput[], { deadline, signal }: RelayRunOptions = {}): Promise<RelayResult> {
    if (signal === undefined) return new RelayRun(this.options, this.deadLetters, records, deadline).run();
    // Every request in flight, and every wait before a dead letter's retry, listens to the signal.
    const followed = followSignal(signal);
    try {
      return await new RelayRun(this.options, this.deadLetters, records, deadline, followed.signal).run();
    } finally {
      followed.detach();
    }
  }
}
