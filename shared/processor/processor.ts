import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { checkedConfig, configRefusal, type OutboxConfig } from '../config.js';
import { declaredEventTypes } from '../lag-by-event-type.js';
import { processorAggregateTypes } from '../publishing-paths.js';
import { Relay } from '../relay/index.js';
import type { RelayBaseOptions } from '../relay/types.js';
import { ProcessorOptionsError } from './errors.js';
import { DynamoDbLeaseTable } from './lease-table.js';
import { onFailureWriter, type ProcessorOnFailureDestination } from './on-failure-writer.js';
import { checkProcessorOptions } from './processor-options.js';
import { defaultWorkerId } from './processor-rules.js';
import type { ProcessorWorker } from './processor-worker.js';
import type { ProcessorSettings } from './settings.js';
import { StreamSource, type StreamsApi } from './stream-source.js';
import { Worker } from './worker.js';
import type { WorkerObserver } from './worker-observer.js';

/** What the relay core needs to publish the processor's share: the relay's own options, without the aggregate-type selection (the processor takes the low-latency types). */
export type ProcessorRelayOptions = RelayBaseOptions;

/**
 * The relay core restricted to the config's low-latency and handed-over aggregate types: the
 * Lambda path's filter leaves out the low-latency ones not handed over, so each event is
 * published by one path only, but for a handed-over type's, which both publish.
 *
 * @example
 * ```ts
 * const relay = createProcessorRelay({ config, sns, sqs, topicArns, deadLetterQueueUrl });
 * ```
 */
export function createProcessorRelay(given: ProcessorRelayOptions): Relay {
  const config = processorConfig(given.config);
  const options = { ...given, config };
  const types = processorAggregateTypes(config);
  if (types.length === 0) {
    throw new ProcessorOptionsError(
      'config.lowLatencyAggregateTypes',
      'got []; allowed: at least one routed aggregate type, here or in config.handoverAggregateTypes (with none, the processor would publish nothing)',
    );
  }
  return new Relay({ ...options, onlyAggregateTypes: types });
}

/**
 * Options of `createProcessor` and `startProcessor`: the relay's (those of `createProcessorRelay`),
 * plus the stream to read, the lease table that shares its shards among workers, and the worker's own.
 */
export interface StartProcessorOptions extends ProcessorRelayOptions {
  /** A `DynamoDBStreamsClient` (or a stream with the same operations). */
  readonly streams: StreamsApi;
  /** The outbox table's stream, as its `LatestStreamArn` gives it. */
  readonly streamArn: string;
  /** Document client of the DynamoDB that holds the lease table. */
  readonly document: DynamoDBDocumentClient;
  /** The table the workers keep their shard leases and checkpoints in. */
  readonly leaseTableName: string;
  /**
   * Names this worker in the leases it holds; give each worker its own (not blank).
   * @default `<hostname>-<pid>-<random>`, as `processorEnvironment` makes when `OUTBOX_PROCESSOR_WORKER_ID` is unset
   */
  readonly workerId?: string;
  /** Timing and balancing; a field left out takes its default (see `ProcessorSettings`). @default every field's default */
  readonly settings?: Partial<ProcessorSettings>;
  /** Told what the worker does (leases taken and lost, pages published, failures); `processorObserver` logs it. @default none: nothing is reported */
  readonly observer?: WorkerObserver;
  /**
   * Where a failing record goes, with every later record of its page not delivered, once the
   * config's `relay.maxRetryAttempts` or `relay.maxRecordAgeSeconds` is spent: an S3 bucket,
   * written in the shape of Lambda's S3 on-failure destination, so `redrive on-failure` brings the
   * records back. The deployed processor always has one (`OUTBOX_FAILED_BATCH_BUCKET`).
   * @default none: a failing record is retried until it is delivered, blocking its shard, and reported at every attempt
   */
  readonly onFailure?: ProcessorOnFailureDestination;
}

/**
 * Builds a stream processor worker without starting it, for an entry point that must be able to
 * stop it while it starts (a SIGTERM during start-up hands over any lease the start took).
 *
 * @example
 * ```ts
 * const worker = createProcessor({
 *   config, streams, streamArn, document, leaseTableName, sns, sqs, topicArns, deadLetterQueueUrl,
 *   onFailure: { s3, bucket: 'outbox-failed-batches' },
 * });
 * process.once('SIGTERM', () => void worker.stop());
 * await worker.start();
 * ```
 */
export function createProcessor(options: StartProcessorOptions): ProcessorWorker {
  const { streams, streamArn, document, leaseTableName, workerId, settings, observer, onFailure, ...given } = options;
  const relay = { ...given, config: processorConfig(given.config) };
  const publisher = createProcessorRelay(relay);
  checkProcessorOptions(options);
  const declared = declaredEventTypes(relay.config);
  return new Worker({
    source: new StreamSource(streams, streamArn),
    leases: new DynamoDbLeaseTable(document, leaseTableName),
    publisher,
    workerId: workerId ?? defaultWorkerId(),
    ...(settings === undefined ? {} : { settings }),
    ...(observer === undefined ? {} : { observer }),
    retryBounds: relay.config.relay,
    ...(declared === undefined ? {} : { declaredEventTypes: declared }),
    ...(onFailure === undefined ? {} : { onFailure: onFailureWriter(onFailure, streamArn) }),
  });
}

/**
 * Starts a stream processor worker in this process and resolves once it has synced shards and
 * scanned the lease table (retrying transient failures; see `ProcessorWorker.start`); `stop()`
 * hands its leases over. The local stack uses it.
 *
 * @example
 * ```ts
 * const worker = await startProcessor({ config, streams, streamArn, document, leaseTableName, sns, sqs, topicArns, deadLetterQueueUrl });
 * // …
 * await worker.stop();
 * ```
 */
export async function startProcessor(options: StartProcessorOptions): Promise<ProcessorWorker> {
  const worker = createProcessor(options);
  await worker.start();
  return worker;
}

/** The processor's config, checked before anything reads it: a ProcessorOptionsError names it, what was given and what is allowed. */
const processorConfig = (config: unknown): OutboxConfig =>
  checkedConfig(config, (cause) => new ProcessorOptionsError('config', configRefusal(cause), { cause }));
