import type { RequestListener } from 'node:http';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { OutboxConfig } from '../../config.js';
import type { ProcessorOnFailureDestination } from '../../processor/on-failure-writer.js';
import type { PublishBatchClient } from '../../relay/index.js';
import type { Outbox, WriteInput, WriteResult } from '../../write/index.js';
import type { LocalClients } from '../clients.js';
import type { StreamHandler, StreamRunnerProgress, StreamRunnerStats } from '../event-source/stream-runner.js';
import type { HandlerActivity } from './handler-activity.js';
import type { LocalArchiver } from './local-archiver.js';
import type { PeerImporters } from './peers.js';
import type { LocalArchiveResources, LocalResources } from './resources.js';
import type { LocalStats } from './stats.js';
import type { AbortSignalLike, OutboxTestHandlerDeps, OutboxTestSubscriber } from './test-stack-types.js';

/** The write helper as the example API sees it. */
export type OutboxWriter = { write(input: WriteInput): Promise<WriteResult> };

/** What the relay handler is built from: the Lambda's clients and environment, locally. */
export interface LocalRelayDeps {
  readonly config: OutboxConfig;
  /** SNS, counted by the live view as it accepts entries. */
  readonly sns: PublishBatchClient;
  readonly sqs: SQSClient;
  readonly topicArns: Readonly<Record<string, string>>;
  readonly deadLetterQueueUrl: string;
}

/** What a consumer handler is built from. */
export type LocalConsumerDeps = OutboxTestHandlerDeps;

/** What the example API is built from. */
export interface LocalApiDeps extends LocalConsumerDeps {
  /** The write helper on the local table, counted by the live view. */
  readonly outbox: OutboxWriter;
}

/**
 * What the low-latency stream processor is started with: the options `startProcessor` takes
 * (from `dynamodb-outbox/processor`), on the local parts, with its lease table created.
 */
export interface LocalProcessorDeps extends LocalRelayDeps {
  readonly streams: DynamoDBStreamsClient;
  readonly streamArn: string;
  /** A DocumentClient on DynamoDB Local, which holds the lease table. */
  readonly document: DynamoDBDocumentClient;
  readonly leaseTableName: string;
  /** The failed-batch bucket on the emulator's S3, which the relay's on-failure destination writes to as well. */
  readonly onFailure: ProcessorOnFailureDestination;
}

/** A running in-process worker, such as the low-latency stream processor. */
export interface LocalWorker {
  stop(): Promise<void>;
  /** The processor's counts (`ProcessorWorker.status()`): stream records done with, events published. */
  status?(): { readonly recordsProcessed: number; readonly eventsPublished: number };
}

/** What the running parts are doing, for a wait on an idle pipeline (the test stack's `waitForIdle`). */
export interface LocalActivity {
  /** The relay's event source: its shards, what it has read and invoked. */
  relay(): StreamRunnerProgress;
  /** The low-latency processor's counts; `undefined` when none runs (or it tells none). */
  processor(): { readonly recordsProcessed: number; readonly eventsPublished: number } | undefined;
  /** The subscribers' handlers' invocations. */
  readonly handlers: HandlerActivity;
}

/** A subscriber queue, and the Lambda handler that consumes it when it has one. */
export type LocalSubscriber = OutboxTestSubscriber;

/** One message a consumer acknowledged. */
export interface LocalDelivery {
  readonly subscriber: string;
  readonly body: string;
  /** Commit→delivery lag in ms, when the body is an envelope with a `time`. */
  readonly lagMs?: number;
}

