import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { showValue } from '../show-value.js';
import { ProcessorOptionsError } from './errors.js';
import { FAILOVER_RANGE_MS, MIN_RENEW_INTERVAL_MS } from './settings.js';

/**
 * The timeouts of {@link leaseTableClient} for a lease renewal interval: a request gives up after
 * a quarter of it (connecting, after an eighth), so even with the SDK's retries a hung request
 * fails before the next renewal is due, instead of holding every later lease write back.
 */
export const leaseTableTimeouts = (renewIntervalMs: number) => {
  const requestTimeout = Math.max(10, Math.floor(renewIntervalMs / 4));
  return { connectionTimeout: Math.max(5, Math.floor(requestTimeout / 2)), requestTimeout, throwOnRequestTimeout: true } as const;
};

/**
 * A DynamoDB document client for the stream processor's lease table, given the processor's
 * `renewIntervalMs`: its requests time out well within it ({@link leaseTableTimeouts}), so a
 * renewal or checkpoint write never hangs, and a worker whose writes keep failing gives its
 * leases up before another worker may take them.
 *
 * @example
 * ```ts
 * // Before the worker exists: the same settings the worker is then given.
 * const { renewIntervalMs } = processorSettings(env.settings);
 * const document = leaseTableClient(renewIntervalMs);
 * ```
 */
export function leaseTableClient(renewIntervalMs: number, config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  // A NaN one would give NaN timeouts, which a timer takes for 1 ms: every lease write would time out.
  const most = Math.floor(FAILOVER_RANGE_MS[1] / 2);
  if (!Number.isInteger(renewIntervalMs) || renewIntervalMs < MIN_RENEW_INTERVAL_MS || renewIntervalMs > most) {
    throw new ProcessorOptionsError(
      'renewIntervalMs',
      `got ${showValue(renewIntervalMs)}; allowed: a whole number from ${MIN_RENEW_INTERVAL_MS} to ${most}, the worker's settings.renewIntervalMs (processorSettings gives it)`,
    );
  }
  return DynamoDBDocumentClient.from(new DynamoDBClient({ requestHandler: leaseTableTimeouts(renewIntervalMs), ...config }));
}
