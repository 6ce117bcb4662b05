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
const DEPLOYMENT = /^kms|authoriz|accessdenied|notfound|invalidsecurity|forbidden|expiredtoken|invalidclienttokenid|optinrequired/i;

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

/** Whether an error thrown by a whole request is the deployment's (KMS key, permission, topic gone), not its entries'. */
export function isDeploymentError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return [name, code].some((value) => typeof value === 'string' && DEPLOYMENT.test(value));
}

/**
 * Classifies an error thrown by a whole `PublishBatch` request. Only throttling, server
 * errors and network failures are worth retrying in process; anything else (an unknown
 * topic, missing permission) is a deployment problem, so the record is reported failed and
 * the event source mapping keeps it, rather than dead-lettering good events.
 */
export function requestErrorKind(error: unknown): FailureKind {
  if (typeof error !== 'object' || error === null) return 'transient';
  const e = error as { name?: string; code?: string; $retryable?: unknown; $fault?: string; $metadata?: { httpStatusCode?: number } };
  if (e.$retryable !== undefined) return 'transient';
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined) return 'transient';
  if (status >= 500 || status === 429) return 'transient';
  if (THROTTLING.test(e.name ?? '') || THROTTLING.test(e.code ?? '')) return 'transient';
  return 'permanent';
}

/** A short description of an error for logs and dead letters. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
