import { counted } from './plural.js';

/**
 * Every error this library throws on purpose is an {@link OutboxError}: it carries a stable
 * `code` to branch on, and a message that says what was wrong, what was given and what is
 * allowed. SDK errors are translated at the boundary and kept as `cause`.
 */
export class OutboxError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OutboxError';
    this.code = code;
  }
}

/** The outbox configuration is invalid; `field` names the offending path. */
export class ConfigError extends OutboxError {
  readonly field: string;
  /** What was wrong, given and allowed: the message without its heading. */
  readonly detail: string;

  constructor(field: string, message: string, options?: ErrorOptions) {
    super('INVALID_CONFIG', `Invalid outbox config at ${field}: ${message}`, options);
    this.name = 'ConfigError';
    this.field = field;
    this.detail = message;
  }
}

/** Codes of {@link WriteValidationError}: input the write helper rejects before any request. */
export type WriteValidationCode =
  | 'EMPTY_WRITE'
  | 'TOO_MANY_ACTIONS'
  | 'DUPLICATE_ITEM'
  | 'INVALID_OPERATION'
  | 'MISSING_EVENT_TYPE'
  | 'MISSING_AGGREGATE'
  | 'UNROUTED_AGGREGATE_TYPE'
  | 'DATA_NOT_SERIALIZABLE'
  | 'ENVELOPE_TOO_LARGE'
  | 'SLOT_TOO_LARGE'
  | 'ITEM_TOO_LARGE'
  | 'REQUEST_TOO_LARGE'
  | 'IDEMPOTENCY_RECORD_TOO_LARGE'
  | 'INVALID_IDEMPOTENCY_KEY'
  | 'INVALID_TRACEPARENT'
  | 'INVALID_TRACESTATE'
  | 'UNKNOWN_FIELD'
  /** An event's `version` that the config's `eventTypes` does not declare for its type (or without `eventTypes`, or on an undeclared type under `undeclaredEventTypes: 'allow'`). */
  | 'INVALID_EVENT_VERSION'
  /** Event data, or an attribute value of an operation, nested deeper than DynamoDB's 32 levels. */
  | 'NESTED_TOO_DEEP';

/**
 * The write input is invalid; nothing was written. It is refused before any request is sent,
 * except two operations on one item of another table, which only DynamoDB's answer reveals.
 */
export class WriteValidationError extends OutboxError {
  declare readonly code: WriteValidationCode;

  constructor(code: WriteValidationCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = 'WriteValidationError';
  }
}

/** Why one of the caller's operations made DynamoDB cancel the transaction. */
export interface OperationFailure {
  /** Index of the operation in the caller's `operations` array; -1 for an outbox slot, which `kind` then names. */
  readonly index: number;
  /** `Put`, `Update`, `Delete` or `ConditionCheck`; for a slot, `outbox slot of <type>/<id>`. */
  readonly kind: string;
  /** DynamoDB's cancellation code, e.g. `ConditionalCheckFailed`. */
  readonly reason: string;
  readonly message?: string;
  /** The item as it was, when the operation set `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`. */
  readonly item?: Record<string, unknown>;
}

/** DynamoDB cancelled the transaction because of the caller's own operations (or, rarely, an outbox slot); nothing was written. */
export class TransactionFailedError extends OutboxError {
  readonly failures: readonly OperationFailure[];

  constructor(failures: readonly OperationFailure[], options?: ErrorOptions) {
    const detail = failures
      .map((f) => `${f.index < 0 ? f.kind : `operations[${f.index}] (${f.kind})`}: ${f.reason}${f.message ? ` – ${f.message}` : ''}`)
      .join('; ');
    super('TRANSACTION_FAILED', `The transaction was cancelled and nothing was written: ${detail}`, options);
    this.name = 'TransactionFailedError';
    this.failures = failures;
  }
}

/** The retry bound a {@link TransactionConflictError} spent. */
export type SpentRetryBound = 'retry.maxAttempts' | 'retry.maxSequenceRaces';

/** Transaction conflicts, throttling or races with other writers outlasted the bounded retries; nothing was written. */
export class TransactionConflictError extends OutboxError {
  readonly attempts: number;
  /** Which bound was spent: conflicts and throttling count against `retry.maxAttempts`, lost races against `retry.maxSequenceRaces`. */
  readonly bound: SpentRetryBound;

  constructor(attempts: number, lastReason: string, bound: SpentRetryBound = 'retry.maxAttempts', options?: ErrorOptions) {
    super(
      'TRANSACTION_CONFLICT',
      `The transaction was still conflicting after ${attempts} attempts (last reason: ${lastReason}); nothing was written. ` +
        (bound === 'retry.maxSequenceRaces'
          ? 'Other writers of the same aggregate kept committing first; raise retry.maxSequenceRaces or spread the writes.'
          : 'Concurrent writers on one aggregate serialise; raise retry.maxAttempts or spread the writes.'),
      options,
    );
    this.name = 'TransactionConflictError';
    this.attempts = attempts;
    this.bound = bound;
  }
}

/** Why a {@link WriteOutcomeUnknownError} cannot say whether the write committed. */
export type UnknownOutcomeReason =
  /** DynamoDB still reported an earlier attempt running (`TransactionInProgressException`) when the helper stopped asking. */
  | 'IN_PROGRESS'
  /** An attempt got no answer that says how it ended: a network error, a timeout, an aborted request, an HTTP 5xx. */
  | 'NO_ANSWER'
  /** DynamoDB had seen the key on a request with other parameters, and reading the key's record to learn how that one ended failed. */
  | 'RECORD_UNREADABLE';

