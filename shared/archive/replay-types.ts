import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** An aggregate named by its type and id (`--aggregate order:o-123`). */
export interface AggregateRef {
  readonly type: string;
  readonly id: string;
}

/** What to replay: the events of the archive that match every filter given. */
export interface ReplaySelection {
  /** The S3 bucket of the archive. */
  readonly bucket: string;
  /** Events whose `time` is at or after this instant (a `Date`, or `2026-03-01` = UTC midnight, or a full ISO time). */
  readonly from: Date | string;
  /**
   * Events whose `time` is before this instant (exclusive: `to: '2026-03-02'` ends with the last
   * event of 1 March, UTC).
   * @default when the run started; a resumed run keeps the first run's end
   */
  readonly to?: Date | string;
  /** Only these event types. @default every type */
  readonly types?: readonly string[];
  /** Only this aggregate type. @default every aggregate type */
  readonly aggregateType?: string;
  /** Only this aggregate (its events' `aggregatetype` and `subject`). @default every aggregate */
  readonly aggregate?: AggregateRef;
  /** The SQS queue the events are sent to; a URL ending in `.fifo` is a FIFO queue. */
  readonly queueUrl: string;
}

/** How a replay runs. */
export interface ReplayArchiveOptions extends ReplaySelection {
  readonly s3: Pick<S3Client, 'send'>;
  readonly sqs: Pick<SQSClient, 'send'>;
  /** Events sent per second, on average; at least 1. @default unlimited */
  readonly ratePerSecond?: number;
  /** `SendMessageBatch` requests in flight at once (never two of one aggregate). @default 8 */
  readonly concurrency?: number;
  /** Read, filter, order and count, but send nothing (and neither read nor write a checkpoint). @default false */
  readonly dryRun?: boolean;
  /**
   * A file that records the replay's position after every acknowledged batch, so a stopped run
   * started again with the same selection goes on where it stopped. The CLI always keeps one.
   * @default none: a stopped run starts again from the beginning
   */
  readonly checkpointPath?: string;
  /** Start from the beginning, replacing the checkpoint at `checkpointPath` whatever it holds. @default false */
  readonly restart?: boolean;
  /**
   * How far an aggregate's events may be apart in `time` against their sequence order: the
   * envelope's `time` is taken when its write starts, so two writes to one aggregate that overlap
   * may commit in the opposite order of their times. Events this close to the end of an hour are
   * sent with the next hour's, in sequence order.
   * @default 300000 (5 minutes)
   */
  readonly holdBackMs?: number;
  /** Objects read from S3 at once. @default 16 */
  readonly readConcurrency?: number;
  /** Called after every acknowledged batch and every hour read; the CLI draws progress with it. */
  readonly onProgress?: (progress: ReplayProgress) => void;
  /** Aborting it stops the run after the batches in flight; the checkpoint then holds where it stopped. */
  readonly signal?: AbortSignal;
}

/** Where a replay is. */
export interface ReplayProgress {
  /** The UTC hour (`YYYY-MM-DDTHH`) being sent. */
  readonly hour: string;
  /** Hours of the range done (after a resume, those the runs before did included), and in all. */
  readonly hoursDone: number;
  readonly hours: number;
  /** Events sent (in a dry run: that would be) by this run so far. */
  readonly sent: number;
  readonly duplicates: number;
  readonly corrupt: number;
  readonly refused: number;
}

/** An archive object, or one line of it, that is not an outbox envelope; skipped. */
export interface CorruptArchiveEntry {
  readonly key: string;
  /** 1-based; absent when the whole object could not be read. */
  readonly line?: number;
  readonly reason: string;
}

/** An event the queue refused for good, or one held back behind such an event of its aggregate. */
export interface RefusedEvent {
  readonly eventId: string;
  readonly type: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly reason: string;
}

/** What a replay did. */
export interface ReplaySummary {
  /** The replay's id: the value of the `outbox-replay` attribute of every message it sent. */
  readonly replayId: string;
  /** `interrupted`: stopped by the signal, a dry run too; the checkpoint (if any) holds where. */
  readonly status: 'completed' | 'dry-run' | 'interrupted';
  /** A dry run: nothing was sent, and `sent` counts what would have been (so far, when `interrupted`). */
  readonly dryRun: boolean;
  readonly bucket: string;
  readonly queueUrl: string;
  readonly from: string;
  /** The end of the range (exclusive). */
  readonly to: string;
  readonly filter: string;
  /** The hour this run began with, when it went on from a checkpoint. */
  readonly resumedFrom?: string;
  readonly objectsRead: number;
  /** Events sent by this run (in a dry run: that would be), in all and per event type. */
  readonly sent: number;
  readonly sentByType: Readonly<Record<string, number>>;
  /** Events found more than once in the archive (at-least-once) and sent once. */
  readonly duplicates: number;
  readonly corrupt: readonly CorruptArchiveEntry[];
  readonly refused: readonly RefusedEvent[];
  /** Entries the queue failed for a passing reason and that were sent again. */
  readonly retried: number;
  readonly checkpointPath?: string;
  readonly notes?: readonly string[];
}
