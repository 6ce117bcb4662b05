import { errorName } from './aws/error-name.js';
import { showValue } from './show-value.js';

/**
 * What an error line shows of a caught value: its message, else a line that says what was thrown,
 * since a rejection can be any value (`null`, a string, a number) and reading `.message` of
 * `null` would end the command with a TypeError instead of its error line.
 *
 * @example
 * ```ts
 * errorMessage(new Error('Queue is gone')); // 'Queue is gone'
 * errorMessage('boom'); // 'boom'
 * errorMessage(null); // 'no error message; the value thrown was null'
 * ```
 */
export function errorMessage(error: unknown): string {
  const message = typeof error === 'object' && error !== null ? (error as { readonly message?: unknown }).message : error;
  if (typeof message === 'string' && message.trim() !== '') return message;
  if (error instanceof Error) return `${errorName(error)} with no message`;
  const shown = showValue(error).replace(/\s+/g, ' ');
  return `no error message; the value thrown was ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown}`;
}
