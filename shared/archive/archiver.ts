import { Logger } from '@aws-lambda-powertools/logger';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { Context, SQSRecord } from 'aws-lambda';
import { v7 as uuidv7 } from 'uuid';
import { followSignal } from '../abort.js';
import { s3Client } from '../aws/s3-client.js';
import { ConfigError } from '../errors.js';
import { MAX_TIMER_MS, remainingTimeFault } from '../lambda-context.js';
import type { HandlerLogger } from '../logger.js';
import { showValue } from '../show-value.js';
import { malformedLine, malformedObjectKey } from './archiver-malformed.js';
import { ARCHIVER_METRICS, archiverMetrics } from './archiver-metrics.js';
import { readArchiveRecord } from './archiver-records.js';
import type { ArchiveBatchSummary, ArchiverHandler, ArchiverOptions, ArchiverS3Client } from './archiver-types.js';
import { archiveObjectKey, archivePartitionPrefix, encodeArchiveObject } from './layout.js';

export type * from './archiver-types.js';

/**
 * The archive objects' content type: each is a gzip file (its name ends in `.ndjson.gz`), stored
 * without `Content-Encoding`, so no HTTP client unpacks it on the way and every reader gets the
 * bytes `decodeArchiveObject` reads.
 */
export const ARCHIVE_CONTENT_TYPE = 'application/gzip';

/**
 * How long before the invocation's timeout the archiver stops waiting for writes and answers:
 * a write that has not finished by then fails its messages alone (they are retried), where a
 * timeout would fail the whole batch, written objects included.
 */
export const ARCHIVER_ANSWER_MARGIN_MS = 500;

/** One object to write: its lines and the messages they came from. */
interface PlannedObject {
  readonly key: (name: string) => string;
  readonly lines: string[];
  readonly messageIds: Set<string>;
  events: number;
}

/** What a batch's messages come to: one object per partition (and per hour of malformed messages). */
function planObjects(records: readonly SQSRecord[], now: number, logger: HandlerLogger) {
  const objects = new Map<string, PlannedObject>();
  const objectFor = (group: string, key: (name: string) => string): PlannedObject => {
    let object = objects.get(group);
    if (object === undefined) {
      object = { key, lines: [], messageIds: new Set(), events: 0 };
      objects.set(group, object);
    }
    return object;
  };
  let placedBySentTime = 0;
  let malformed = 0;
  for (const record of records) {
    const read = readArchiveRecord(record, now);
    if (read.status === 'malformed') {
      malformed++;
      const { hour, text } = malformedLine(record, read.reason, now);
      logger.error('message holds no outbox envelope; kept under malformed/', { messageId: record.messageId, reason: read.reason });
      const object = objectFor(`malformed ${hour}`, (name) => malformedObjectKey(hour, name));
      object.lines.push(text);
      object.messageIds.add(record.messageId);
      continue;
    }
    for (const line of read.lines) {
      if (line.placedBySentTime) {
        placedBySentTime++;
        logger.warn("envelope's time is not a date (RFC 3339 with Z or an offset); archived in the hour its message was sent", {
          messageId: record.messageId,
          id: line.id,
        });
      }
      const { partition } = line;
      const object = objectFor(archivePartitionPrefix(partition), (name) => archiveObjectKey(partition, name));
      object.lines.push(line.text);
      object.messageIds.add(record.messageId);
      object.events++;
    }
  }
  return { objects: [...objects.values()], placedBySentTime, malformed };
}

/** The most objects an archiver writes at once. */
export const MAX_ARCHIVER_WRITE_CONCURRENCY = 1000;

/** Refuses a `writeConcurrency` that would write no object (0, negative, NaN): its batch would be acknowledged unwritten. */
function checkWriteConcurrency(value: unknown): void {
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_ARCHIVER_WRITE_CONCURRENCY) {
    throw new ConfigError(
      'writeConcurrency',
      `got ${showValue(value)}; allowed: a whole number from 1 to ${MAX_ARCHIVER_WRITE_CONCURRENCY}, the archive objects written at once`,
    );
  }
}

/** Runs `work` on each item, at most `concurrency` at once. */
async function eachLimited<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}

/**
 * Archives one batch of the archive queue's messages: groups their envelopes (a batch message's
 * unpacked) by partition, writes one gzip NDJSON object per partition under a fresh name, and
 * reports the messages with an envelope in an object that could not be written. A message's
 * envelopes written to other objects stay there: the archive is at-least-once, and readers
 * deduplicate by event id. Messages that hold no envelope are written under `malformed/v1/`.
 */
