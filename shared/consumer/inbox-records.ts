/** The inbox's records and what its writes come to, apart from the `Inbox` that writes them. */

import type { InboxEventKey } from './inbox-keys.js';

export const INBOX_KIND = 'inbox';
export const DEFAULT_INBOX_RETENTION_SECONDS = 14 * 24 * 3600;
export const DEFAULT_CLAIM_TIMEOUT_SECONDS = 300;
/** TransactWriteItems takes 100 actions; the inbox record is one of them. */
export const MAX_HANDLER_WRITES = 99;

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
