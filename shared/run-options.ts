/**
 * The rule for the options every long run (a redrive, `summarizeDlq`, a replay) takes to be
 * watched and stopped: `dryRun`, `onProgress` and `signal`. Each caller words a fault with its own
 * error class.
 */

import { isAbortSignalLike } from './abort.js';
import { showValue } from './show-value.js';

/** The run options {@link runOptionFault} checks, as given (a caller without the types may pass anything). */
export interface RunOptionsGiven {
  readonly dryRun?: unknown;
  readonly onProgress?: unknown;
  readonly signal?: unknown;
}

/**
 * The first of `dryRun`, `onProgress` and `signal` that is of the wrong type, with what was given
 * and what is allowed, or `undefined`: `dryRun` a boolean (a run that compares it with `true`
 * would run for real on `"yes"`, one that takes it as truthy dry on `"false"`), `onProgress` a
 * function (else the run would stop at its first report, after its first batch was sent), `signal`
 * an AbortSignal, or one that behaves as one ({@link isAbortSignalLike}, as a local stack's start takes).
 *
 * @example
 * ```ts
 * runOptionFault({ dryRun: 'yes' }); // { field: 'dryRun', detail: 'got "yes"; allowed: true (…) or false' }
 * ```
 */
export function runOptionFault(options: RunOptionsGiven): { readonly field: string; readonly detail: string } | undefined {
  const { dryRun, onProgress, signal } = options;
  if (dryRun !== undefined && typeof dryRun !== 'boolean') {
    return { field: 'dryRun', detail: `got ${showValue(dryRun)}; allowed: true (read and classify, send nothing) or false` };
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    return { field: 'onProgress', detail: `got ${showValue(onProgress)}; allowed: a function called after every batch, or leave it out` };
  }
  // A retry's pause listens for the abort and removes its listener when it ends (shared/backoff.ts sleep).
  if (signal !== undefined && !isAbortSignalLike(signal)) {
    const given = typeof signal === 'object' && signal !== null ? 'an object that is no AbortSignal' : showValue(signal);
    return { field: 'signal', detail: `got ${given}; allowed: an AbortSignal (an AbortController's signal), or leave it out` };
  }
  return undefined;
}
