import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * Loaded with `node --import` before the CLI: every SQS and S3 call rejects with the value
 * `REJECT_WITH` holds as JSON (`undefined` for undefined), not with an Error, as a faulty
 * middleware or wrapper of the SDK can.
 */
const raw = process.env.REJECT_WITH ?? 'null';
const value: unknown = raw === 'undefined' ? undefined : JSON.parse(raw);
for (const client of [SQSClient, S3Client]) {
  Object.defineProperty(client.prototype, 'send', { value: () => Promise.reject(value), configurable: true, writable: true });
}
