import type { Context } from 'aws-lambda';

/**
 * The subset of a logger the relay handler and the consumer helper write to: a message and
 * structured attributes per line. Powertools `Logger` fits, and so does a plain object.
 *
 * @example
 * ```ts
 * const logger: HandlerLogger = { info: console.info, warn: console.warn, error: console.error };
 * ```
 */
export interface HandlerLogger {
  info(message: string, attributes: Record<string, unknown>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
  /** Called with each invocation's Lambda context, as Powertools `Logger.addContext` takes it (request id, function, cold start on every line). */
  addContext?(context: Context): void;
}
