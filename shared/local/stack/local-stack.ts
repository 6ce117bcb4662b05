import { join } from 'node:path';
import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { errorName } from '../../aws/error-name.js';
import type { OutboxConfig } from '../../config.js';
import { relayEventSourceSettings } from '../../event-source.js';
import { processorAggregateTypes } from '../../publishing-paths.js';
import type { PublishBatchClient } from '../../relay/index.js';
import { Outbox } from '../../write/index.js';
import { localClients } from '../clients.js';
import { LocalStackError } from '../errors.js';
import { fileCheckpointStore, RELAY_CHECKPOINT_FILE } from '../event-source/checkpoints.js';
import { s3OnFailureDestination } from '../event-source/on-failure.js';
import { StreamRunner } from '../event-source/stream-runner.js';
import { type ApiServer, bindApiServer } from './api-server.js';
import { startLocalConsumers } from './consumers.js';
import { watchDeadLetterDepths } from './dead-letter-depths.js';
import { checkDynamoDbPort, type DynamoDbLocal, startDynamoDbLocalJavaChecked } from './dynamodb-local.js';
import { checkEmulatorPort, startEmulator } from './emulator.js';
import { checkJava } from './java.js';
import { startLocalArchiver } from './local-archiver.js';
import { checkDistinctPorts, checkOptionShapes, checkPort, checkSubscriptions, checkTableName, checkVisibilityTimeout } from './options.js';
import { loadPeers } from './peers.js';
import { lockPersistDir, type PersistLock } from './persist-lock.js';
import { createLocalLeaseTable, LOCAL_LEASE_TABLE, startLocalProcessor } from './processor.js';
import { localRelayHandler } from './relay.js';
import { createLocalResources } from './resources.js';
import { checkSignal, followSignal, startAborted } from './start-abort.js';
import { LocalStats } from './stats.js';
import { withStopFailures } from './stop-failures.js';
import { StopList } from './stop-list.js';
import { ensureOutboxTable } from './table.js';
import type { LocalConsumerDeps, LocalRelayDeps, LocalStack, LocalStackOptions, LocalWorker, OutboxWriter } from './types.js';

export type * from './types.js';

/** Every option that can be checked without starting anything, so a typo fails in milliseconds; the config the start runs on. */
function checkOptions(options: LocalStackOptions): OutboxConfig {
  const config = checkOptionShapes(options.config, options.subscribers, options.onError);
  checkSubscriptions(config, options.subscribers ?? []);
  checkTableName(options.tableName, processorAggregateTypes(config).length > 0 ? LOCAL_LEASE_TABLE : undefined);
  checkPort('apiPort', options.apiPort);
  checkPort('dynamoDbPort', options.dynamoDbPort);
  checkPort('emulatorPort', options.emulatorPort);
  checkDistinctPorts([
    ...(options.api === undefined ? [] : [['apiPort', options.apiPort] as const]),
    ['dynamoDbPort', options.dynamoDbPort],
    ['emulatorPort', options.emulatorPort],
  ]);
  checkVisibilityTimeout(options.visibilityTimeoutSeconds);
  checkSignal('signal', options.signal);
  return config;
}

