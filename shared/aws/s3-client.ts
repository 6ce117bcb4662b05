import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { CLIENT_TIMEOUTS } from './client-timeouts.js';

/**
 * An `S3Client` that gives up on a connection that stays silent ({@link CLIENT_TIMEOUTS}`.s3`; the
 * SDK's retries then try again), so a stuck read or delete of a failed-batch object cannot hang a
 * redrive or hold an archiver's batch. Apart from the other factories, so the Lambda bundles that never
 * use S3 leave it out, and the archiver's bundle leaves the DynamoDB clients out.
 *
 * @example
 * ```ts
 * const s3 = s3Client({ region: 'eu-west-1' });
 * ```
 */
export const s3Client = (config: S3ClientConfig = {}): S3Client => new S3Client({ requestHandler: CLIENT_TIMEOUTS.s3, ...config });
