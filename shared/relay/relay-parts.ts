/**
 * The check of the relay's clients, backoff and aggregate-type selection, which `new Relay` (and
 * so `createRelayHandler` and the stream processor's relay) runs once, before anything is sent.
 */

import { SEND_CLIENT_ALLOWED, sendClientFault } from '../aws/send-client.js';
import { BACKOFF_DELAY_ALLOWED, isBackoffDelay } from '../backoff.js';
import { ConfigError } from '../errors.js';
import { MAX_RELAY_TIMEOUT_SECONDS } from '../relay-filter.js';
import { showValue } from '../show-value.js';

/** The relay's options this check reads, as given (a caller without the types may pass anything). */
export interface RelayParts {
  readonly sns?: unknown;
  readonly sqs?: unknown;
  readonly backoff?: unknown;
  readonly onlyAggregateTypes?: unknown;
  readonly ignoreAggregateTypes?: unknown;
}

const BACKOFF_FIELDS: readonly string[] = ['baseDelayMs', 'maxDelayMs'];

/** `backoff`: an object of the two delay bounds, each in range; attempts come from the config. */
function checkBackoff(backoff: unknown): void {
  if (backoff === undefined) return;
  const allowed = `{ baseDelayMs?, maxDelayMs? }, each ${BACKOFF_DELAY_ALLOWED} (attempts come from config.relay.maxPublishAttempts)`;
  if (typeof backoff !== 'object' || backoff === null || Array.isArray(backoff)) {
    throw new ConfigError('backoff', `got ${showValue(backoff)}; allowed: ${allowed}`);
  }
  for (const [field, value] of Object.entries(backoff)) {
    if (!BACKOFF_FIELDS.includes(field))
      throw new ConfigError(`backoff.${field}`, `is no backoff option (got ${showValue(value)}); allowed: ${allowed}`);
    if (value !== undefined && !isBackoffDelay(value)) {
      throw new ConfigError(`backoff.${field}`, `got ${showValue(value)}; allowed: ${BACKOFF_DELAY_ALLOWED}`);
    }
  }
}

/** An aggregate-type list: an array of strings that are not blank (a string would match as its substrings). */
function checkTypes(field: string, types: unknown): void {
  if (types === undefined) return;
  if (Array.isArray(types) && types.every((type) => typeof type === 'string' && type.trim() !== '')) return;
  throw new ConfigError(field, `got ${showValue(types)}; allowed: an array of aggregate types (strings that are not blank)`);
}

/**
 * Refuses, with a {@link ConfigError} naming the option, what was given and what is allowed, what
 * the relay would misuse only at its first batch: an `sns` or `sqs` without `send` (every publish
 * or dead letter would fail, and its records be retried for ever), a `backoff` with a delay bound
 * out of range or NaN (retries without a pause) or an unknown key, an aggregate-type selection that
 * is no array of types.
 *
 * @example
 * ```ts
 * checkRelayParts({ sns, sqs, backoff: { baseDelayMs: -1 } }); // throws: backoff.baseDelayMs
 * ```
 */
export function checkRelayParts(parts: RelayParts): void {
  for (const [field, allowed] of [
    ['sns', SEND_CLIENT_ALLOWED.sns],
    ['sqs', `${SEND_CLIENT_ALLOWED.deadLetterSqs}, for the relay's dead-letter queue`],
  ] as const) {
    const given = sendClientFault(parts[field]);
    if (given !== undefined) throw new ConfigError(field, `got ${given}; allowed: ${allowed}`);
  }
  checkBackoff(parts.backoff);
  checkTypes('onlyAggregateTypes', parts.onlyAggregateTypes);
  checkTypes('ignoreAggregateTypes', parts.ignoreAggregateTypes);
}

/** How far ahead a run's `deadline` may be, in ms: a relay function's longest timeout. */
export const MAX_DEADLINE_AHEAD_MS = MAX_RELAY_TIMEOUT_SECONDS * 1000;

/**
 * Refuses, with a {@link ConfigError}, a `relay()` call's `deadline` that is no finite number (NaN
 * was taken for none) or is more than {@link MAX_DEADLINE_AHEAD_MS} ahead: the run waits for it
 * with a timer, and past 2^31 - 1 ms one fires at once, so the run would wake without pause while
 * its requests are in flight. A deadline already passed is taken (nothing is sent).
 *
 * @example
 * ```ts
 * checkRelayDeadline(Number.NaN); // throws: deadline
 * ```
 */
export function checkRelayDeadline(deadline: unknown, now = Date.now()): void {
  if (deadline === undefined) return;
  const finite = typeof deadline === 'number' && Number.isFinite(deadline);
  if (finite && deadline - now <= MAX_DEADLINE_AHEAD_MS) return;
  const ahead = finite ? ` (${deadline - now} ms from now)` : '';
  throw new ConfigError(
    'deadline',
    `got ${showValue(deadline)}${ahead}; allowed: epoch ms at most ${MAX_DEADLINE_AHEAD_MS} ms from now (a relay function's longest timeout, relay.timeoutSeconds' bound of ${MAX_RELAY_TIMEOUT_SECONDS} s), or leave it out`,
  );
}
