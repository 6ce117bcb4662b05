import { S3_BUCKET_NAME_RULE, s3BucketNameProblem } from '../aws/s3-bucket-name.js';
import { sendClientFault } from '../aws/send-client.js';
import { isFifoQueueUrl, SQS_QUEUE_URL_ALLOWED, sqsQueueUrlFault } from '../aws/sqs-queue-url.js';
import { INSTANT_FORMS, parseInstantText } from '../event-time.js';
import { rateProblem } from '../rate-limit.js';
import { runOptionFault } from '../run-options.js';
import { showValue } from '../show-value.js';
import { ReplayOptionsError } from './replay-errors.js';
import type { AggregateRef, ReplayArchiveOptions } from './replay-types.js';

/** Five minutes: far longer than a write takes (its time is taken when it starts; a transaction lasts seconds at most). */
export const DEFAULT_HOLD_BACK_MS = 300_000;
export const DEFAULT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 100;
export const DEFAULT_READ_CONCURRENCY = 16;

/** The selection of a replay, checked and in one canonical form (what a checkpoint records). */
export interface ReplayParameters {
  readonly bucket: string;
  /** ISO instants. */
  readonly from: string;
  /** As given; `undefined` means "until the first run started", which the checkpoint records apart. */
  readonly to: string | undefined;
  /** Sorted, without repeats. */
  readonly types: readonly string[] | undefined;
  readonly aggregateType: string | undefined;
  readonly aggregate: AggregateRef | undefined;
  readonly queueUrl: string;
}

/** The checked options a run goes by. */
export interface ReplayPlan {
  readonly parameters: ReplayParameters;
  readonly fromMs: number;
  /** `undefined` until the run resolves it (now, or the checkpoint's end). */
  readonly toMs: number | undefined;
  readonly fifo: boolean;
  readonly concurrency: number;
  readonly readConcurrency: number;
  readonly holdBackMs: number;
  readonly ratePerSecond: number | undefined;
}

export const DATE_FORMS = INSTANT_FORMS;

/**
 * An instant from a `Date` or from text ({@link parseInstantText}): `YYYY-MM-DD` is that day's UTC
 * midnight; a time must say its zone (`Z` or an offset), since a local time would depend on the
 * operator's machine.
 *
 * @example
 * ```ts
 * parseReplayInstant('2026-03-01', '--from'); // 2026-03-01T00:00:00.000Z
 * ```
 */
export function parseReplayInstant(value: Date | string, field: string): number {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new ReplayOptionsError(field, `got an invalid Date; allowed: ${DATE_FORMS}`);
    return value.getTime();
  }
  const ms = typeof value === 'string' ? parseInstantText(value) : undefined;
  if (ms === undefined) throw new ReplayOptionsError(field, `got ${showValue(value)}; allowed: ${DATE_FORMS}`);
  return ms;
}

function nonEmpty(value: string | undefined, field: string, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new ReplayOptionsError(field, `got ${showValue(value)}; allowed: ${what}`);
  return value;
}

function wholeNumber(value: number | undefined, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ReplayOptionsError(field, `got ${showValue(value)}; allowed: a whole number from ${min} to ${max}`);
  }
  return value;
}

function queueUrlOf(value: string): string {
  const fault = sqsQueueUrlFault(value);
  if (fault !== undefined) {
    throw new ReplayOptionsError('queueUrl', `got ${showValue(value)}, which ${fault}; allowed: ${SQS_QUEUE_URL_ALLOWED}`);
  }
  return value;
}

/**
 * The replay's clients and run options: `s3` and `sqs` with `send` (else the first read or send
 * fails as a TypeError), `dryRun` and `restart` booleans (a `restart: "yes"` was taken for
 * `false`, and a `dryRun: "yes"` sent for real), `checkpointPath` a file path, `onProgress` and `signal` as every run's ({@link runOptionFault}).
 */
function checkRunOptions(options: ReplayArchiveOptions): void {
  for (const [field, allowed] of [
    ['s3', "an S3Client of the archive's bucket (or anything that sends ListObjectsV2 and GetObject like one)"],
    ['sqs', 'an SQSClient of the target queue (or anything that sends SendMessageBatch like one)'],
  ] as const) {
    const given = sendClientFault(options[field]);
    if (given !== undefined) throw new ReplayOptionsError(field, `got ${given}; allowed: ${allowed}`);
  }
  const fault = runOptionFault(options);
  if (fault !== undefined) throw new ReplayOptionsError(fault.field, fault.detail);
  const restart: unknown = options.restart;
  if (restart !== undefined && typeof restart !== 'boolean') {
    throw new ReplayOptionsError(
      'restart',
      `got ${showValue(restart)}; allowed: true (replace the checkpoint, send it all again) or false`,
    );
  }
  const path: unknown = options.checkpointPath;
  if (path !== undefined && (typeof path !== 'string' || path.trim() === '')) {
    throw new ReplayOptionsError('checkpointPath', `got ${showValue(path)}; allowed: a file path, or leave it out for no checkpoint`);
  }
}

