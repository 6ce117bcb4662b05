/**
 * Which publishing path takes which aggregate type: the one answer the relay's filter and code,
 * the stream processor, the CDK constructs and the local stack all read. Data only, below the
 * config.
 */

/** The two lists of the config that decide the paths. */
export interface PublishingPathsConfig {
  /** Types the stream processor publishes instead of the Lambda relay. */
  readonly lowLatencyAggregateTypes: readonly string[];
  /** Types both paths publish, whatever `lowLatencyAggregateTypes` says: a type moving between them. */
  readonly handoverAggregateTypes: readonly string[];
}

/** Whether the Lambda relay publishes the type: every type but the low-latency ones, unless handed over. */
export const relayPublishes = (config: PublishingPathsConfig, aggregateType: string): boolean =>
  !config.lowLatencyAggregateTypes.includes(aggregateType) || config.handoverAggregateTypes.includes(aggregateType);

/** The types the Lambda relay leaves to the processor (its filter's `anything-but` list): low-latency, not handed over. */
export const relayIgnoredAggregateTypes = (config: PublishingPathsConfig): string[] =>
  config.lowLatencyAggregateTypes.filter((type) => !config.handoverAggregateTypes.includes(type));

/** The only types the stream processor publishes, low-latency ones first; empty when no processor is needed. */
export const processorAggregateTypes = (config: PublishingPathsConfig): string[] => [
  ...config.lowLatencyAggregateTypes,
  ...config.handoverAggregateTypes.filter((type) => !config.lowLatencyAggregateTypes.includes(type)),
];
