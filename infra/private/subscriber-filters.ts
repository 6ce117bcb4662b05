/**
 * The checks of a subscriber's filter (`eventTypes`, `aggregateTypes`) against the outbox config
 * it subscribes to: a filter value no event published to the topic can carry is a typo or a
 * misplaced subscription, whose queue would stay empty unseen.
 */

import type { OutboxConfig } from '../../shared/config.js';
import { OutboxPropsError } from './props-error.js';

const shown = JSON.stringify;

/**
 * Refuses an `eventTypes` entry that the catalog does not declare while it refuses undeclared
 * types (`undeclaredEventTypes: 'reject'`, the default), or a declared type whose every version
 * belongs to an aggregate type routed to another topic: no event of it reaches `topic`. Without
 * `eventTypes` in the config any type passes, as an undeclared one does under `'allow'`.
 */
function checkEventTypes(path: string, config: OutboxConfig, topic: string, eventTypes: readonly unknown[]): void {
  const catalog = config.eventTypes;
  if (catalog === undefined) return;
  eventTypes.forEach((type, i) => {
    if (typeof type !== 'string') return; // the subscriber's own checks refuse it
    const versions = Object.hasOwn(catalog, type) ? catalog[type] : undefined;
    if (versions === undefined) {
      if (config.undeclaredEventTypes === 'allow') return;
      throw new OutboxPropsError(
        path,
        `eventTypes[${i}]`,
        `is ${shown(type)}, which the config's eventTypes do not declare, so no event of it can be written and the subscriber would receive nothing; allowed: a declared type (${Object.keys(catalog).join(', ')}), or undeclaredEventTypes: 'allow' in the config`,
      );
    }
    const aggregateTypes = versions.map((version) => version.aggregateType);
    if (aggregateTypes.some((aggregateType) => aggregateType === undefined || config.routes[aggregateType] === topic)) return;
    const routed = [...new Set(aggregateTypes)].map((aggregateType) => `${shown(aggregateType)} → ${shown(config.routes[aggregateType!])}`);
    throw new OutboxPropsError(
      path,
      `eventTypes[${i}]`,
      `is ${shown(type)}, declared on aggregate type ${routed.join(', ')}, not on one routed to ${shown(topic)}, so the subscriber would receive nothing; allowed: a type published to ${shown(topic)}, or subscribe to the topic its aggregate type routes to`,
    );
  });
}

/**
 * Refuses an `aggregateTypes` entry that the config does not route to `topic`: its events are
 * published to another topic (or, unrouted, cannot be written).
 */
function checkAggregateTypes(path: string, config: OutboxConfig, topic: string, aggregateTypes: readonly unknown[]): void {
  const routed = Object.keys(config.routes).filter((type) => config.routes[type] === topic);
  aggregateTypes.forEach((type, i) => {
    if (typeof type !== 'string' || (Object.hasOwn(config.routes, type) && config.routes[type] === topic)) return;
    const where = Object.hasOwn(config.routes, type)
      ? `routes to ${shown(config.routes[type])}`
      : 'does not route (no event of it can be written)';
    throw new OutboxPropsError(
      path,
      `aggregateTypes[${i}]`,
      `is ${shown(type)}, which the config ${where}, not to ${shown(topic)}, so the subscriber would receive nothing; allowed: an aggregate type routed to ${shown(topic)} (${routed.join(', ') || 'none'}), or subscribe to the topic it routes to`,
    );
  });
}

/**
 * Refuses, before anything is added, a subscriber of `topic` whose filter lets nothing through:
 * an event type the catalog does not declare (under `'reject'`) or declares on aggregate types
 * routed elsewhere, an aggregate type not routed to `topic`. A topic the config does not name is
 * left to the topic lookup, which refuses it.
 *
 * @example
 * ```ts
 * checkSubscriberFilters(`${outbox.node.path}/Billing`, outbox.config, 'orders.fifo', { eventTypes: ['order.plcaed'] }); // OutboxPropsError
 * ```
 */
export function checkSubscriberFilters(
  path: string,
  config: OutboxConfig,
  topic: string,
  filters: { readonly eventTypes?: readonly string[]; readonly aggregateTypes?: readonly string[] },
): void {
  if (!config.topics.some((t) => t.name === topic)) return;
  if (Array.isArray(filters.eventTypes)) checkEventTypes(path, config, topic, filters.eventTypes);
  if (Array.isArray(filters.aggregateTypes)) checkAggregateTypes(path, config, topic, filters.aggregateTypes);
}
