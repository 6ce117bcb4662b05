/**
 * How a failed start reports the parts it had started that then failed to stop: every such
 * failure in the error's `errors`, newest part first, and, for the local stack's own errors, named
 * in its message, so none hides behind the start's failure or its cause.
 */

import { errorMessage } from '../../error-message.js';
import { counted } from '../../plural.js';
import { LocalStackError, LocalStartError } from '../errors.js';

/**
 * What a failed start's message says of what `who` had started (`it`, `the start`): that all of
 * it has been stopped, or which parts failed to stop (their failures in the error's `errors`).
 *
 * @example
 * ```ts
 * stoppedPhrase('it', [new Error('lease kept')]);
 * // "of what it had started, 1 part failed to stop (lease kept: it is in the error's `errors`), the others have been stopped"
 * ```
 */
export function stoppedPhrase(who: string, failures: readonly unknown[]): string {
  const count = failures.length;
  if (count === 0) return `what ${who} had started has been stopped, nothing is left running`;
  const parts = counted(count, 'part');
  const where = count === 1 ? 'it is' : 'they are';
  return `of what ${who} had started, ${parts} failed to stop (${failures.map(errorMessage).join('; ')}: ${where} in the error's \`errors\`), the others have been stopped`;
}

/**
 * `error`, a start's failure, once what it had started was stopped, with `failures` (each part
 * that failed to stop, newest first) in its `errors`; a `LocalStackError` or `LocalStartError`
 * names them in its message too. Its `cause` stays its own. An error that has `errors` of its own
 * (an `AggregateError`) keeps them, and takes the first failure as its `cause` when it has none.
 */
export function withStopFailures(error: unknown, failures: readonly unknown[]): unknown {
  if (failures.length === 0 || typeof error !== 'object' || error === null) return error;
  const failed = error as { errors?: unknown; cause?: unknown; message?: unknown };
  if ('errors' in failed) {
    if (failed.cause === undefined) failed.cause = failures[0];
    return error;
  }
  failed.errors = failures;
  if (error instanceof LocalStackError || error instanceof LocalStartError)
    error.message = `${error.message}; ${stoppedPhrase('the start', failures)}`;
  return error;
}
