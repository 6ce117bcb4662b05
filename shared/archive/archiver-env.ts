import { requireEnv } from '../config.js';
import { EnvironmentError } from '../errors.js';

/** Environment variables of the deployed archiver, read once at cold start. */
export const ARCHIVE_ENV = Object.freeze({
  /** Name of the archive bucket. */
  bucket: 'OUTBOX_ARCHIVE_BUCKET',
});

/** What the deployed archiver reads from its environment. */
export interface ArchiverEnvironment {
  readonly bucket: string;
}

/** S3's rule for bucket names (general purpose buckets): 3–63 of lower-case letters, digits, `.` and `-`, starting and ending with a letter or digit. */
const BUCKET_NAME_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Reads the archiver's environment ({@link ARCHIVE_ENV}) once, failing with the variable's name
 * when it is missing or not a bucket name. The region comes from Lambda's `AWS_REGION`, which
 * the SDK reads itself.
 *
 * @example
 * ```ts
 * const { bucket } = archiverEnvironment();
 * ```
 */
export function archiverEnvironment(env: NodeJS.ProcessEnv = process.env): ArchiverEnvironment {
  const bucket = requireEnv(ARCHIVE_ENV.bucket, env);
  if (!BUCKET_NAME_PATTERN.test(bucket)) {
    throw new EnvironmentError(
      ARCHIVE_ENV.bucket,
      `got ${JSON.stringify(bucket.slice(0, 100))}; allowed: an S3 bucket name (3–63 lower-case letters, digits, '.' and '-', starting and ending with a letter or digit)`,
    );
  }
  return { bucket };
}
