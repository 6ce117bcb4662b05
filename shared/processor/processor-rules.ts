/**
 * The stream processor's rules for the values it is given, one of each, shared by the
 * environment's reading (`processorEnvironment`) and the options' check (`createProcessor`).
 */

import { hostname } from 'node:os';
import { DYNAMODB_TABLE_NAME_ONLY_PATTERN } from '../aws/dynamodb-table-name.js';
import { S3_BUCKET_NAME_RULE } from '../aws/s3-bucket-name.js';

/**
 * A DynamoDB stream ARN, as a table's `LatestStreamArn` gives it: the table's ARN followed by
 * `/stream/` and the stream's label (a time stamp).
 */
export const STREAM_ARN_PATTERN = /^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table\/[A-Za-z0-9_.-]{3,255}\/stream\/[^\s/]+$/;
export const STREAM_ARN_ALLOWED =
  "the ARN of the outbox table's stream, arn:aws:dynamodb:<region>:<account>:table/<table>/stream/<label> (the table's LatestStreamArn)";

/** DynamoDB's rule for table names, the name alone. */
export const TABLE_NAME_PATTERN = DYNAMODB_TABLE_NAME_ONLY_PATTERN;
export const LEASE_TABLE_ALLOWED = "the lease table's name (not its ARN): 3 to 255 letters, digits, '_', '.' and '-'";

/** What the on-failure bucket (`OUTBOX_FAILED_BATCH_BUCKET`, `onFailure.bucket`) may be named. */
export const BUCKET_ALLOWED = `an S3 bucket name: ${S3_BUCKET_NAME_RULE}`;

/** What a worker id may be, and what is made up when none is given ({@link defaultWorkerId}). */
export const WORKER_ID_ALLOWED = 'an id unique per task (each worker its own)';
export const WORKER_ID_DEFAULT = 'one made of the host name, the process id and a random suffix';

/**
 * The worker id of a worker given none: `<hostname>-<pid>-<random>`, so the owners of a lease table's
 * leases say which host and process hold them, and two workers of one process differ.
 *
 * @example
 * ```ts
 * defaultWorkerId(); // 'ip-10-0-1-17-7-k3j9x2'
 * ```
 */
export const defaultWorkerId = (): string => `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
