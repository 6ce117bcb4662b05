/**
 * The check of `createProcessor`'s own options (those besides the relay's), by the rules the
 * environment's reading uses ({@link STREAM_ARN_PATTERN}, …): once per call, before the worker exists.
 */

import { SEND_CLIENT_ALLOWED, sendClientFault } from '../aws/send-client.js';
import { showValue } from '../show-value.js';
import { ProcessorOptionsError } from './errors.js';
import {
  LEASE_TABLE_ALLOWED,
  STREAM_ARN_ALLOWED,
  STREAM_ARN_PATTERN,
  TABLE_NAME_PATTERN,
  WORKER_ID_ALLOWED,
  WORKER_ID_DEFAULT,
} from './processor-rules.js';

/** The options {@link checkProcessorOptions} reads, as given (a caller without the types may pass anything). */
export interface ProcessorOwnOptions {
  readonly streams?: unknown;
  readonly streamArn?: unknown;
  readonly document?: unknown;
  readonly leaseTableName?: unknown;
  readonly workerId?: unknown;
  readonly observer?: unknown;
}

/** A client option: refused, naming it, when it has no `send` method. */
function checkClient(field: string, client: unknown, allowed: string): void {
  const given = sendClientFault(client);
  if (given !== undefined) throw new ProcessorOptionsError(field, `got ${given}; allowed: ${allowed}`);
}

/**
 * A lease table name, given as `field` (`leaseTableName`, `tableName`), by the rule
 * `OUTBOX_LEASE_TABLE` is read with: refused with a {@link ProcessorOptionsError} unless DynamoDB takes it.
 *
 * @example
 * ```ts
 * checkLeaseTableName('tableName', 'arn:aws:dynamodb:eu-west-1:123456789012:table/leases'); // throws
 * ```
 */
export const checkLeaseTableName = (field: string, value: unknown): void =>
  checkText(field, value, TABLE_NAME_PATTERN, LEASE_TABLE_ALLOWED);

/** A text option that must match `pattern`: refused with what was given and what is allowed. */
function checkText(field: string, value: unknown, pattern: RegExp, allowed: string): void {
  if (typeof value === 'string' && pattern.test(value)) return;
  throw new ProcessorOptionsError(field, `got ${showValue(value)}; allowed: ${allowed}`);
}

/**
 * Refuses, with a {@link ProcessorOptionsError} naming the option, what was given and what is
 * allowed, a stream processor option the worker would misuse only once running: a client without
 * `send`, a stream ARN or lease table name of the wrong shape (the first read or lease write would
 * fail, over and over), a blank or non-string worker id (every such worker would own its leases as
 * one blank owner), an observer that is no object.
 *
 * @example
 * ```ts
 * checkProcessorOptions({ streams, streamArn, document, leaseTableName, workerId: '' }); // throws: workerId
 * ```
 */
export function checkProcessorOptions(options: ProcessorOwnOptions): void {
  checkClient('streams', options.streams, SEND_CLIENT_ALLOWED.streams);
  checkText('streamArn', options.streamArn, STREAM_ARN_PATTERN, STREAM_ARN_ALLOWED);
  checkClient('document', options.document, 'a DynamoDBDocumentClient of the DynamoDB that holds the lease table');
  checkLeaseTableName('leaseTableName', options.leaseTableName);
  const { workerId, observer } = options;
  if (workerId !== undefined && (typeof workerId !== 'string' || workerId.trim() === '')) {
    throw new ProcessorOptionsError(
      'workerId',
      `got ${showValue(workerId)}; allowed: ${WORKER_ID_ALLOWED}, not blank (every worker given a blank one would hold its leases as the same owner); leave it out for ${WORKER_ID_DEFAULT}`,
    );
  }
  if (observer !== undefined && (typeof observer !== 'object' || observer === null)) {
    throw new ProcessorOptionsError(
      'observer',
      `got ${showValue(observer)}; allowed: an object of callbacks, such as processorObserver() gives`,
    );
  }
}
