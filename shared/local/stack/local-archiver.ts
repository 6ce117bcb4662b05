import { Logger } from '@aws-lambda-powertools/logger';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createArchiverHandler } from '../../archive/archiver.js';
import { ARCHIVER_METRICS, archiverMetrics } from '../../archive/archiver-metrics.js';
import type { ArchiverMetrics } from '../../archive/archiver-types.js';
import { LocalStackError } from '../errors.js';
import { SqsPoller } from '../event-source/sqs-event-source.js';
import { countInBackground, queueDepth } from './dead-letter-depths.js';
import { LOCAL_LOG_LEVEL } from './options.js';
import type { LocalArchiveResources } from './resources.js';

/**
 * The local archiver's batches: up to this many messages, gathered for at most
 * {@link LOCAL_ARCHIVER_BATCHING_WINDOW_MS} after the first. Deployed, the window is minutes
 * (fewer, bigger objects); locally a second keeps the archive as fresh as a test wants it while
 * a burst still lands in one object per partition.
 */
export const LOCAL_ARCHIVER_BATCH_SIZE = 1_000;
export const LOCAL_ARCHIVER_BATCHING_WINDOW_MS = 1_000;

/** The name the local archiver goes by where a deployed one has its function's name: its metrics. */
export const LOCAL_ARCHIVER_FUNCTION_NAME = 'outbox-archiver-local';

/** What the local archiver has written so far. */
export interface LocalArchiveCounts {
  /** Envelopes written to archive objects (at-least-once: an envelope written again after a failed write counts again). */
  readonly archivedEvents: number;
  readonly objectsWritten: number;
  readonly failedWrites: number;
  /** Messages that held no outbox envelope, kept under `malformed/v1/`. */
  readonly malformedRecords: number;
  /**
   * Messages now in the archive's DLQs (the archiver gave up on them, or SNS could not deliver
   * them; the FIFO topics' DLQ included), as last counted: every {@link ARCHIVE_DLQ_COUNT_INTERVAL_MS}.
   */
  readonly deadLetters: number;
}

/** How often the archive's DLQs are counted: as often as the relay's and the subscribers' are. */
export const ARCHIVE_DLQ_COUNT_INTERVAL_MS = 1000;

/** The archiver running on the archive queue. */
export interface LocalArchiver {
  counts(): LocalArchiveCounts;
  /**
   * Resolves once `count` events in all have been archived, or after `timeoutMs` with the count
   * then; rejects with `STACK_STOPPED` when the archiver stops first (or has stopped).
   */
  waitForArchived(count: number, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

export interface LocalArchiverOptions {
  readonly sqs: SQSClient;
  readonly s3: S3Client;
  readonly archive: LocalArchiveResources;
  /** The archive queue's visibility timeout, in seconds. */
  readonly visibilityTimeoutSeconds: number;
  /** @default 'emf': the archiver's Powertools metrics, written as EMF lines unless `POWERTOOLS_METRICS_DISABLED=true` */
  readonly metrics?: 'emf' | 'discard';
  readonly onError: (error: unknown) => void;
}

const DISCARDED_METRICS: ArchiverMetrics = { addMetric: () => {} };

/**
 * The real archiver handler (`createArchiverHandler`, as the deployed Lambda runs it) behind a
 * local SQS event source on the archive queue, writing to the archive bucket on the emulator's
 * S3: what the relay publishes lands in the archive as it does deployed, in batches of up to
 * {@link LOCAL_ARCHIVER_BATCH_SIZE} messages gathered for at most a second (deployed: minutes,
 * so fewer and bigger objects; their layout and contents are the same).
 *
 * @example
 * ```ts
 * const archiver = startLocalArchiver({ sqs, s3, archive: resources.archive, visibilityTimeoutSeconds: 10, onError });
 * await archiver.waitForArchived(3, 10_000);
 * await archiver.stop();
 * ```
 */
export function startLocalArchiver(options: LocalArchiverOptions): LocalArchiver {
  const counts = { archivedEvents: 0, objectsWritten: 0, failedWrites: 0, malformedRecords: 0, deadLetters: 0 };
  const waiters = new Set<{ readonly check: () => void; readonly stop: () => void }>();
  let stopped = false;
  const stoppedWait = (count: number) =>
    new LocalStackError(
      'STACK_STOPPED',
      `archive.waitForArchived(${count}) was still waiting when stop() was called (${counts.archivedEvents} of ${count} events archived); allowed: stop() once the wait has ended`,
    );
  const handler = createArchiverHandler({
    bucket: options.archive.bucket,
    s3: options.s3,
    logger: new Logger({ serviceName: ARCHIVER_METRICS.service, logLevel: LOCAL_LOG_LEVEL }),
    metrics: options.metrics === 'discard' ? DISCARDED_METRICS : archiverMetrics(LOCAL_ARCHIVER_FUNCTION_NAME),
    onOutcome: (summary) => {
      counts.archivedEvents += summary.archivedEvents;
      counts.objectsWritten += summary.objectsWritten;
      counts.failedWrites += summary.failedWrites;
      counts.malformedRecords += summary.malformedRecords;
      for (const waiter of [...waiters]) waiter.check();
    },
  });
  const poller = new SqsPoller({
    sqs: options.sqs,
    queue: options.archive.queue,
    handler,
    batchSize: LOCAL_ARCHIVER_BATCH_SIZE,
    maxBatchingWindowMs: LOCAL_ARCHIVER_BATCHING_WINDOW_MS,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
    onError: options.onError,
  });
  poller.start();
  const deadLetterCount = countDeadLetters(options, (depth) => {
    counts.deadLetters = depth;
  });
  return {
    counts: () => ({ ...counts }),
    waitForArchived: (count, timeoutMs) =>
      new Promise<number>((resolve, reject) => {
        if (stopped) return reject(stoppedWait(count));
        const end = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        const waiter = {
          check: () => {
            if (counts.archivedEvents < count) return;
            end();
            resolve(counts.archivedEvents);
          },
          stop: () => {
            end();
            reject(stoppedWait(count));
          },
        };
        const timer = setTimeout(() => {
          end();
          resolve(counts.archivedEvents);
        }, timeoutMs);
        waiters.add(waiter);
        waiter.check();
      }),
    stop: () => {
      // A wait pending now would otherwise keep its timer, and its caller, until its timeout.
      stopped = true;
      for (const waiter of [...waiters]) waiter.stop();
      deadLetterCount.stop();
      return poller.stop();
    },
  };
}

/** Counts the archive's DLQs now and then every interval in the background. */
function countDeadLetters(options: LocalArchiverOptions, report: (depth: number) => void): { stop(): void } {
  const { deadLetterQueue, fifoDeadLetterQueue } = options.archive;
  const urls = [deadLetterQueue.url, ...(fifoDeadLetterQueue === undefined ? [] : [fifoDeadLetterQueue.url])];
  const count = async () => (await Promise.all(urls.map((url) => queueDepth(options.sqs, url)))).reduce((sum, depth) => sum + depth, 0);
  return countInBackground(count, report, { intervalMs: ARCHIVE_DLQ_COUNT_INTERVAL_MS });
}
