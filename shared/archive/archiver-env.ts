import { S3_BUCKET_NAME_RULE, s3BucketNameProblem } from '../aws/s3-bucket-name.js';
import { requireEnv } from '../env.js';

/** Environment variables of the deployed archiver, read once at cold start. */
export const ARCHIVE_ENV = Object.freeze({
  /** Name of the archive bucket. */
  bucket: 'OUTBOX_ARCHIVE_BUCKET',
});

/** What the deployed archiver reads from its environment. */
export interface ArchiverEnvironment {
  readonly bucket: string;
}

/** What {@link ARCHIVE_ENV}.bucket may hold, as its errors say. */
const ALLOWED_BUCKET = `an S3 bucket name, the archive bucket's: ${S3_BUCKET_NAME_RULE}`;

/**
 * Reads the archiver's environment ({@link ARCHIVE_ENV}) once, failing with an
 * {@link EnvironmentError} that names the variable, what it held and what it may hold when it is
 * unset, blank or not a bucket name. The region comes from Lambda's `AWS_REGION`, which the SDK
 * reads itself.
 *
 * @example
 * ```ts
 * const { bucket } = archiverEnvironment();
 * ```
 */
export function archiverEnvironment(env: NodeJS.ProcessEnv = process.env): ArchiverEnvironment {
  return { bucket: requireEnv(ARCHIVE_ENV.bucket, env, ALLOWED_BUCKET, s3BucketNameProblem) };
}
