/** The inbox's records and what its writes come to, apart from the `Inbox` that writes them. */

import type { BackoffOptions } from '../backoff.js';
import type { InboxEventKey } from './inbox-keys.js';

export const INBOX_KIND = 'inbox';
export const DEFAULT_INBOX_RETENTION_SECONDS = 14 * 24 * 3600;
export const DEFAULT_CLAIM_TIMEOUT_SECONDS = 300;
/** TransactWriteItems takes 100 actions; the inbox record is one of them. */
export const MAX_HANDLER_WRITES = 99;

/**
 * How often a throttled commit (an event's own transaction, or a batch group's) is sent, in all,
 * before its events fail. The SDK retries a whole request throttled a few times, but not a
 * cancellation whose reason is a throttled action (a hot item or partition): without these, one
 * such blip would fail the message (every message of a group), each spending a receive toward the
 * queue's `maxReceiveCount`. The waits between them come to under 0.6 s (up to 0.2 s, then up to
 * 0.4 s: `maxDelayMs` is not reached in 3 attempts). Nothing cuts them short: a batch once
 * received is processed to its end (the poller's stop aborts only its receive), and the consumer
 * keeps no deadline of its own (Lambda's remaining time sets only when claims lapse). A retry sent
 * after an earlier attempt that did commit (its answer lost) finds the inbox record: a duplicate.
 */
export const THROTTLED_COMMIT_RETRY: BackoffOptions = { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 800 };

/**
 * Where an inbox record stands: `IN_PROGRESS` while a `claim` handler holds the event (until
 * `claimExpiresAt`), `COMPLETED` once the event was handled (a redelivery is then a duplicate).
 */
export type InboxStatus = 'IN_PROGRESS' | 'COMPLETED';

/** An inbox record as stored. */
export interface InboxRecord {
  readonly pk: string;
  readonly sk: string;
  readonly kind: typeof INBOX_KIND;
  readonly consumer: string;
  readonly eventId: string;
  /** The event's source; records written before the source was part of the key have none. */
  readonly eventSource?: string;
  readonly eventType: string;
  readonly status: InboxStatus;
  readonly processedAt?: string;
  /** Epoch seconds; only while `IN_PROGRESS`. */
  readonly claimExpiresAt?: number;
  /** The claim's token; kept once `COMPLETED` by a claim. */
  readonly claimToken?: string;
  readonly expiresAt: number;
}

export type CommitResult =
  | { readonly status: 'committed' }
  | { readonly status: 'duplicate' }
  /** An unexpired claim of the event (a handler in `claim` mode) stands in the way: nothing was written. */
  | { readonly status: 'held'; readonly expiresAt: number };
export type ClaimResult =
  | { readonly status: 'claimed'; readonly token: string; readonly expiresAt: number; readonly tookOver: boolean }
  | { readonly status: 'duplicate' }
  | { readonly status: 'held'; readonly expiresAt: number }
  /** `until` had already passed: a claim would lapse as it was taken, so nothing was written. */
  | { readonly status: 'late'; readonly until: number };

export type LegacyState = { readonly status: 'none' | 'duplicate' } | { readonly status: 'held'; readonly expiresAt: number };

/** What the inbox records of an event. */
export interface InboxEvent extends InboxEventKey {
  readonly type: string;
}
