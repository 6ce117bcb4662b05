/**
 * The relay's Lambda filter criteria and their limits: what `defineConfig` measures and the
 * event source mapping applies. Data only, below the config.
 */

import { type PublishingPathsConfig, relayIgnoredAggregateTypes } from './publishing-paths.js';
import { SLOT_KIND, SLOT_PREFIX } from './slot.js';
import { TABLE } from './table.js';

/**
 * The default of the config's `relay.timeoutSeconds` (AWS: 1–900 s): the CDK stack deploys the
 * config's timeout and the local event-source-mapping runner ends an invocation after it.
 */
export const DEFAULT_RELAY_TIMEOUT_SECONDS = 60;
/** The longest `relay.timeoutSeconds`: a Lambda function's longest timeout, 15 minutes. */
export const MAX_RELAY_TIMEOUT_SECONDS = 900;

/** Lambda's limit on one filter's `Pattern`, in characters; `defineConfig` keeps the relay's patterns within it. */
export const MAX_FILTER_PATTERN_LENGTH = 4096;

/**
 * Filter patterns that pass only outbox-slot inserts and modifies, never TTL removals or
 * business items, and leave the low-latency aggregate types to the stream processor (all but
 * the handed-over ones, which both paths publish).
 */
export function relayFilterPatterns(config: PublishingPathsConfig): Record<string, unknown>[] {
  const ignored = relayIgnoredAggregateTypes(config);
  const newImage: Record<string, unknown> = {
    [TABLE.partitionKey]: { S: [{ prefix: SLOT_PREFIX }] },
    kind: { S: [SLOT_KIND] },
  };
  if (ignored.length > 0) {
    newImage.aggregateType = { S: [{ 'anything-but': ignored }] };
  }
  return [{ eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: newImage } }];
}