/**
 * Starts the whole system on this machine from one config: DynamoDB Local and the SNS/SQS
 * emulator, the table, topics, queues and subscriptions the CDK stack deploys, the real relay
 * handler behind the local event-source-mapping runner (and the real low-latency processor when
 * the config names low-latency or handed-over types), the subscribers' handlers behind local SQS event
 * sources, and an API on the write helper when one is given. Whatever fails to start is stopped
 * again before the error is thrown, and so is whatever had started when `signal` aborts the start
 * (`START_ABORTED`, naming the step). `npm start` and the test stack are built on it.
 *
 * @example
 * ```ts
 * const stack = await startLocalStack({ config, subscribers, api, apiPort: 0 });
 * await fetch(`${stack.apiUrl}/orders`, { method: 'POST', body: '{"total":42,"currency":"EUR"}' });
 * await stack.stop();
 * ```
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const config = checkOptions(options);
  const followed = followSignal(options.signal);
  try {
    return await startParts({ ...options, config }, followed.signal);
  } finally {
    followed.release();
  }
}

/** The start once its options are checked, `signal` Node's own. */
async function startParts(options: LocalStackOptions, signal: AbortSignal | undefined): Promise<LocalStack> {
  const { config } = options;
  const subscribers = options.subscribers ?? [];
  /** The step the start is in, for the error an abort ends it with. */
  let during = 'before anything had started';
  /**
   * Begins the next step, unless `signal` aborted during the last one: a step runs to its end (a
   * half-made part could not be stopped), DynamoDB Local's, the long one, aside: it ends at once.
   */
  const next = (step: string): void => {
    if (signal?.aborted) throw startAborted(signal, during);
    during = `while ${step}`;
    options.onStep?.(step);
  };
  next('loading the optional peer dependencies');
  // Before anything starts: a missing optional peer, or Java, leaves nothing behind. DynamoDB Local checks it not again.
  await loadPeers(options.peers);
  next('checking Java');
  checkJava();
  const stops = new StopList();
  const report = (source: string) => (error: unknown) => options.onError?.(source, error);
  const reportRelay = report('relay');
  /*
   * DynamoDB Local answers the first read of a TRIM_HORIZON iterator on an empty shard with
   * TrimmedDataAccessException; the runner takes a fresh iterator at its next poll. Records trimmed
   * after those it read it reports itself as it resumes (naming the shard and the sequence
   * number), so this answer on its own says nothing worth a line.
   */
  const onRelayError = (error: unknown) => {
    if (errorName(error) !== 'TrimmedDataAccessException') reportRelay(error);
  };
  let lock: PersistLock | undefined;
  /** Set once the start has failed: the catch below gives the lock up, once it knows whether every part stopped. */
  let failed = false;
  try {
    // The API port is bound first: a taken port fails in milliseconds, before Java starts.
    let api: ApiServer | undefined;
    if (options.api !== undefined) {
      next("binding the example API's port");
      api = await bindApiServer(options.apiPort ?? 0, options.apiHost ?? '127.0.0.1');
      stops.push(api.close);
    }
    // So is the emulator's, which would otherwise show only once DynamoDB Local's Java has started.
    const emulatorPort = options.emulatorPort ?? 0;
    next('checking the ports');
    await checkEmulatorPort(emulatorPort);
    // DynamoDB Local's port too, before the --persist folder is created: a refused start leaves nothing.
    const dynamoDbPort = options.dynamoDbPort ?? 0;
    await checkDynamoDbPort(dynamoDbPort);

    if (options.persistDir !== undefined) {
      next('taking the --persist folder');
      const held = await lockPersistDir(options.persistDir);
      lock = held;
      stops.push(async () => (failed ? undefined : held.release()));
    }
    next('starting DynamoDB Local');
    const dynamoDb: DynamoDbLocal = await startDynamoDbLocalJavaChecked({
      port: dynamoDbPort,
      ...(options.persistDir === undefined ? {} : { dbPath: options.persistDir }),
      ...(signal === undefined ? {} : { signal }),
    });
    stops.push(() => dynamoDb.stop());
    next('starting the SNS/SQS emulator');
    const emulator = await startEmulator(emulatorPort, options.peers?.fauxqs);
    stops.push(() => emulator.stop());
    const clients = localClients({ dynamodb: dynamoDb.endpoint, aws: emulator.address });
    stops.push(async () => clients.destroy());

    const tableName = options.tableName ?? 'outbox';
    next('creating the outbox table');
    const { streamArn, created } = await ensureOutboxTable(clients.dynamodb, tableName);
    next('creating the topics, queues and subscriptions');
    const resources = await createLocalResources(clients, {
      config,
      subscriptions: subscribers,
      ...(options.visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
    });
    const deadLetters = await watchDeadLetterDepths(clients.sqs, {
      relay: resources.relayDeadLetterQueue.url,
      subscribers: resources.subscriptions.map((s) => [s.subscription.name, s.deadLetterQueue.url] as const),
    });
    stops.push(async () => deadLetters.stop());
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
    next('starting the relay');
    const checkpoints =
      options.persistDir === undefined
        ? undefined
        : await fileCheckpointStore(join(options.persistDir, RELAY_CHECKPOINT_FILE), streamArn, reportRelay);
    const runner = new StreamRunner({
      streams: clients.streams,
      streamArn,
      // The mapping's settings and the function's timeout (the config's relay.timeoutSeconds), as deployed.
      settings: relayEventSourceSettings(config),
      handler: (options.relay ?? localRelayHandler)(relayDeps),
      // As deployed: an S3 destination keeps the invocation record with the batch's records as `payload`.
      onFailure: s3OnFailureDestination(clients.s3, resources.failedBatchBucket),
      ...(checkpoints === undefined ? {} : { checkpoints }),
      onError: onRelayError,
    });
    runner.start();
    stops.push(() => runner.stop());

    let processor: LocalWorker | undefined;
    if (processorAggregateTypes(config).length > 0) {
      next('starting the low-latency processor');
      const leaseTableName = await createLocalLeaseTable(clients);
      const onFailure = { s3: clients.s3, bucket: resources.failedBatchBucket };
      const deps = { ...relayDeps, streams: clients.streams, streamArn, document: clients.document, leaseTableName, onFailure };
      const worker = await (
        options.processor ?? ((d) => startLocalProcessor(d, (what, error) => options.onError?.(`processor: ${what}`, error)))
      )(deps);
      processor = worker;
      stops.push(() => worker.stop());
    }

    const consumerDeps: LocalConsumerDeps = { config, document: clients.document, tableName };
    next('starting the consumers');
    for (const poller of startLocalConsumers({
      sqs: clients.sqs,
      resources,
      subscribers,
      deps: consumerDeps,
      stats,
      ...(options.onDelivery === undefined ? {} : { onDelivery: options.onDelivery }),
      onError: (source, error) => options.onError?.(source, error),
    })) {
      stops.push(() => poller.stop());
    }

    // Started after the consumers, so it stops before them; the queue keeps what it has not archived yet.
    const archive = resources.archive;
    if (archive !== undefined) next('starting the archiver');
    const archiver =
      archive === undefined
        ? undefined
        : startLocalArchiver({
            sqs: clients.sqs,
            s3: clients.s3,
            archive,
            visibilityTimeoutSeconds: resources.visibilityTimeoutSeconds,
            ...(options.archiverMetrics === undefined ? {} : { metrics: options.archiverMetrics }),
            onError: (error) => options.onError?.('archiver', error),
          });
    if (archiver !== undefined) stops.push(() => archiver.stop());

    const outbox = new Outbox({ config, tableName, client: clients.document });
    if (api !== undefined && options.api !== undefined) {
      next('starting the example API');
      const writer: OutboxWriter = {
        write: async (input) => {
          const result = await outbox.write(input);
          if (!result.replayed) stats.written += result.events.length;
          return result;
        },
      };
      api.serve(options.api({ ...consumerDeps, outbox: writer }));
      // Stopped first: no request reaches a half-stopped stack.
      stops.moveFirst(api.close);
    }

    // An abort during the last step ends the start too; one after this line does nothing.
    if (signal?.aborted) throw startAborted(signal, during);
    return {
      apiUrl: api?.url,
      dynamoDb: {
        endpoint: dynamoDb.endpoint,
        pid: dynamoDb.pid,
        ...(options.persistDir === undefined ? {} : { persistDir: options.persistDir }),
      },
      emulatorEndpoint: emulator.address,
      tableName,
      streamArn,
      tableCreated: created,
      resources,
      clients,
      outbox,
      stats,
      relayStats: runner.stats,
      activity: { relay: () => runner.progress(), processor: () => processor?.status?.(), handlers: stats.handlers },
      processorRunning: processor !== undefined,
      get stopped() {
        return stops.stopped;
      },
      deadLetterDepths: deadLetters.current,
      ...(archive === undefined || archiver === undefined
        ? {}
        : { archive: { ...archive, counts: archiver.counts, waitForArchived: archiver.waitForArchived } }),
      stop: stops.stopAll,
    };
  } catch (error) {
    // The start failure is what the caller must see; each failure to stop on top of it goes with it,
    // in its `errors` (its cause, the signal's reason for an aborted start, stays its own).
    failed = true;
    const stopFailures = [...(await stops.stopReporting())];
    // A --persist folder this failed start created holds nothing of an earlier run; it stays while a part that failed to stop may use it.
    const notRemoved = await lock?.discard(stopFailures.length === 0);
    if (notRemoved !== undefined) stopFailures.push(notRemoved);
    if (signal?.aborted && error instanceof LocalStackError && error.code === 'START_ABORTED')
      throw startAborted(signal, during, stopFailures);
    throw withStopFailures(error, stopFailures);
  }
}
