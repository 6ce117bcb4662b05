import { errorMessage } from '../error-message.js';
import { OutboxError } from '../errors.js';
import type { StreamBatchInfo } from './on-failure-record.js';
import type { RedriveSummary } from './types.js';

/** A redrive was asked for something impossible or unsafe; nothing was read or moved. */
export class RedriveOptionsError extends OutboxError {
  readonly field: string;

  constructor(field: string, message: string, options?: ErrorOptions) {
    super('INVALID_REDRIVE_OPTIONS', `Invalid redrive option ${field}: ${message}`, options);
    this.name = 'RedriveOptionsError';
    this.field = field;
  }
}

/**
 * Reading a failed batch's records back from the stream stopped before the batch's last
 * sequence number; what was read is not the whole batch, so its record is kept.
 */
export class StreamRangeIncompleteError extends OutboxError {
  readonly shardId: string;
  /** The last sequence number read, if any. */
  readonly lastRead: string | undefined;

  constructor(info: StreamBatchInfo, lastRead: string | undefined, why: string) {
    super(
      'STREAM_RANGE_INCOMPLETE',
      `read shard ${info.shardId} from ${info.startSequenceNumber} up to ${lastRead ?? '(no record)'}, but the batch ends at ${info.endSequenceNumber}: ${why}`,
    );
    this.name = 'StreamRangeIncompleteError';
    this.shardId = info.shardId;
    this.lastRead = lastRead;
  }
}

/**
 * A redrive stopped part way because a call failed (the cause). The kept messages were released;
 * `summary` (status `interrupted`) counts what was done before, so a person knows what moved.
 *
 * @example
 * ```ts
 * try { await redriveRelayDlq(options); } catch (error) {
 *   if (error instanceof RedriveStoppedError) console.log(formatSummary(error.summary));
 * }
 * ```
 */
export class RedriveStoppedError extends OutboxError {
  readonly summary: RedriveSummary;

  constructor(summary: RedriveSummary, cause: unknown) {
    super('REDRIVE_STOPPED', `stopped after ${summary.processed} messages: ${errorMessage(cause)}`, { cause });
    this.name = 'RedriveStoppedError';
    this.summary = summary;
  }
}
