import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
export const leaseTableClient = (renewIntervalMs: number, config: DynamoDBClientConfig = {}): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ requestHandler: leaseTableTimeouts(renewIntervalMs), ...config }));