/**
 * Checks a replay's options before anything is read: every problem is a {@link ReplayOptionsError}
 * naming the option, what was given and what is allowed.
 */
export function planReplay(options: ReplayArchiveOptions): ReplayPlan {
  const bucketProblem = typeof options.bucket === 'string' ? s3BucketNameProblem(options.bucket) : 'is not a string';
  if (bucketProblem !== undefined) {
    throw new ReplayOptionsError(
      'bucket',
      `got ${showValue(options.bucket)}, which ${bucketProblem}; allowed: an S3 bucket name: ${S3_BUCKET_NAME_RULE}`,
    );
  }
  const fromMs = parseReplayInstant(options.from, 'from');
  const toMs = options.to === undefined ? undefined : parseReplayInstant(options.to, 'to');
  if (toMs !== undefined && toMs <= fromMs) {
    throw new ReplayOptionsError(
      'to',
      // Worded without the other option's name, which the command line gives as a flag (--from): the error names its own option alone.
      `got ${new Date(toMs).toISOString()}, not after the range's start (${new Date(fromMs).toISOString()}); allowed: an instant after the start (the end is exclusive)`,
    );
  }
  let types: string[] | undefined;
  if (options.types !== undefined) {
    if (
      !Array.isArray(options.types) ||
      options.types.length === 0 ||
      options.types.some((t) => typeof t !== 'string' || t === '' || !t.isWellFormed())
    ) {
      throw new ReplayOptionsError(
        'types',
        `got ${showValue(options.types)}; allowed: one or more event type names, each non-empty and of well-formed Unicode (no lone surrogate)`,
      );
    }
    types = [...new Set(options.types)].sort();
  }
  // An aggregate type names a key segment, URI-encoded: a lone surrogate has no encoding.
  const aggregateTypeAllowed = 'a non-empty aggregate type name of well-formed Unicode (no lone surrogate)';
  const aggregateType = nonEmpty(options.aggregateType, 'aggregateType', aggregateTypeAllowed);
  if (aggregateType !== undefined && !aggregateType.isWellFormed()) {
    throw new ReplayOptionsError('aggregateType', `got ${showValue(aggregateType)}; allowed: ${aggregateTypeAllowed}`);
  }
  const aggregate = options.aggregate;
  if (aggregate !== undefined) {
    if (
      typeof aggregate?.type !== 'string' ||
      aggregate.type === '' ||
      !aggregate.type.isWellFormed() ||
      typeof aggregate.id !== 'string' ||
      aggregate.id === ''
    ) {
      throw new ReplayOptionsError(
        'aggregate',
        `got ${showValue(aggregate)}; allowed: { type, id }, both non-empty, the type of well-formed Unicode (no lone surrogate)`,
      );
    }
    if (aggregateType !== undefined && aggregateType !== aggregate.type) {
      throw new ReplayOptionsError(
        'aggregate',
        `is of type ${showValue(aggregate.type)}, but the aggregate type given is ${showValue(aggregateType)}; allowed: the same aggregate type, or only one of the two filters`,
      );
    }
  }
  checkRunOptions(options);
  const rate = options.ratePerSecond;
  const rateWrong = rate === undefined ? undefined : rateProblem(rate);
  if (rateWrong !== undefined) throw new ReplayOptionsError('ratePerSecond', rateWrong);
  const queueUrl = queueUrlOf(options.queueUrl);
  const holdBackMs = wholeNumber(options.holdBackMs, 'holdBackMs', 0, 3_600_000, DEFAULT_HOLD_BACK_MS);
  return {
    parameters: {
      bucket: options.bucket,
      from: new Date(fromMs).toISOString(),
      to: toMs === undefined ? undefined : new Date(toMs).toISOString(),
      types,
      aggregateType: aggregateType ?? aggregate?.type,
      aggregate: aggregate === undefined ? undefined : { type: aggregate.type, id: aggregate.id },
      queueUrl,
    },
    fromMs,
    toMs,
    fifo: isFifoQueueUrl(queueUrl),
    concurrency: wholeNumber(options.concurrency, 'concurrency', 1, MAX_CONCURRENCY, DEFAULT_CONCURRENCY),
    readConcurrency: wholeNumber(options.readConcurrency, 'readConcurrency', 1, MAX_CONCURRENCY, DEFAULT_READ_CONCURRENCY),
    holdBackMs,
    ratePerSecond: rate,
  };
}

/** The selection in words, for the summary. */
export function describeSelection(parameters: ReplayParameters): string {
  const parts = [
    ...(parameters.types === undefined ? [] : [`type ${parameters.types.join(', ')}`]),
    ...(parameters.aggregate !== undefined
      ? [`aggregate ${parameters.aggregate.type}:${parameters.aggregate.id}`]
      : parameters.aggregateType !== undefined
        ? [`aggregate type ${parameters.aggregateType}`]
        : []),
  ];
  return parts.length === 0 ? 'every event' : parts.join('; ');
}
