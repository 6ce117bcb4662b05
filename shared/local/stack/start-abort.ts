/**
 * A start given an abort signal: what it was given is checked like any option, and an abort
 * while it runs becomes a `LocalStackError` `START_ABORTED` that says which step it stopped in.
 */

import { type AbortSignalLike, followSignal as followAbort, isAbortSignalLike } from '../../abort.js';
import { errorMessage } from '../../error-message.js';
import { LocalStackError } from '../errors.js';
import { invalidOption } from './options.js';
import { stoppedPhrase } from './stop-failures.js';

/** Fails with `INVALID_OPTION` unless `signal` is `undefined` or behaves as an `AbortSignal`. */
export function checkSignal(what: string, signal: unknown): void {
  if (signal === undefined || isAbortSignalLike(signal)) return;
  throw invalidOption(
    what,
    signal,
    'an AbortSignal (such as AbortController().signal or AbortSignal.timeout(ms)) or an object that behaves as one (a boolean `aborted`, and `addEventListener` and `removeEventListener` functions), or leave it out',
  );
}

/**
 * The start's own `AbortSignal` for the `signal` it was given: that one when it is Node's, else
 * one that aborts with its reason when it does, as the SDK and `AbortSignal.any` follow only
 * Node's. `release()`, once the start has ended, removes the listener this added to `signal`.
 */
export function followSignal(signal: AbortSignalLike | undefined): { signal: AbortSignal | undefined; release(): void } {
  if (signal === undefined || signal instanceof AbortSignal) return { signal, release: () => {} };
  const followed = followAbort(signal);
  return { signal: followed.signal, release: followed.detach };
}

/**
 * The error a start rejects with once `signal` has aborted, `during` the step it was in (`while
 * starting DynamoDB Local`). Thrown only once what the start had started is stopped again, so its
 * message says so, naming each part that failed to stop (`stopFailures`, its `errors`); the
 * signal's reason is its `cause`.
 */
export function startAborted(signal: AbortSignal, during: string, stopFailures: readonly unknown[] = []): LocalStackError {
  const reason = signal.reason === undefined ? 'no reason given' : errorMessage(signal.reason);
  return new LocalStackError('START_ABORTED', `the start was aborted ${during} (${reason}); ${stoppedPhrase('it', stopFailures)}`, {
    cause: signal.reason,
    ...(stopFailures.length === 0 ? {} : { errors: stopFailures }),
  });
}
