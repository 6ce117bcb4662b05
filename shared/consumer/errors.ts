import { OutboxError } from '../errors.js';

/** Why a message can never be handled as it is; it goes to the DLQ by the queue's redrive policy. */
export type RejectionCode =
  /** The body (or the SNS notification's `Message`) is not JSON. */
  | 'INVALID_JSON'
  /** The JSON is not an outbox CloudEvents envelope. */
  | 'INVALID_ENVELOPE'
  /** No handler is registered for the event's type. */
  | 'UNKNOWN_EVENT_TYPE'
  /** The event's `data` failed the handler's schema. */
  | 'SCHEMA_VALIDATION_FAILED'
  /** A field is longer, or `data` nests deeper, than the consumer takes (the reason names the limit). */
  | 'LIMIT_EXCEEDED'
  /** The event's `source` is not one the consumer is configured for (`sources`). */
  | 'UNTRUSTED_SOURCE'
  /** An SNS notification (non-raw delivery) from a topic the consumer is not configured for (`topicArns`), or with none. */
  | 'UNTRUSTED_TOPIC'
  /** A `type` or `aggregatetype` message attribute (the ones subscriptions filter on) differs from the envelope's. */
  | 'ATTRIBUTE_MISMATCH';

/** A message was rejected before any handler ran; `code` says why, the message says what was given. */
export class MessageRejectedError extends OutboxError {
  declare readonly code: RejectionCode;

  constructor(code: RejectionCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = 'MessageRejectedError';
  }
}

/** The consumer's options (or `pollOnce`'s, or `process`'s) are invalid; thrown before any message is read. */
export class ConsumerOptionsError extends OutboxError {
  readonly field: string;

  constructor(field: string, message: string, options?: ErrorOptions) {
    super('INVALID_CONSUMER_OPTIONS', `Invalid consumer option ${field}: ${message}`, options);
    this.name = 'ConsumerOptionsError';
    this.field = field;
  }
}

/** A handler asked the inbox for something it cannot do (e.g. too many writes for one transaction); nothing was written. */
export class InboxWriteError extends OutboxError {
  constructor(message: string, options?: ErrorOptions) {
    super('INVALID_INBOX_WRITE', message, options);
    this.name = 'InboxWriteError';
  }
}

/** Another worker holds an unexpired claim on the event; the message is retried later. */
export class ClaimHeldError extends OutboxError {
  readonly eventId: string;
  readonly claimExpiresAt: number;

  constructor(eventId: string, claimExpiresAt: number) {
    super(
      'CLAIM_HELD',
      `Event ${eventId} is being processed elsewhere; its claim expires at ${new Date(claimExpiresAt * 1000).toISOString()}, the message will be retried`,
    );
    this.name = 'ClaimHeldError';
    this.eventId = eventId;
    this.claimExpiresAt = claimExpiresAt;
  }
}

/**
 * The moment the batch's claims had to lapse by (the end of the messages' visibility timeout, with
 * `pollOnce`) had passed when the event's turn came: the message may be in another receiver's
 * hands already, so the handler did not run and nothing was written; the message is retried.
 */
export class ClaimDeadlinePassedError extends OutboxError {
  readonly eventId: string;
  readonly claimExpiresAt: number;

  constructor(eventId: string, claimExpiresAt: number) {
    super(
      'CLAIM_DEADLINE_PASSED',
      `Event ${eventId} was not handled: its claim had to lapse by ${new Date(claimExpiresAt * 1000).toISOString()}, which had passed when its turn came (the batch ran past its messages' visibility timeout), so another receiver may be handling it; nothing was written, and the message will be retried`,
    );
    this.name = 'ClaimDeadlinePassedError';
    this.eventId = eventId;
    this.claimExpiresAt = claimExpiresAt;
  }
}

/**
 * The inbox transaction was cancelled by a concurrent write to one of its items or by throttling;
 * nothing was written, and the message is retried.
 */
export class InboxConflictError extends OutboxError {
  readonly eventId: string;

  constructor(event: { readonly id: string; readonly type: string }, reasons: string, options?: ErrorOptions) {
    super(
      'TRANSACTION_CONFLICT',
      `The transaction of event ${event.id} (${event.type}) was cancelled (${reasons}); nothing was written, and the message will be retried`,
      options,
    );
    this.name = 'InboxConflictError';
    this.eventId = event.id;
  }
}

/**
 * DynamoDB still reported an earlier attempt of the event's transaction running
 * (`TransactionInProgressException`) once the SDK's retries, sent under the same
 * `ClientRequestToken`, were spent: that attempt's answer was lost, and it may yet commit. Nothing
 * more was sent; the message is retried, and its redelivery finds the event done (a duplicate)
 * if that attempt committed, and commits it otherwise. `cause` holds DynamoDB's error.
 */
export class InboxTransactionInProgressError extends OutboxError {
  readonly eventId: string;

  constructor(event: { readonly id: string; readonly type: string }, options?: ErrorOptions) {
    super(
      'TRANSACTION_IN_PROGRESS',
      `An earlier attempt of the transaction of event ${event.id} (${event.type}) was still running (TransactionInProgressException) when the retries were spent, and may yet commit; nothing more was sent, and the message will be retried: its redelivery finds the event done (a duplicate) if that attempt committed, and commits it otherwise`,
      options,
    );
    this.name = 'InboxTransactionInProgressError';
    this.eventId = event.id;
  }
}

/** A thrown value as an `Error`: a non-`Error` thrown (a string, an object) is wrapped with its text. */
export const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
