import type { BatchResultErrorEntry } from '@aws-sdk/client-sns';

/** Whether a failed publish may succeed if tried again. */
export type FailureKind = 'transient' | 'permanent';

const THROTTLING = /throttl|toomanyrequests|requestlimitexceeded|slowdown|kmsthrottling/i;
const SERVER_SIDE = /internal|serviceunavailable|unavailable|timeout/i;

/**
 * Classifies one failed entry of a `PublishBatch` result. SNS marks the sender's faults
 * (invalid parameter, too large) with `SenderFault`; those never succeed on a retry, except
 * throttling, which some services report as a sender fault.
 */
export function entryFailureKind(entry: Pick<BatchResultErrorEntry, 'Code' | 'SenderFault'>): FailureKind {
  const code = entry.Code ?? '';
  if (THROTTLING.test(code) || SERVER_SIDE.test(code)) return 'transient';
  return entry.SenderFault === true ? 'permanent' : 'transient';
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
