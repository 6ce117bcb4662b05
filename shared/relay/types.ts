/** The relay core's options and the client it publishes with: types only, below the relay's behaviour. */

import type { PublishBatchCommand, PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import type { OutboxConfig } from '../config.js';
import type { DeadLetterClient } from './dead-letter-sender.js';
import type { RetryDelays } from './retry-delays.js';

/** The SNS operation the relay needs; an `SNSClient` fits, and so does a wrapper around one. */
export interface PublishBatchClient {
  send(command: PublishBatchCommand, options?: { abortSignal?: AbortSignal }): Promise<PublishBatchCommandOutput>;
}

/** Which aggregate types a relay publishes; the two paths each take a disjoint share, but for the handed-over types. */
export type AggregateTypeSelection =
  | {
      /**
       * Aggregate types left to the other publishing path: their records are `ignored`. The
       * default leaves the low-latency ones to the stream processor, as the Lambda relay must,
       * except those in `config.handoverAggregateTypes`, which both paths publish.
       * @default config.lowLatencyAggregateTypes less config.handoverAggregateTypes
       */
      readonly ignoreAggregateTypes?: readonly string[];
      readonly onlyAggregateTypes?: never;
    }
  | {
      /** The only aggregate types published; all others are left to the other path (the stream processor's choice). */
      readonly onlyAggregateTypes: readonly string[];
      readonly ignoreAggregateTypes?: never;
    };

/** Options of `new Relay(...)`: the config and clients it publishes with, and which aggregate types it takes. */
export type RelayOptions = RelayBaseOptions & AggregateTypeSelection;

/** Options of one {@link Relay.relay} call. */
export interface RelayRunOptions {
  /**
   * Epoch ms after which nothing new is sent (the Lambda handler sets it from the invocation's
   * remaining time), at most 900000 ms from now; NaN or one further ahead is refused (`ConfigError`). @default none
   */
  readonly deadline?: number;
  /** Aborts the requests still in flight (the Lambda handler: just before the function's timeout); their records fail. @default none */
  readonly signal?: AbortSignal;
  /**
   * Asked synchronously just before every request the run would send (each `PublishBatch`, each
   * dead letter and each retry of one): once it returns `false`, nothing more is sent, as after the
   * deadline, and every record not yet delivered fails (`DEADLINE_REACHED`). Unlike an abort, which
   * a timer usually fires, it is asked at the moment of sending, so an answer handled before that
   * timer (after the event loop was blocked, say) sends nothing it no longer may. The stream
   * processor asks whether its lease still allows publishing; the Lambda handler does not use it.
   * @default every request may be sent
   */
  readonly mayPublish?: () => boolean;
}

export interface RelayBaseOptions {
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
