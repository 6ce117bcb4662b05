/** The local event source mapping's types: its options, its handler's shape and what its shard readers share. */

import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { RelayEventSourceSettings } from '../../event-source.js';
import type { ShardInfo, StreamsApi } from '../../processor/stream-source.js';
import type { CheckpointStore } from './checkpoints.js';
import type { RecordTest } from './filter-pattern.js';
import type { OnFailureDestination } from './on-failure.js';

/** Name of the relay function as the local event source mapping reports it (context, on-failure records). */
export const LOCAL_RELAY_FUNCTION_NAME = 'outbox-relay-local';

/** The DynamoDB Streams operations the runner uses; a `DynamoDBStreamsClient` fits. */
export type StreamsClient = StreamsApi;

/** The part of Lambda's context the runner passes: the function's name, the request id and the time left before the timeout. */
export type StreamInvocationContext = Pick<Context, 'functionName' | 'awsRequestId' | 'getRemainingTimeInMillis'>;

/** A Lambda handler for DynamoDB stream events. */
export type StreamHandler = (event: DynamoDBStreamEvent, context: StreamInvocationContext) => Promise<DynamoDBBatchResponse | undefined>;

export interface StreamRunnerOptions {
  readonly streams: StreamsClient;
  readonly streamArn: string;
  /**
   * The event source mapping's settings and the function's timeout, from
   * `relayEventSourceSettings(config)`: the handler's context counts down from
   * `functionTimeoutSeconds`, and an invocation not answered by then is a function error (`Task
   * timed out after N seconds`), retried or bisected as on AWS; the abandoned call's result is
   * ignored.
   */
  readonly settings: RelayEventSourceSettings;
  readonly handler: StreamHandler;
  /**
   * Receives the invocation record of every batch given up on, and the batch itself (an S3
   * destination keeps it as `payload`; SQS and SNS destinations get the record only).
   * @default records are dropped, as without a destination
   */
  readonly onFailure?: OnFailureDestination;
  /** Time between polls of a shard at its end, in ms. @default 250 — four times a second, like Lambda */
  readonly pollIntervalMs?: number;
  /** Reported in on-failure records. @default a local placeholder ARN */
  readonly functionArn?: string;
  /**
   * The function's timeout, in ms, as a check only: the runner takes the timeout from
   * `settings.functionTimeoutSeconds`, so that the deployed function and local runs share one
   * definition.
   * @deprecated leave it out; a value that differs from `settings.functionTimeoutSeconds` × 1,000 is
   * refused with a `StreamRunnerOptionsError`
   * @default the settings' timeout
   */
  readonly timeoutMs?: number;
  /**
   * Keeps each shard's checkpoint (the last record done with), and resumes each shard it knows
   * after it; shards without one start at the mapping's starting position.
   * @default none: every start reads the stream from its starting position
   */
  readonly checkpoints?: CheckpointStore;
  /** Errors of the runner itself (a failing GetRecords, a failing destination); it keeps going. @default ignored */
  readonly onError?: (error: unknown) => void;
}

/** Counters of what the runner did, for tests and the local stack's logs. */
export interface StreamRunnerStats {
  invocations: number;
  failedInvocations: number;
  recordsRead: number;
  recordsFilteredOut: number;
  batchesSentToOnFailure: number;
}

/** A shard as the runner tracks it. */
export interface ShardState {
  readonly shard: ShardInfo;
  status: 'waiting' | 'reading' | 'ended';
  /** Records read and not yet done with (handed over and answered, or given up on), in every lane. */
  pending: number;
  /**
   * When the latest read that found the shard at its end, with nothing pending as it ended,
   * began (epoch ms; 0 before one): every record written before then has been done with.
   */
  drainedSince: number;
}

/** Where a runner is, for a wait on an idle pipeline (`StreamRunner.progress()`). */
export interface StreamRunnerProgress {
  /** When the stream's shards were last listed (epoch ms; 0 before the first listing). */
  readonly refreshedAt: number;
  readonly recordsRead: number;
  readonly invocations: number;
  readonly shards: readonly {
    readonly shardId: string;
    readonly status: ShardState['status'];
    readonly pending: number;
    readonly drainedSince: number;
  }[];
}

/** What a shard reader needs from its runner. */
export interface ReaderContext {
  readonly stats: StreamRunnerStats;
  stopped(): boolean;
  sleep(ms: number): Promise<void>;
  report(error: unknown): void;
  /** Whether a complete listing of the stream's shards has this one (rejects when the listing fails). */
  listed(shardId: string): Promise<boolean>;
  /** The mapping's filter criteria: whether a record (in the Lambda shape) is handed to the function. */
  readonly passesFilters: RecordTest;
}