export async function archiveBatch(
  records: readonly SQSRecord[],
  options: Required<Pick<ArchiverOptions, 'bucket' | 'objectName' | 'now' | 'writeConcurrency'>> & {
    readonly s3: ArchiverS3Client;
    readonly logger: HandlerLogger;
    /** Aborts the writes still running (and fails those not started): their messages are reported failed. */
    readonly signal?: AbortSignal;
  },
): Promise<ArchiveBatchSummary> {
  const { bucket, s3, logger } = options;
  checkWriteConcurrency(options.writeConcurrency);
  const plan = planObjects(records, options.now(), logger);
  const failed = new Set<string>();
  const keys: string[] = [];
  let archivedEvents = 0;
  let failedWrites = 0;
  // Up to writeConcurrency writes listen to the deadline at once: past 10, Node would warn of a leak on the caller's signal.
  const deadline = options.signal === undefined ? undefined : followSignal(options.signal);
  await eachLimited(plan.objects, options.writeConcurrency, async (object) => {
    let key: string | undefined;
    try {
      // A name that cannot be one (from an `objectName` of the caller's) fails this object's messages alone.
      key = object.key(options.objectName());
      deadline?.signal.throwIfAborted();
      await s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: encodeArchiveObject(object.lines), ContentType: ARCHIVE_CONTENT_TYPE }),
        deadline === undefined ? undefined : { abortSignal: deadline.signal },
      );
      keys.push(key);
      archivedEvents += object.events;
    } catch (error) {
      failedWrites++;
      for (const id of object.messageIds) failed.add(id);
      logger.warn('archive object not written; its messages will be retried', {
        key,
        messages: object.messageIds.size,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
    }
  });
  deadline?.detach();
  return {
    records: records.length,
    archivedEvents,
    placedBySentTime: plan.placedBySentTime,
    objectsWritten: keys.length,
    failedWrites,
    malformedRecords: plan.malformed,
    failedMessageIds: records.filter((r) => failed.has(r.messageId)).map((r) => r.messageId),
    keys,
  };
}

/**
 * The archiver Lambda: a batch of the archive queue's messages in (an SQS event source with
 * `ReportBatchItemFailures`), `batchItemFailures` out, naming exactly the messages with an
 * envelope in an object whose write failed; they come back after the visibility timeout, and
 * reach the archive queue's DLQ after its `maxReceiveCount`. A write still running
 * {@link ARCHIVER_ANSWER_MARGIN_MS} before the invocation's timeout is given up and fails its
 * messages alone, so a stuck write never fails the whole batch. The deployed function and the local
 * stack share it. Each batch's counts go to the metrics ({@link ARCHIVER_METRICS}), one log line
 * and, when given, `onOutcome`.
 *
 * @example
 * ```ts
 * export const handler = createArchiverHandler(archiverEnvironment());
 * ```
 */
export function createArchiverHandler(options: ArchiverOptions): ArchiverHandler {
  // A silent connection is given up, as the package's other clients do; the handler's deadline
  // (ARCHIVER_ANSWER_MARGIN_MS) bounds attempts that would outlast a short function timeout.
  const s3 = options.s3 ?? s3Client();
  const logger = options.logger ?? new Logger({ serviceName: ARCHIVER_METRICS.service });
  const metrics = options.metrics ?? archiverMetrics();
  const settings = {
    bucket: options.bucket,
    s3,
    logger,
    objectName: options.objectName ?? uuidv7,
    now: options.now ?? Date.now,
    writeConcurrency: options.writeConcurrency ?? 16,
  };
  checkWriteConcurrency(settings.writeConcurrency);
  return async (event, context) => {
    if (typeof context?.awsRequestId === 'string') logger.addContext?.(context as Context);
    // Lambda always passes its context; a caller without one (a test) sets no deadline.
    const remainingMs = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
    const fault =
      remainingMs === undefined ? undefined : remainingTimeFault(remainingMs, { maxMs: MAX_TIMER_MS, bound: 'the longest a timer waits' });
    if (fault !== undefined) throw new ConfigError('context.getRemainingTimeInMillis', fault);
    const signal = remainingMs === undefined ? undefined : AbortSignal.timeout(Math.max(0, remainingMs - ARCHIVER_ANSWER_MARGIN_MS));
    const summary = await archiveBatch(event.Records ?? [], signal === undefined ? settings : { ...settings, signal });
    metrics.addMetric(ARCHIVER_METRICS.archivedEvents, 'Count', summary.archivedEvents);
    metrics.addMetric(ARCHIVER_METRICS.objectsWritten, 'Count', summary.objectsWritten);
    metrics.addMetric(ARCHIVER_METRICS.failedWrites, 'Count', summary.failedWrites);
    metrics.addMetric(ARCHIVER_METRICS.failedRecords, 'Count', summary.failedMessageIds.length);
    metrics.addMetric(ARCHIVER_METRICS.malformedRecords, 'Count', summary.malformedRecords);
    metrics.publishStoredMetrics?.();
    const { records, archivedEvents, placedBySentTime, objectsWritten, failedWrites, malformedRecords } = summary;
    logger.info('batch archived', {
      records,
      archivedEvents,
      placedBySentTime,
      objectsWritten,
      failedWrites,
      malformedRecords,
      failedRecords: summary.failedMessageIds.length,
    });
    await options.onOutcome?.(summary);
    return { batchItemFailures: summary.failedMessageIds.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
