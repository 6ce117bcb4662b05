/** The archiver's options, clients, logging and metrics, and what it returns: types only, below its behaviour. */

import type { PutObjectCommand, PutObjectCommandOutput } from '@aws-sdk/client-s3';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { HandlerLogger } from '../logger.js';
import type { ArchiverMetricName } from './archiver-metrics.js';

/** The S3 operation the archiver uses; an `S3Client` fits. */
export interface ArchiverS3Client {
  /** `abortSignal` fires shortly before the invocation's timeout: a write still running then fails, and only its messages are retried. */
  send(command: PutObjectCommand, options?: { abortSignal?: AbortSignal }): Promise<PutObjectCommandOutput>;
}

/** Metrics sink of the archiver: one value of each metric per batch. Powertools `Metrics` fits. */
export interface ArchiverMetrics {
  addMetric(name: ArchiverMetricName, unit: 'Count', value: number): void;
  /** Called once per batch, after its metrics were added (Powertools writes its EMF line then). */
  publishStoredMetrics?(): void;
}

/** What one batch came to. */
export interface ArchiveBatchSummary {
  readonly records: number;
  /** Envelopes written to archive objects (each event of a batch message counted). */
  readonly archivedEvents: number;
  /** Of them, envelopes whose `time` is not a date, placed by when SQS received their message. */
  readonly placedBySentTime: number;
  /** Objects written, malformed-record objects included. */
  readonly objectsWritten: number;
  /** Objects whose write failed. */
  readonly failedWrites: number;
  /** Messages kept under `malformed/v1/` (written) because they hold no outbox envelope. */
  readonly malformedRecords: number;
  /** Ids of the messages reported failed: each had an envelope (or its malformed line) in an object whose write failed. */
  readonly failedMessageIds: readonly string[];
  /** Keys of the objects written. */
  readonly keys: readonly string[];
}

export interface ArchiverOptions {
  /** The archive bucket. */
  readonly bucket: string;
  /** @default the SDK's `S3Client`, from the environment's region and credentials, giving up on a connection silent for 30 s */
  readonly s3?: ArchiverS3Client;
  /** Objects written at once. @default 16 */
  readonly writeConcurrency?: number;
  /** @default a Powertools `Logger`, service `outbox-archiver` */
  readonly logger?: HandlerLogger;
  /** @default `archiverMetrics()`: Powertools `Metrics`, namespace `Outbox`, service `outbox-archiver`, dimension `functionName` */
  readonly metrics?: ArchiverMetrics;
  /** Receives each batch's summary once its metrics and log line are written; awaited, and an error it throws fails the whole batch. @default none */
  readonly onOutcome?: (summary: ArchiveBatchSummary) => void | Promise<void>;
  /** Names each object (letters, digits, `-`, `_`, `.`), unique per call. @default a UUIDv7, so names sort by when they were written */
  readonly objectName?: () => string;
  /** Clock (epoch ms) for a message without `SentTimestamp`. @default Date.now */
  readonly now?: () => number;
}

/** Lambda's context as the archiver reads it: the request id, for the logs, and the time left, which bounds its writes. */
export type ArchiverInvocationContext = Partial<Context>;

export type ArchiverHandler = (event: SQSEvent, context?: ArchiverInvocationContext) => Promise<SQSBatchResponse>;
