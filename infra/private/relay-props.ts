import { type Duration, Stack } from 'aws-cdk-lib';
import { CfnGlobalTable, CfnTable, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { OutboxConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { showValue } from '../../shared/show-value.js';
import type { OutboxTopics } from '../outbox-topics.js';
import { checkWholeDays, OutboxPropsError } from './props-error.js';

/**
 * Refuses a relay timeout prop that differs from the config's `relay.timeoutSeconds`: the
 * deployed function and the local runner both take the config's, so local runs time batches out
 * as AWS does. An unresolved token is left alone (and deployed as given).
 *
 * @example
 * ```ts
 * checkRelayTimeout(this.node.path, 'relayTimeout', props.relayTimeout, props.config);
 * ```
 */
export function checkRelayTimeout(path: string, prop: string, value: Duration | undefined, config: OutboxConfig): void {
  if (value === undefined || value.isUnresolved()) return;
  const configured = relayEventSourceSettings(config).functionTimeoutSeconds;
  if (value.toSeconds({ integral: false }) !== configured) {
    throw new OutboxPropsError(
      path,
      prop,
      `is ${value.toHumanString()}, but the config's relay.timeoutSeconds is ${configured}; allowed: leave ${prop} out and set relay.timeoutSeconds (1–900), which the local runner applies too, or give the same value`,
    );
  }
}

/**
 * The stream view type of a table defined in this app: `null` when it has no stream,
 * `undefined` when it cannot be told (an imported table, or a token).
 */
function streamViewType(table: ITable): string | null | undefined {
  const resource = table.node.defaultChild;
  if (!(resource instanceof CfnGlobalTable || resource instanceof CfnTable)) return undefined;
  const spec = Stack.of(table).resolve(resource.streamSpecification) as { streamViewType?: unknown } | undefined;
  if (spec === undefined) return null;
  return typeof spec.streamViewType === 'string' ? spec.streamViewType : undefined;
}

/**
 * Refuses `RelayFunction` props the relay cannot run with, naming the prop by the construct's
 * path, before anything is built: a timeout other than the config's, a table whose stream carries
 * no new images, topics missing a config topic, a failed-batch retention in part days, a
 * `lowLatencyPublisher` other than `'stream-processor'`.
 *
 * @example
 * ```ts
 * validateRelayProps(this, props);
 * ```
 */
export function validateRelayProps(
  scope: Construct,
  props: {
    readonly config: OutboxConfig;
    readonly table: ITable;
    readonly topics: OutboxTopics;
    readonly timeout?: Duration | undefined;
    readonly failedBatchRetention?: Duration | undefined;
    readonly lowLatencyPublisher?: string | undefined;
  },
): void {
  const { config, table, topics } = props;
  const path = scope.node.path;
  checkRelayTimeout(path, 'timeout', props.timeout, config);
  const viewType = streamViewType(table);
  if (!table.tableStreamArn || viewType === null || (viewType !== undefined && !viewType.startsWith('NEW_'))) {
    throw new OutboxPropsError(
      path,
      'table',
      `${table.node.path} has ${viewType ? `a ${viewType} stream` : 'no stream'}; allowed: a table whose stream carries new images (NEW_IMAGE)`,
    );
  }
  const missing = config.topics.filter((t) => !topics.topics.has(t.name)).map((t) => t.name);
  if (missing.length > 0) {
    throw new OutboxPropsError(
      path,
      'topics',
      `lacks the config topics ${missing.join(', ')}; allowed: the OutboxTopics built from the same config`,
    );
  }
  checkWholeDays(path, 'failedBatchRetention', props.failedBatchRetention);
  // Typed as one value; JavaScript or a context value may give another.
  if (props.lowLatencyPublisher !== undefined && props.lowLatencyPublisher !== 'stream-processor') {
    throw new OutboxPropsError(
      path,
      'lowLatencyPublisher',
      `is ${showValue(props.lowLatencyPublisher)}; allowed: 'stream-processor' (a stream processor deployed elsewhere publishes the config's lowLatencyAggregateTypes), or leave it out`,
    );
  }
}
