/**
 * The check of `createRelayHandler`'s own options (logger, metrics, onOutcome, now), once per call:
 * a wrong one would throw only after a batch was published, failing the invocation, so the event
 * source mapping would publish the batch again and again.
 */

import { ConfigError } from '../errors.js';
import { methodsFault } from '../methods-fault.js';
import { showValue } from '../show-value.js';

/** The handler's own options, as given (a caller without the types may pass anything). */
export interface HandlerOwnOptions {
  readonly relay?: unknown;
  readonly logger?: unknown;
  readonly metrics?: unknown;
  readonly onOutcome?: unknown;
  readonly now?: unknown;
}

/** `value` (given as `field`), refused unless it is an object of the methods {@link methodsFault} asks for. */
function checkMethods(field: string, value: unknown, required: readonly string[], optional: readonly string[], allowed: string): void {
  if (value === undefined) return;
  const given = methodsFault(value, required, optional);
  if (given !== undefined) throw new ConfigError(field, `got ${given}; allowed: ${allowed}`);
}

/**
 * Refuses, with a {@link ConfigError} naming the option, what was given and what is allowed, a
 * `relay` without a `relay` method, a logger without `info`, `warn` and `error`, metrics without `addMetric`, or an `onOutcome` or
 * `now` that is no function.
 *
 * @example
 * ```ts
 * checkHandlerOptions({ logger: console, metrics: {} }); // throws: metrics
 * ```
 */
export function checkHandlerOptions(options: HandlerOwnOptions): void {
  // Else a relay of the wrong kind would throw at every invocation, not when the handler is built.
  checkMethods('relay', options.relay, ['relay'], [], 'a Relay (new Relay({ … })), or leave it out and give its parts');
  checkMethods(
    'logger',
    options.logger,
    ['info', 'warn', 'error'],
    ['addContext'],
    'a logger with info, warn and error (Powertools Logger fits), or leave it out for a Powertools Logger',
  );
  checkMethods(
    'metrics',
    options.metrics,
    ['addMetric'],
    ['addDimension', 'publishStoredMetrics'],
    'a metrics sink with addMetric, and optionally addDimension and publishStoredMetrics (Powertools Metrics fits), or leave it out for relayMetrics()',
  );
  for (const [field, allowed] of [
    ['onOutcome', "a function given each batch's summary, or leave it out"],
    ['now', 'a function returning epoch ms, or leave it out for Date.now'],
  ] as const) {
    const value = options[field];
    if (value !== undefined && typeof value !== 'function') throw new ConfigError(field, `got ${showValue(value)}; allowed: ${allowed}`);
  }
}
