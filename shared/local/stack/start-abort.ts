/**
 * A start given an abort signal: what it was given is checked like any option, and an abort
 * while it runs becomes a `LocalStackError` `START_ABORTED` that says which step it stopped in.
 */

import { errorMessage } from '../../error-message.js';
import { LocalStackError } from '../errors.js';
import { invalidOption } from './options.js';

/** Fails with `INVALID_OPTION` unless `signal` is `undefined` or an `AbortSignal`. */
export function checkSignal(what: string, signal: unknown): void {
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw invalidOption(what, signal, 'an AbortSignal (such as AbortController().signal or AbortSignal.timeout(ms)), or none');
}

/**
 * The error a start rejects with once `signal` has aborted, `during` the step it was in (`while
 * starting DynamoDB Local`). Thrown only once what the start had started is stopped again, so its
 * message says so; the signal's reason is its `cause`.
 */
export function startAborted(signal: AbortSignal, during: string): LocalStackError {
  const reason = signal.reason === undefined ? 'no reason given' : errorMessage(signal.reason);
  return new LocalStackError(
    'START_ABORTED',
    `the start was aborted ${during} (${reason}); what it had started has been stopped, nothing is left running`,
    { cause: signal.reason },
  );
}