export interface LocalStackOptions {
  readonly config: OutboxConfig;
  /** @default none */
  readonly subscribers?: readonly LocalSubscriber[];
  /**
   * Builds the relay's Lambda handler, run through the local event-source-mapping runner.
   * @default the real relay (`localRelayHandler`: `createRelayHandler` on a `Relay`)
   */
  readonly relay?: (deps: LocalRelayDeps) => StreamHandler;
  /**
   * Starts the low-latency stream processor in process, when the config names low-latency or
   * handed-over aggregate types. @default the real processor (`startProcessor`), its errors to `onError`
   */
  readonly processor?: (deps: LocalProcessorDeps) => Promise<LocalWorker>;
  /** Builds a request listener (the example API) served over HTTP on `apiPort`. @default none: no HTTP server */
  readonly api?: (deps: LocalApiDeps) => RequestListener;
  /** Port of the API, bound before anything starts; 0 for a free one. @default 0 */
  readonly apiPort?: number;
  /** @default '127.0.0.1' */
  readonly apiHost?: string;
  /** @default 0 — a free port */
  readonly dynamoDbPort?: number;
  /** Port of the SNS/SQS/S3 emulator. @default 0 — a free port */
  readonly emulatorPort?: number;
  /** Folder DynamoDB Local keeps its data (and the relay its checkpoints) in. @default undefined — in memory */
  readonly persistDir?: string;
  /** @default 'outbox' */
  readonly tableName?: string;
  /** Visibility timeout of the subscriber queues and the archive queue in seconds, 3–43200. @default 10 */
  readonly visibilityTimeoutSeconds?: number;
  readonly onDelivery?: (delivery: LocalDelivery) => void;
  /**
   * What the archiver (run when the config has `archive`) does with its metrics: `'emf'` writes
   * them as EMF lines (unless `POWERTOOLS_METRICS_DISABLED=true`), as the deployed archiver does.
   * @default 'emf'
   */
  readonly archiverMetrics?: 'emf' | 'discard';
  /** Errors of the runners and pollers, which keep going. @default ignored */
  readonly onError?: (source: string, error: unknown) => void;
  /** Loaders of the optional peers in place of `import()`, for tests. @default `import()` of each */
  readonly peers?: PeerImporters;
  /**
   * Aborts the start: what had started is stopped (DynamoDB Local's Java waited for) and the
   * start rejects with `LocalStackError` `START_ABORTED`. An abort once it has resolved does
   * nothing: call `stop()`. Node's own `AbortSignal`, or one of a polyfill or another realm that
   * behaves as it does. @default none
   */
  readonly signal?: AbortSignalLike;
  /** Called as each step of the start begins, with what it does (`starting DynamoDB Local`), for tests. @default none */
  readonly onStep?: (step: string) => void;
}

/** The running local stack. */
export interface LocalStack {
  /** Where the API listens; `undefined` without one. */
  readonly apiUrl: string | undefined;
  readonly dynamoDb: { readonly endpoint: string; readonly pid: number; readonly persistDir?: string };
  readonly emulatorEndpoint: string;
  readonly tableName: string;
  readonly streamArn: string;
  readonly tableCreated: boolean;
  readonly resources: LocalResources;
  readonly clients: LocalClients;
  /** The write helper on the local table (writes through it are not counted in `stats`). */
  readonly outbox: Outbox;
  readonly stats: LocalStats;
  readonly relayStats: StreamRunnerStats;
  readonly activity: LocalActivity;
  /** Whether the low-latency processor runs. */
  readonly processorRunning: boolean;
  /** Whether `stop()` has been called. */
  readonly stopped: boolean;
  /**
   * Messages in each DLQ, the relay's and each subscriber's by subscription name, as last counted:
   * the stack counts them every second (and once before it starts).
   */
  deadLetterDepths(): { readonly relay: number; readonly subscribers: Readonly<Record<string, number>> };
  /** The archive and its archiver, when the config has `archive`. */
  readonly archive?: LocalArchiveResources & Pick<LocalArchiver, 'counts' | 'waitForArchived'>;
  /**
   * Stops everything, newest part first, and waits for DynamoDB Local's Java process to end.
   *
   * @throws the failure of a part that failed to stop (the others still stop, Java included);
   * `LocalStackError` `STOP_FAILED`, naming each and holding them in `errors`, when several did
   */
  stop(): Promise<void>;
}
