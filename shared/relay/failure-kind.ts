import type { BatchResultErrorEntry } from '@aws-sdk/client-sns';

/** Whether a failed publish may succeed if tried again. */
export type FailureKind = 'transient' | 'permanent';

/**
 * What a failed `PublishBatch` entry calls for:
 * - `transient`: retry it in process (throttling, a server error);
 * - `rejected`: SNS refuses this message for good (invalid parameter, too large): dead-letter it;
 * - `deployment`: the message is fine, the deployment is not (the topic's KMS key disabled or
 *   not usable, a missing permission, the topic gone). Every event would fail alike, so none is
 *   dead-lettered: the record is reported failed, and the event source mapping retries it.
 */
export type EntryFailureKind = 'transient' | 'rejected' | 'deployment';

const THROTTLING = /throttl|toomanyrequests|requestlimitexceeded|slowdown|kmsthrottling/i;
const SERVER_SIDE = /internal|serviceunavailable|unavailable|timeout/i;
// Credentials, signing and clock errors are the deployment's too: every event would be refused alike.
const DEPLOYMENT =
  /^kms|authoriz|accessdenied|notfound|invalidsecurity|forbidden|expiredtoken|invalidclienttokenid|optinrequired|signature|requestexpired|unrecognizedclient|missingauthentication|invalidaccesskey/i;

/**
 * Classifies one failed entry of a `PublishBatch` result. SNS marks the sender's faults with
 * `SenderFault`; those never succeed on a retry, except throttling, which some services report
 * as a sender fault. Of the rest, KMS, permission and not-found codes are the deployment's.
 */
export function entryFailureKind(entry: Pick<BatchResultErrorEntry, 'Code' | 'SenderFault'>): EntryFailureKind {
  const code = entry.Code ?? '';
  if (THROTTLING.test(code) || SERVER_SIDE.test(code)) return 'transient';
  if (DEPLOYMENT.test(code)) return 'deployment';
  return entry.SenderFault === true ? 'rejected' : 'transient';
}

/**
 * The string `name` and `code` of a thrown value: the SDK names a service's error by its exception
 * (`name`), Node names a network failure by its `code` (`ECONNRESET`), and a rejection can be any value.
 */
function namesOf(error: unknown): string[] {
  if (typeof error !== 'object' || error === null) return [];
  const { name, code } = error as { name?: unknown; code?: unknown };
  return [name, code].filter((value): value is string => typeof value === 'string');
}

/** Whether an error thrown by a whole request is the deployment's (KMS key, permission, topic gone), not its entries'. */
export function isDeploymentError(error: unknown): boolean {
  return namesOf(error).some((value) => DEPLOYMENT.test(value));
}

/**
 * Whether an error thrown by a whole request is worth retrying in process: throttling, server
 * errors and network failures are; anything else is `permanent`. What a refused `PublishBatch`
 * calls for beyond that (dead-letter the message, or fail the record) is {@link requestFailureKind}'s.
 */
export function requestErrorKind(error: unknown): FailureKind {
  if (typeof error !== 'object' || error === null) return 'transient';
  const e = error as { $retryable?: unknown; $metadata?: { httpStatusCode?: number } };
  if (e.$retryable !== undefined) return 'transient';
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined) return 'transient';
  if (status >= 500 || status === 429) return 'transient';
  return namesOf(error).some((value) => THROTTLING.test(value)) ? 'transient' : 'permanent';
}

/**
 * Classifies an error thrown by a whole `PublishBatch` request with the table the entries' failures
 * go by ({@link entryFailureKind}), so a message SNS refuses as a request fares as one it refuses
 * as an entry: throttling, server and network errors are `transient`; KMS, permission and
 * not-found codes are the `deployment`'s; any other refusal of the sender (a 4xx such as
 * `InvalidParameter`) is `rejected`.
 *
 * @example
 * ```ts
 * requestFailureKind(new InvalidParameterException({ message: 'Invalid parameter', $metadata: { httpStatusCode: 400 } })); // 'rejected'
 * ```
 */
export function requestFailureKind(error: unknown): EntryFailureKind {
  if (requestErrorKind(error) === 'transient') return 'transient';
  if (isDeploymentError(error)) return 'deployment';
  const text = namesOf(error).join(' ');
  // A request refused with a status below 500 that is neither throttling nor the deployment's: the sender's fault.
  return entryFailureKind({ Code: text, SenderFault: true });
}

/** A short description of an error for logs and dead letters. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
