import { rm } from 'node:fs/promises';
import { createServer, type RequestListener } from 'node:http';
import { join } from 'node:path';
import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { relayEventSourceSettings } from '../../event-source.js';
import type { PublishBatchClient } from '../../relay/index.js';
import { Outbox } from '../../write/index.js';
import { localClients } from '../clients.js';
import { LocalStackError } from '../errors.js';
import { fileCheckpointStore, RELAY_CHECKPOINT_FILE } from '../event-source/checkpoints.js';
import { s3OnFailureDestination } from '../event-source/on-failure.js';
import { type SqsBatchReport, SqsPoller } from '../event-source/sqs-event-source.js';
import { StreamRunner } from '../event-source/stream-runner.js';
import { checkDynamoDbPort, type DynamoDbLocal, portBindError, portRefusal, startDynamoDbLocal } from './dynamodb-local.js';
import { listen } from './listen.js';
import { lockPersistDir } from './persist-lock.js';
import { createLocalResources } from './resources.js';
import { LocalStats } from './stats.js';
import { ensureOutboxTable } from './table.js';
import type { LocalConsumerDeps, LocalRelayDeps, LocalStack, LocalStackOptions, LocalSubscriber, OutboxWriter } from './types.js';

export type * from './types.js';

const queueDepth = (server: FauxqsServer, name: string): number => {
  const state = server.inspectQueue(name);
  return state === undefined ? 0 : state.messages.ready.length + state.messages.delayed.length + state.messages.inflight.length;
};

const EMULATOR = 'the SNS/SQS emulator';

async function startEmulator(port: number): Promise<FauxqsServer> {
  try {
    return await startFauxqs({ port, logger: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new LocalStackError('PORT_IN_USE', portRefusal(code, port, EMULATOR), { cause: error });
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
  /** Every part is stopped even when one fails to, so DynamoDB Local's Java always ends; the first failure is rethrown. */
  const stopAll = async () => {
    let failure: unknown;
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  };
  const report = (source: string) => (error: unknown) => options.onError?.(source, error);
  let createdDir: string | undefined;
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
    // So is the emulator's, which would otherwise show only once DynamoDB Local's Java has started.
    const emulatorPort = options.emulatorPort ?? 0;
    const emulatorBindError = emulatorPort === 0 ? undefined : await portBindError(emulatorPort);
    if (emulatorBindError !== undefined) throw new LocalStackError('PORT_IN_USE', portRefusal(emulatorBindError, emulatorPort, EMULATOR));

    // DynamoDB Local's port too, before the --persist folder is created: a refused start leaves nothing.
    const dynamoDbPort = options.dynamoDbPort ?? 0;
    await checkDynamoDbPort(dynamoDbPort);

    if (options.persistDir !== undefined) {
      const lock = await lockPersistDir(options.persistDir);
      createdDir = lock.createdDir;
      stops.push(() => lock.release());
    }
    const dynamoDb: DynamoDbLocal = await startDynamoDbLocal({
      port: dynamoDbPort,
      ...(options.persistDir === undefined ? {} : { dbPath: options.persistDir }),
    });
    stops.push(() => dynamoDb.stop());
    const server = await startEmulator(emulatorPort);
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

    // With --persist, the relay's checkpoints are kept next to the data, so a restart goes on where the last run stopped.
    const checkpoints =
      options.persistDir === undefined
        ? undefined
        : await fileCheckpointStore(join(options.persistDir, RELAY_CHECKPOINT_FILE), streamArn, report('relay'));
    const runner = new StreamRunner({
      streams: clients.streams,
      streamArn,
      settings: relayEventSourceSettings(config),
      handler: options.relay(relayDeps),
      // As deployed: an S3 destination keeps the invocation record with the batch's records as `payload`.
      onFailure: s3OnFailureDestination(clients.s3, resources.failedBatchBucket),
      timeoutMs: config.relay.timeoutSeconds * 1000,
      ...(checkpoints === undefined ? {} : { checkpoints }),
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
          visibilityTimeoutSeconds: resources.visibilityTimeoutSeconds,
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
    // The start failure is what the caller must see; a failure to stop on top of it goes with it as its cause.
    await stopAll().catch((stopError: unknown) => {
      if (error instanceof Error && error.cause === undefined) error.cause = stopError;
    });
    // A --persist folder this failed start created holds nothing of an earlier run.
    if (createdDir !== undefined) await rm(createdDir, { recursive: true, force: true }).catch(() => {});
    throw error;
  }
}