/** What the write helper knows of a write whose outcome is unknown; {@link WriteOutcomeUnknownError} words it. */
export type UnknownOutcome =
  | { readonly reason: 'IN_PROGRESS'; readonly attempts: number; readonly waitedMs: number; readonly refusedWith?: string }
  /** `lost`: what the unanswered attempt got; `refusedWith`: what refused the attempts after it, when they ran out. */
  | { readonly reason: 'NO_ANSWER'; readonly attempts: number; readonly lost: string; readonly refusedWith?: string }
  | { readonly reason: 'RECORD_UNREADABLE'; readonly attempts: number; readonly lost: string };

/** What happened to a write whose outcome is unknown, in words. */
function unknownOutcomeText(outcome: UnknownOutcome): string {
  const attempts = counted(outcome.attempts, 'attempt');
  switch (outcome.reason) {
    case 'IN_PROGRESS':
      return outcome.refusedWith === undefined
        ? `DynamoDB was still running an earlier attempt of this write ${outcome.waitedMs} ms after it first answered TransactionInProgressException (${attempts}); that attempt may yet commit, so nothing more was sent.`
        : `DynamoDB answered TransactionInProgressException to an earlier attempt of this write, and refused the attempts of the ${outcome.waitedMs} ms since (${outcome.refusedWith}, ${attempts}) before saying how it ended; that attempt may have committed, so nothing more was sent.`;
    case 'NO_ANSWER':
      return outcome.refusedWith === undefined
        ? `DynamoDB gave no answer that says whether this write committed (${outcome.lost}): the request may have reached DynamoDB and committed, or not, and nothing more was sent.`
        : `An attempt of this write got no answer from DynamoDB (${outcome.lost}), and the attempts since were refused (${outcome.refusedWith}, ${attempts}) before DynamoDB said how it ended; that attempt may have committed, so nothing more was sent.`;
    case 'RECORD_UNREADABLE':
      return `DynamoDB had seen this idempotencyKey on a request with other parameters (an earlier call of this write, say), and reading the key's idempotency record to learn whether that request committed failed (${outcome.lost}); the write may have committed.`;
  }
}

/** What the caller can do about a write whose outcome is unknown. */
const unknownOutcomeRemedy = (idempotencyKey: string | undefined): string =>
  idempotencyKey === undefined
    ? 'Without an idempotencyKey a retry may write it twice: read the written items to learn whether it did; a write with an idempotencyKey can be retried safely instead.'
    : `Retry it with the same idempotencyKey (${JSON.stringify(idempotencyKey)}): that returns the committed result, or writes it once.`;

/**
 * The write may or may not have committed, and the helper cannot tell: DynamoDB still reported
 * an earlier attempt running when it stopped asking, or an attempt got no answer (a network
 * error, a timeout, an HTTP 5xx once the SDK's retries were spent). Nothing more was sent. A
 * write with an `idempotencyKey` is retried safely with the same key; one without may be written
 * twice by a retry. `cause` holds the error that ended the write.
 */
export class WriteOutcomeUnknownError extends OutboxError {
  readonly attempts: number;
  readonly reason: UnknownOutcomeReason;
  readonly idempotencyKey: string | undefined;

  /**
   * `refusedWith`: the error that refused the attempts after the in-progress answer (throttling,
   * say), when they ran out before DynamoDB said how the earlier attempt ended.
   */
  constructor(attempts: number, waitedMs: number, idempotencyKey: string | undefined, options?: ErrorOptions, refusedWith?: string);
  constructor(outcome: UnknownOutcome, idempotencyKey: string | undefined, options?: ErrorOptions);
  constructor(
    first: number | UnknownOutcome,
    second: number | string | undefined,
    third?: string | ErrorOptions,
    fourth?: ErrorOptions,
    refusedWith?: string,
  ) {
    const positional = typeof first === 'number';
    const outcome: UnknownOutcome = positional
      ? { reason: 'IN_PROGRESS', attempts: first, waitedMs: second as number, ...(refusedWith === undefined ? {} : { refusedWith }) }
      : first;
    const idempotencyKey = (positional ? third : second) as string | undefined;
    const message = `${unknownOutcomeText(outcome)} ${unknownOutcomeRemedy(idempotencyKey)}`;
    super('WRITE_OUTCOME_UNKNOWN', message, (positional ? fourth : third) as ErrorOptions | undefined);
    this.name = 'WriteOutcomeUnknownError';
    this.attempts = outcome.attempts;
    this.reason = outcome.reason;
    this.idempotencyKey = idempotencyKey;
  }
}

/**
 * DynamoDB refused the write for a reason retrying does not cure (permissions, credentials, a
 * table that does not exist), or the request failed before it was sent; nothing was written.
 * `reason` is the refusal's name (`AccessDeniedException`, say), `cause` the SDK's error.
 */
export class WriteRejectedError extends OutboxError {
  readonly reason: string;

  constructor(reason: string, message: string, options?: ErrorOptions) {
    super('WRITE_REJECTED', message, options);
    this.name = 'WriteRejectedError';
    this.reason = reason;
  }
}

/** The idempotency key already holds the committed result of a different write. */
export class IdempotencyConflictError extends OutboxError {
  constructor(key: string, options?: ErrorOptions) {
    super(
      'IDEMPOTENCY_KEY_REUSED',
      `Idempotency key "${key}" already holds the committed result of a different write (other operations or events); allowed: the same write again under this key, which returns that result, or a new key for a new write.`,
      options,
    );
    this.name = 'IdempotencyConflictError';
  }
}

/** A required environment variable is missing or malformed (read once, at cold start). */
export class EnvironmentError extends OutboxError {
  readonly variable: string;

  constructor(variable: string, message: string, options?: ErrorOptions) {
    super('INVALID_ENVIRONMENT', `Environment variable ${variable}: ${message}`, options);
    this.name = 'EnvironmentError';
    this.variable = variable;
  }
}
