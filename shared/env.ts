/**
 * Reading a function's environment: a required variable, and a value as a message shows it.
 */

import { EnvironmentError } from './errors.js';

/** How much of an environment value a message shows: enough to recognise it, never a whole config. */
const SHOWN_ENV_CHARS = 200;

/** An environment value as a message shows it: quoted, cut after {@link SHOWN_ENV_CHARS} characters. */
export const shownEnvValue = (text: string): string =>
  JSON.stringify(text.length > SHOWN_ENV_CHARS ? `${text.slice(0, SHOWN_ENV_CHARS)}…` : text);

/**
 * Reads a required environment variable, failing with an {@link EnvironmentError} that names it when
 * it is unset, empty or blank (`is not set (got " ")`), or when `check` refuses its value (`got "…"`),
 * and says what it may hold when `allowed` is given. `check` is a pattern the value must match, or
 * a function that says what is wrong with it, worded to follow "which" (`got "…", which holds '..'`),
 * and returns `undefined` when nothing is.
 *
 * @example
 * ```ts
 * const table = requireEnv('LEASE_TABLE', process.env, 'a DynamoDB table name', /^[A-Za-z0-9_.-]{3,255}$/);
 * ```
 */
export function requireEnv(
  variable: string,
  env: NodeJS.ProcessEnv = process.env,
  allowed?: string,
  check?: RegExp | ((value: string) => string | undefined),
): string {
  const value = env[variable];
  const may = allowed === undefined ? '' : `; allowed: ${allowed}`;
  if (value === undefined) throw new EnvironmentError(variable, `is not set${may}`);
  if (value.trim() === '') throw new EnvironmentError(variable, `is not set (got ${shownEnvValue(value)})${may}`);
  if (check instanceof RegExp) {
    if (!check.test(value)) throw new EnvironmentError(variable, `got ${shownEnvValue(value)}${may}`);
  } else {
    const problem = check?.(value);
    if (problem !== undefined) throw new EnvironmentError(variable, `got ${shownEnvValue(value)}, which ${problem}${may}`);
  }
  return value;
}

/**
 * Reads a required environment variable that holds JSON ({@link requireEnv}'s checks first): its
 * text and the value it parses to, failing with an {@link EnvironmentError} that shows the text and
 * says why it is not JSON, and what it may hold.
 *
 * @example
 * ```ts
 * const { value } = jsonFromEnv('OUTBOX_TOPIC_ARNS', process.env, 'a JSON object of topic name → ARN');
 * ```
 */
export function jsonFromEnv(variable: string, env: NodeJS.ProcessEnv, allowed: string): { text: string; value: unknown } {
  const text = requireEnv(variable, env, allowed);
  try {
    return { text, value: JSON.parse(text) };
  } catch (error) {
    const reason = (error as Error).message;
    throw new EnvironmentError(variable, `got ${shownEnvValue(text)}, which is not JSON (${reason}); allowed: ${allowed}`, {
      cause: error,
    });
  }
}
