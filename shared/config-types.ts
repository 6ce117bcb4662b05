import { DEFAULT_RELAY_TIMEOUT_SECONDS } from './relay-filter.js';

/** A topic the relay publishes to. FIFO topics keep per-aggregate order end to end. */
export interface TopicConfig {
  /** Logical and local name; a FIFO topic's name ends in `.fifo`. */
  readonly name: string;
  /** @default false */
  readonly fifo?: boolean;
  /**
   * Publish a run of consecutive events of one aggregate as one SNS message, a CloudEvents batch
   * (`application/cloudevents-batch+json`), so a hot aggregate drains many events per SNS round
   * trip with its order still exact. Only events with identical message attributes (same type)
   * share a message, so filter policies decide alike. Consumers must unpack batches (the consumer
   * helper does). See docs/relay.md.
   * @default off: one event per message
   */
  readonly batching?: TopicBatching;
}

/**
 * How many events of one aggregate one SNS message may carry on a batching topic.
 *
 * @example
 * ```ts
 * const batching: TopicBatching = { maxEvents: 10 };
 * defineConfig({ source, topics: [{ name: 'orders.fifo', fifo: true, batching }], routes: { order: 'orders.fifo' } });
 * ```
 */
export interface TopicBatching {
  /** Events per message (2–100), within the message-size limit. */
  readonly maxEvents: number;
}

/** A validated topic: `fifo` filled in, `batching` present only when the topic batches. */
export type TopicSettings = Required<Pick<TopicConfig, 'name' | 'fifo'>> & Pick<TopicConfig, 'batching'>;

/** The range of {@link TopicBatching.maxEvents}. */
export const BATCHING_MAX_EVENTS_RANGE: readonly [number, number] = [2, 100];

/** Tuning of the relay: the event source mapping's settings and the in-process publish loop. */
export interface RelayTuning {
  /** Records per batch handed to the relay (AWS: 1–10,000). @default 100 */
  readonly batchSize: number;
  /** Batching window in seconds (AWS: 0–300). @default 0 — lowest latency */
  readonly maxBatchingWindowSeconds: number;
  /** Concurrent batches per shard (AWS: 1–10); order per aggregate holds at any value. @default 1 */
  readonly parallelizationFactor: number;
  /** Split a failing batch in two to isolate the failing record. @default true */
  readonly bisectBatchOnError: boolean;
  /**
   * Retries of a failing batch before it goes to the on-failure destination (0–10,000), or -1 for
   * no limit: a failing batch is retried until its records expire from the stream (24 hours) or
   * exceed `maxRecordAgeSeconds`. @default 10
   */
  readonly maxRetryAttempts: number;
  /**
   * Records older than this go to the on-failure destination (60–604,800 s), or -1 for no limit:
   * records are retried until they expire from the stream (24 hours). The default, 23 hours, gives
   * a record still failing up to the destination an hour before DynamoDB may trim it; any value of
   * 86,400 or more acts as no limit on a DynamoDB stream. @default 82800
   */
  readonly maxRecordAgeSeconds: number;
  /** Publish requests in flight at once inside one invocation (1–64); 10 sends a default batch of 100 one-event records in one wave. @default 10 */
  readonly publishConcurrency: number;
  /** Attempts per publish before a transient failure is reported (1–10). @default 4 */
  readonly maxPublishAttempts: number;
  /**
   * The relay function's timeout per batch, in seconds (AWS: 1–900): the stack deploys it, and
   * the local runner ends an invocation not answered by then as a function error, as Lambda does.
   * @default 60
   */
  readonly timeoutSeconds: number;
}

/** The event archive: an archive queue subscribed to every topic, and an archiver writing its envelopes to S3. */
export interface ArchiveConfig {
  /** Days an archive object is kept before the bucket's lifecycle rule deletes it, 1 to 3650 (10 years). */
  readonly retentionDays: number;
}

/** Ten years, as for the outbox's retention. */
export const MAX_ARCHIVE_RETENTION_DAYS = 3650;

/**
 * The relay's default record age: 23 hours, an hour below DynamoDB Streams' 24-hour retention, so a
 * record that keeps failing reaches the on-failure destination (its whole record, in the deployed
 * S3 bucket) before the stream may trim it.
 */
export const DEFAULT_MAX_RECORD_AGE_SECONDS = 23 * 3600;

export const DEFAULT_RELAY_TUNING: RelayTuning = Object.freeze({
  batchSize: 100,
  maxBatchingWindowSeconds: 0,
  parallelizationFactor: 1,
  bisectBatchOnError: true,
  maxRetryAttempts: 10,
  maxRecordAgeSeconds: DEFAULT_MAX_RECORD_AGE_SECONDS,
  publishConcurrency: 10,
  maxPublishAttempts: 4,
  timeoutSeconds: DEFAULT_RELAY_TIMEOUT_SECONDS,
});

export const DEFAULT_OUTBOX_RETENTION_SECONDS = 7 * 24 * 3600;
/** Ten years: far beyond any sensible retention, and keeps every slot's TTL a safe integer. */
export const MAX_OUTBOX_RETENTION_SECONDS = 10 * 365 * 24 * 3600;
