import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import type { OutboxConfig } from '../config.js';
import { relayEventSourceSettings } from '../event-source.js';
import type { PublishBatchClient } from '../relay/index.js';
import { Outbox, type WriteInput, type WriteResult } from '../write.js';
import { type LocalClients, localClients } from './clients.js';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.js';
import { listen } from './listen.js';
import { LocalStackError } from './local-stack-error.js';
import { createLocalResources, type LocalResources, type LocalSubscription } from './resources.js';
import { type SqsBatchReport, type SqsHandler, SqsPoller } from './sqs-poller.js';
import { LocalStats } from './stats.js';
import { type StreamHandler, StreamRunner, type StreamRunnerStats } from './stream-runner.js';
import { ensureOutboxTable } from './table.js';

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

const queueDepth = (server: FauxqsServer, name: string): number => {
  const state = server.inspectQueue(name);
  return state === undefined ? 0 : state.messages.ready.length + state.messages.delayed.length + state.messages.inflight.length;
};

async function startEmulator(port: number): Promise<FauxqsServer> {
  try {
    return await startFauxqs({ port, logger: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new LocalStackError(
        'PORT_IN_USE',
        `port ${port} for the SNS/SQS emulator is already in use; choose another port or stop what holds it`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

/**
 * Starts the whole system on this machine from one config: DynamoDB Local and the SNS/SQS
 * emulator, the table, topics, queues and subscriptions the CDK stack deploys, the real relay
 * handler behind the local event-source-mapping runner (and the low-latency processor when
 * configured), the real consumer handlers behind SQS pollers, and the example API on the write
 * helper. Whatever fails to start is stopped again before the error is thrown.
 *
 * @example
 * ```ts
 * const stack = await startLocalStack({ config, relay, subscribers, api, apiPort: 0 });
 * await fetch(`${stack.apiUrl}/orders`, { method: 'POST', body: '{"total":42,"currency":"EUR"}' });
 * await stack.stop();
 * ```
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const { config } = options;
  if (config.lowLatencyAggregateTypes.length > 0 && options.processor === undefined) {
    throw new LocalStackError(
      'LOW_LATENCY_PROCESSOR_MISSING',
      `the config routes ${config.lowLatencyAggregateTypes.join(', ')} through the low-latency processor, and none was given; allowed: pass a processor, or set lowLatencyAggregateTypes to []`,
    );
  }
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  const report = (source: string) => (error: unknown) => options.onError?.(source, error);
  try {
    let ready: RequestListener = (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ error: { code: 'STARTING', message: 'the local stack is still starting' } }));
    };
    const http = createServer((req, res) => ready(req, res));
    const apiHost = options.apiHost ?? '127.0.0.1';
    // The API port is bound first: a taken port fails in milliseconds, before Java starts.
    const apiPort = await listen(http, options.apiPort ?? 3000, apiHost, 'the example API');
    const closeApi = async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    };
    stops.push(closeApi);

    const dynamoDb: DynamoDbLocal = await startDynamoDbLocal({
      port: options.dynamoDbPort ?? 0,
      ...(options.persistDir === undefined ? {} : { dbPath: options.persistDir }),
    });
    stops.push(() => dynamoDb.stop());
    const server = await startEmulator(options.emulatorPort ?? 0);
    stops.push(() => server.stop());
    const clients = localClients({ dynamodb: dynamoDb.endpoint, aws: server.address });
    stops.push(async () => clients.destroy());

    const tableName = options.tableName ?? 'outbox';
    const { streamArn, created } = await ensureOutboxTable(clients.dynamodb, tableName);
    const resources = createLocalResources(server, {
      config,
      subscriptions: options.subscribers,
      ...(options.visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
    });
    const stats = new LocalStats();
    const sns: PublishBatchClient = {
      send: async (command: PublishBatchCommand) => {
        const output = await clients.sns.send(command);
        stats.published += output.Successful?.length ?? 0;
        return output;
      },
    };
    const relayDeps: LocalRelayDeps = {
      config,
      sns,
      sqs: clients.sqs,
      topicArns: resources.topicArns,
      deadLetterQueueUrl: resources.relayDeadLetterQueue.url,
    };

    const runner = new StreamRunner({
      streams: clients.streams,
      streamArn,
      settings: relayEventSourceSettings(config),
      handler: options.relay(relayDeps),
      onFailure: async (record) => {
        const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
        await clients.s3.send(
          new PutObjectCommand({
            Bucket: resources.failedBatchBucket,
            Key: `aws/lambda/local-relay/${record.DDBStreamBatchInfo.shardId}/${day}/${record.timestamp}-${randomUUID()}`,
            Body: JSON.stringify(record),
            ContentType: 'application/json',
          }),
        );
      },
      onError: report('relay'),
    });
    runner.start();
    stops.push(() => runner.stop());

    let processorRunning = false;
    if (config.lowLatencyAggregateTypes.length > 0 && options.processor !== undefined) {
      const worker = await options.processor({ ...relayDeps, clients, tableName, streamArn });
      processorRunning = true;
      stops.push(() => worker.stop());
    }

    const consumerDeps: LocalConsumerDeps = { config, document: clients.document, tableName };
    for (const { subscription, queue } of resources.subscriptions) {
      const subscriber = options.subscribers.find((s) => s.name === subscription.name) as LocalSubscriber;
      const counters = stats.consumer(subscription.name);
      const onBatch = (batch: SqsBatchReport) => {
        const at = Date.now();
        counters.delivered += batch.acknowledged.length;
        counters.failed += batch.failed.length;
        for (const record of batch.acknowledged) {
          const lagMs = stats.recordLag(record.body, at);
          options.onDelivery?.({ subscriber: subscription.name, body: record.body, ...(lagMs === undefined ? {} : { lagMs }) });
        }
      };
      for (let i = 0; i < (options.consumerConcurrency ?? 4); i++) {
        const poller = new SqsPoller({
          sqs: clients.sqs,
          queue,
          handler: subscriber.handler(consumerDeps),
          onBatch,
          onError: report(`consumer ${subscription.name}`),
        });
        poller.start();
        stops.push(() => poller.stop());
      }
    }

    const outbox = new Outbox({ config, tableName, client: clients.document });
    const writer: OutboxWriter = {
      write: async (input) => {
        const result = await outbox.write(input);
        if (!result.replayed) stats.written += result.events.length;
        return result;
      },
    };
    ready = options.api({ ...consumerDeps, outbox: writer });
    // Moved last, so it runs first on stop: no request reaches a half-stopped stack.
    stops.splice(stops.indexOf(closeApi), 1);
    stops.push(closeApi);

    return {
      apiUrl: `http://${apiHost.includes(':') ? `[${apiHost}]` : apiHost}:${apiPort}`,
      dynamoDb: {
        endpoint: dynamoDb.endpoint,
        pid: dynamoDb.pid,
        ...(options.persistDir === undefined ? {} : { persistDir: options.persistDir }),
      },
      emulatorEndpoint: server.address,
      tableName,
      streamArn,
      tableCreated: created,
      resources,
      clients,
      stats,
      relayStats: runner.stats,
      processorRunning,
      deadLetterDepths: () => ({
        relay: queueDepth(server, resources.relayDeadLetterQueue.name),
        subscribers: Object.fromEntries(
          resources.subscriptions.map((s) => [s.subscription.name, queueDepth(server, s.deadLetterQueue.name)]),
        ),
      }),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
