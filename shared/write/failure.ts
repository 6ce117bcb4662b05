/**
 * How a write that failed is reported, translated at the boundary: its outcome is unknown when an
 * attempt may have committed; else DynamoDB refused it for a reason retrying does not cure, or
 * the client failed before sending it, and nothing was written.
 */

import { errorName } from '../aws/error-name.js';
import { type OutboxError, WriteOutcomeUnknownError, WriteRejectedError, WriteValidationError } from '../errors.js';
import { answered, describeError } from './attempts.js';

/** What the helper knows of a write when it gives up on it. */
export interface FailedWrite {
  readonly error: unknown;
  readonly attempts: number;
  readonly idempotencyKey: string | undefined;
  /** How long DynamoDB has reported an attempt under the current token in progress, if it has. */
  readonly inProgressForMs: number | undefined;
  /** What an attempt under the current token got that leaves open whether it committed, if one did. */
  readonly lost: string | undefined;
}

/**
 * A {@link WriteOutcomeUnknownError} when an attempt under the current token may have committed
 * (DynamoDB called one in progress, or one got no answer that says how it ended), else
 * `undefined`: nothing was written. `refusedWith` names the refusal that ended the write, if any.
 */
export function unknownOutcome(failed: FailedWrite, refusedWith: string | undefined): WriteOutcomeUnknownError | undefined {
  const { error, attempts, idempotencyKey, inProgressForMs, lost } = failed;
  if (inProgressForMs !== undefined && refusedWith !== undefined) {
    return new WriteOutcomeUnknownError(attempts, inProgressForMs, idempotencyKey, { cause: error }, refusedWith);
  }
  const unanswered = lost ?? (inProgressForMs === undefined ? undefined : describeError(error));
  if (unanswered === undefined) return undefined;
  const outcome = { reason: 'NO_ANSWER', attempts, lost: unanswered, ...(refusedWith === undefined ? {} : { refusedWith }) } as const;
  return new WriteOutcomeUnknownError(outcome, idempotencyKey, { cause: error });
}

const CREDENTIAL_ERRORS = new Set([
  'CredentialsProviderError',
  'ExpiredTokenException',
  'IncompleteSignatureException',
  'InvalidSignatureException',
  'MissingAuthenticationTokenException',
  'TokenProviderError',
  'UnrecognizedClientException',
]);

/** What the caller can do about a refusal, by its name. */
function remedy(name: string, tables: readonly string[]): string {
  if (name === 'AccessDeniedException') {
    // DynamoDB authorises a transaction action by action, by the permission of the single-item call.
    // Each outbox slot is written whole (a Put conditional on the sequence seen); only a slot found without its creation time is updated.
    return `Grant the caller, on ${tables.join(', ')}, the permission of each action of the write: dynamodb:PutItem (a Put, each outbox slot, and the idempotency record), dynamodb:UpdateItem (an Update, and a slot found without its creation time), dynamodb:DeleteItem (a Delete) or dynamodb:ConditionCheckItem (a ConditionCheck); a write with an idempotencyKey also reads its record with dynamodb:GetItem.`;
  }
  if (CREDENTIAL_ERRORS.has(name)) {
    return "Check the DynamoDB client's credentials (missing, expired, or of another account) and its region.";
  }
  if (name === 'ResourceNotFoundException') {
    return `A table the write names (${tables.join(', ')}) does not exist in the client's account and region, or is not ACTIVE.`;
  }
  return 'The same request would be refused again; the cause says what DynamoDB objected to.';
}

/**
 * The typed error of a failure that wrote nothing: a `WriteValidationError` for a request
 * DynamoDB found invalid (`DUPLICATE_ITEM` for two actions on one item), else a
 * `WriteRejectedError` that says what to do.
 */
export function refusalError(error: unknown, tables: readonly string[]): OutboxError {
  const name = errorName(error);
  const message = (error as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  if (name === 'ValidationException') {
    return /multiple operations on one item/i.test(text)
      ? new WriteValidationError(
          'DUPLICATE_ITEM',
          `Two actions of this write target the same item (${text}); allowed: one action per item`,
          {
            cause: error,
          },
        )
      : new WriteValidationError(
          'INVALID_OPERATION',
          `DynamoDB refused the transaction as invalid (ValidationException: ${text}); nothing was written. Fix the operation it names.`,
          { cause: error },
        );
  }
  if (!answered(error) && !CREDENTIAL_ERRORS.has(name)) {
    return new WriteRejectedError(
      name,
      `The write was never sent to DynamoDB (${name}: ${text}); nothing was written. The client failed before sending it; the cause says why.`,
      {
        cause: error,
      },
    );
  }
  const what = answered(error)
    ? `DynamoDB refused the write (${name}: ${text})`
    : `The write was never sent to DynamoDB (${name}: ${text})`;
  return new WriteRejectedError(name, `${what}; nothing was written. ${remedy(name, tables)}`, { cause: error });
}
