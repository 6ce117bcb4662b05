import type { RequestListener } from 'node:http';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { OutboxConfig } from '../../config.js';
import type { PublishBatchClient } from '../../relay/index.js';
import type { WriteInput, WriteResult } from '../../write/index.js';
import type { LocalClients } from '../clients.js';
import type { SqsHandler } from '../event-source/sqs-event-source.js';
import type { StreamHandler, StreamRunnerStats } from '../event-source/stream-runner.js';
import type { LocalResources, LocalSubscription } from './resources.js';
import type { LocalStats } from './stats.js';

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
export interface LocalConsumerDeps {
  readonly config: OutboxConfig;
  readonly document: DynamoDBDocumentClient;
  /** The outbox table; the example consumers keep their views and inbox records in it. */
  readonly tableName: string;
}

/** What the example API is built from. */
export interface LocalApiDeps extends LocalConsumerDeps {
  /** The write helper on the local table, counted by the live view. */
  readonly outbox: OutboxWriter;
}

/** What the low-latency stream processor is started with. */
export interface LocalProcessorDeps extends LocalRelayDeps {
  readonly clients: LocalClients;
  readonly tableName: string;
  readonly streamArn: string;
}

/** A running in-process worker, such as the low-latency stream processor. */
export interface LocalWorker {
  stop(): Promise<void>;
}

/** A subscriber queue and the Lambda handler that consumes it. */
export interface LocalSubscriber extends LocalSubscription {
  readonly handler: (deps: LocalConsumerDeps) => SqsHandler;
}

/** One message a consumer acknowledged. */
export interface LocalDelivery {
  readonly subscriber: string;
  readonly body: string;
  /** Commit→delivery lag in ms, when the body is an envelope with a `time`. */
  readonly lagMs?: number;
}

export interface LocalStackOptions {
  readonly config: OutboxConfig;
  /** Builds the relay's Lambda handler, run through the local event-source-mapping runner. */
  readonly relay: (deps: LocalRelayDeps) => StreamHandler;
  readonly subscribers: readonly LocalSubscriber[];
  /** Builds the example API's request listener. */
  readonly api: (deps: LocalApiDeps) => RequestListener;
  /**
   * Starts the low-latency stream processor in process; required when the config names
   * low-latency aggregate types. @default none
   */
  readonly processor?: (deps: LocalProcessorDeps) => Promise<LocalWorker>;
  /** Port of the example API; 0 for a free one. @default 3000 */
  readonly apiPort?: number;
  /** @default '127.0.0.1' */
  readonly apiHost?: string;
  /** @default 0 — a free port */
  readonly dynamoDbPort?: number;
  /** Port of the SNS/SQS/S3 emulator. @default 0 — a free port */
  readonly emulatorPort?: number;
  /** Folder DynamoDB Local keeps its data in. @default undefined — in memory */
  readonly persistDir?: string;
  /** @default 'outbox' */
  readonly tableName?: string;
  /**
   * Concurrent consumer invocations per queue. Each has its own handler instance, as each
   * concurrent Lambda invocation has its own execution environment. @default 4
   */
  readonly consumerConcurrency?: number;
  /** Visibility timeout of the subscriber queues in seconds. @default 10 */
  readonly visibilityTimeoutSeconds?: number;
  readonly onDelivery?: (delivery: LocalDelivery) => void;
  /** Errors of the runners and pollers, which keep going. @default ignored */
  readonly onError?: (source: string, error: unknown) => void;
}

/** The running local stack. */
export interface LocalStack {
  readonly apiUrl: string;
  readonly dynamoDb: { readonly endpoint: string; readonly pid: number; readonly persistDir?: string };
  readonly emulatorEndpoint: string;
  readonly tableName: string;
  readonly streamArn: string;
  readonly tableCreated: boolean;
  readonly resources: LocalResources;
  readonly clients: LocalClients;
  readonly stats: LocalStats;
  readonly relayStats: StreamRunnerStats;
  /** Whether the low-latency processor runs. */
  readonly processorRunning: boolean;
  /** Messages now in each DLQ: the relay's and each subscriber's, by queue name. */
  deadLetterDepths(): { readonly relay: number; readonly subscribers: Readonly<Record<string, number>> };
  /** Stops everything, newest part first, and waits for DynamoDB Local's Java process to end. */
  stop(): Promise<void>;
}
