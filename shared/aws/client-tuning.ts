import type { CLIENT_TIMEOUTS } from './client-timeouts.js';

interface ClientWithStack {
  readonly middlewareStack: { remove(name: string): boolean };
}

/**
 * Without a logger, the SDK still builds the redacted copy of every request and response it
 * would log (its logger middleware calls the no-op logger with them): a walk of each
 * `GetRecords` page and each `PublishBatch` request that nobody reads. With a logger given,
 * the middleware stays.
 */
export function withoutUnreadLogCopies<C extends ClientWithStack>(client: C, config: { logger?: unknown }): C {
  if (config.logger === undefined) client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/**
 * The request handler options for {@link CLIENT_TIMEOUTS}, on a connection pool without the SDK's
 * limit of 50 sockets. Both timeouts run from the moment a request is made, so a request queued
 * for a free socket spends its wait out of them: with more requests in flight than the pool
 * holds (`publishConcurrency` goes up to 64, and the stream processor sends for every shard it
 * leases through one client), a slow answer would time out requests that were never sent, and
 * their retries would publish duplicates. The relay bounds its own requests in flight, so the
 * pool need not.
 */
export const requestHandler = (timeouts: (typeof CLIENT_TIMEOUTS)[keyof typeof CLIENT_TIMEOUTS]) => ({
  ...timeouts,
  httpAgent: { maxSockets: Number.POSITIVE_INFINITY },
  httpsAgent: { maxSockets: Number.POSITIVE_INFINITY },
});
