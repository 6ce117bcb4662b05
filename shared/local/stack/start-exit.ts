/**
 * How `npm start` ends when its start fails: when a signal aborted it, the line it prints, where,
 * and its exit code; otherwise what its error line says.
 */

import { errorMessage } from '../../error-message.js';
import { LocalStackError, LocalStartError } from '../errors.js';
import { stoppedPhrase } from './stop-failures.js';

/** The exit code of a run a signal ended, as a shell reports one: 128 and the signal's number. */
const SIGNAL_EXIT_CODES: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * The exit code of a run `signal` (`SIGINT`, `SIGTERM`) ended, as a shell reports one (130, 143);
 * 1 for any other.
 *
 * @example
 * ```ts
 * signalExitCode('SIGTERM'); // 143
 * ```
 */
export const signalExitCode = (signal: string): number => SIGNAL_EXIT_CODES[signal] ?? 1;

/** What `npm start` prints and exits with. */
export interface StartExit {
  readonly stream: 'stdout' | 'stderr';
  readonly line: string;
  readonly code: number;
}

/**
 * `npm start`'s end once `error` (`START_ABORTED`) rejected the start that `signal` (`SIGINT`,
 * `SIGTERM`) aborted: when every part stopped, a line on stdout that nothing is left running and
 * the exit code a shell gives the signal (130, 143); when a part failed to stop (the error's
 * `errors`), the error's message, which names it, on stderr and exit code 1, so a script can tell
 * a run that left something behind from one a signal ended cleanly.
 *
 * @example
 * ```ts
 * abortedStartExit(startAborted(signal, 'while starting DynamoDB Local'), 'SIGINT').code; // 130
 * ```
 */
export function abortedStartExit(error: LocalStackError, signal: string): StartExit {
  if (error.errors !== undefined && error.errors.length > 0) return { stream: 'stderr', line: `npm start: ${error.message}`, code: 1 };
  return { stream: 'stdout', line: 'stopped before the stack was up; nothing is left running', code: signalExitCode(signal) };
}

/**
 * What `npm start` says of a start that failed otherwise: the error's message, and, for an error
 * not the local stack's own (one the SDK threw, say), whose message cannot name them, the parts
 * that then failed to stop (its `errors`). A `LocalStackError`'s or `LocalStartError`'s message
 * names them already.
 *
 * @example
 * ```ts
 * startFailureMessage(Object.assign(new Error('table gone'), { errors: [new Error('lease kept')] }));
 * // "table gone; of what the start had started, 1 part failed to stop (lease kept: …), the others have been stopped"
 * ```
 */
export function startFailureMessage(error: unknown): string {
  const message = errorMessage(error);
  if (error instanceof LocalStackError || error instanceof LocalStartError || error instanceof AggregateError) return message;
  const failures = typeof error === 'object' && error !== null ? (error as { errors?: unknown }).errors : undefined;
  return Array.isArray(failures) && failures.length > 0 ? `${message}; ${stoppedPhrase('the start', failures)}` : message;
}
