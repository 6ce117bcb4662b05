import { S3_BUCKET_NAME } from '../aws/s3-bucket-name.js';
import { requireEnv, shownEnvValue } from '../config.js';
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

/** What {@link ARCHIVE_ENV}.bucket may hold, as its errors say. */
const ALLOWED_BUCKET =
  "an S3 bucket name, the archive bucket's: 3–63 lower-case letters, digits, '.' and '-', starting and ending with a letter or digit, no '..', not an IP address, not starting with 'xn--', 'sthree-' or 'amzn-s3-demo-' nor ending in '-s3alias', '--ol-s3', '.mrap' or '--x-s3'";

const IP_ADDRESS = /^\d+\.\d+\.\d+\.\d+$/;
const RESERVED_PREFIX = /^(xn--|sthree-|amzn-s3-demo-)/;
const RESERVED_SUFFIX = /(-s3alias|--ol-s3|\.mrap|--x-s3)$/;

const isBucketName = (name: string): boolean =>
  S3_BUCKET_NAME.test(name) && !name.includes('..') && !IP_ADDRESS.test(name) && !RESERVED_PREFIX.test(name) && !RESERVED_SUFFIX.test(name);

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
  const bucket = requireEnv(ARCHIVE_ENV.bucket, env, ALLOWED_BUCKET);
  if (!isBucketName(bucket)) {
    throw new EnvironmentError(ARCHIVE_ENV.bucket, `got ${shownEnvValue(bucket)}; allowed: ${ALLOWED_BUCKET}`);
  }
  return { bucket };
}
