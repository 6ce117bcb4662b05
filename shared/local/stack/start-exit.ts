/**
 * How `npm start` ends when a signal aborted its start: the line it prints, where, and its exit code.
 */

import type { LocalStackError } from '../errors.js';

/** The exit code of a run a signal ended, as a shell reports one: 128 and the signal's number. */
const SIGNAL_EXIT_CODES: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };

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
  return { stream: 'stdout', line: 'stopped before the stack was up; nothing is left running', code: SIGNAL_EXIT_CODES[signal] ?? 1 };
}
