import { OutboxError } from '../errors.js';

/**
 * A lease write failed its condition: another worker took the lease, or this worker's copy of
 * the counter is stale. The worker stops processing the shard; nothing was written.
 */
export class LeaseLostError extends OutboxError {
  readonly leaseKey: string;

  constructor(leaseKey: string, operation: string, expected: { owner?: string; counter: number }, options?: ErrorOptions) {
    super(
      'LEASE_LOST',
      `Lease ${leaseKey}: ${operation} failed because the lease changed (expected counter ${expected.counter}` +
        `${expected.owner === undefined ? '' : ` and owner "${expected.owner}"`}); another worker holds or took it.`,
      options,
    );
    this.name = 'LeaseLostError';
    this.leaseKey = leaseKey;
  }
}

/** Options of the stream processor out of range; `field` names the option. */
export class ProcessorOptionsError extends OutboxError {
  readonly field: string;
  /** What was wrong, given and allowed: the message without its heading. */
  readonly detail: string;

  constructor(field: string, message: string, options?: ErrorOptions) {
    super('INVALID_PROCESSOR_OPTIONS', `Invalid stream processor option ${field}: ${message}`, options);
    this.name = 'ProcessorOptionsError';
    this.field = field;
    this.detail = message;
  }
}

/**
 * Records of a shard were removed from the stream (past its 24-hour retention) before they were
 * read: they are skipped, never published. `shardGone` when the whole shard had left the stream.
 */
export class RecordsTrimmedError extends OutboxError {
  readonly shardId: string;
  readonly checkpoint: string;
  readonly shardGone: boolean;

  constructor(shardId: string, checkpoint: string, shardGone: boolean, options?: ErrorOptions) {
    super(
      'RECORDS_TRIMMED',
      shardGone
        ? `Shard ${shardId} left the stream (past its 24-hour retention) before it was read to its end from checkpoint ${checkpoint}; ` +
            'its unread records are lost and the shard is marked finished so its children can start.'
        : `Shard ${shardId}: records after checkpoint ${checkpoint} were trimmed from the stream (past its 24-hour retention) ` +
            'before they were read; reading resumes at the oldest record left and the trimmed ones are lost.',
      options,
    );
    this.name = 'RecordsTrimmedError';
    this.shardId = shardId;
    this.checkpoint = checkpoint;
    this.shardGone = shardGone;
  }
}

/**
 * A DynamoDB Streams call got no answer within the time the processor allows it (the failover
 * time); it was abandoned, and the shard's reader reports it as a failed read and retries.
 */
export class StreamCallTimeoutError extends OutboxError {
  readonly operation: string;
  readonly timeoutMs: number;

  constructor(operation: string, target: string, timeoutMs: number, options?: ErrorOptions) {
    super(
      'STREAM_CALL_TIMEOUT',
      `${operation} of ${target} got no answer within ${timeoutMs} ms; the call was abandoned and is retried after a pause.`,
      options,
    );
    this.name = 'StreamCallTimeoutError';
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * `DescribeStream` answered in a way that leaves the shard listing incomplete (no stream
 * description, a page that repeats): the listing is not used, and asking again may do better.
 */
export class IncompleteShardListingError extends OutboxError {
  constructor(streamArn: string, problem: string, options?: ErrorOptions) {
    super('SHARD_LISTING_INCOMPLETE', `DescribeStream of ${streamArn} ${problem}; the shard listing is incomplete`, options);
    this.name = 'IncompleteShardListingError';
  }
}

/**
 * The worker could not start, for a reason waiting does not cure: the stream or the lease table
 * not found, access denied, a malformed request. Transient failures are retried instead.
 */
export class ProcessorStartError extends OutboxError {
  readonly step: string;

  constructor(step: string, reason: string, options?: ErrorOptions) {
    super(
      'PROCESSOR_START_FAILED',
      `The stream processor could not start: ${step} failed with ${reason}. Only throttling, server, network and timeout ` +
        'errors are retried at start-up; check that the stream and the lease table exist and that this task may use them.',
      options,
    );
    this.name = 'ProcessorStartError';
    this.step = step;
  }
}
