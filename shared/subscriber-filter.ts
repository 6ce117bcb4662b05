/**
 * A subscriber's filter (`eventTypes`, `aggregateTypes`) against the outbox config it subscribes
 * to: a filter value that no event published to the topic can carry is a typo or a misplaced
 * subscription, whose queue would stay empty unseen. One reading for the CDK construct
 * (`OutboxSubscriber` given the config, which `Outbox.addSubscriber` passes) and the test stack
 * (`startOutboxTestStack`), each refusing in its own error.
 */

import type { OutboxConfig } from './config.js';

/** A filter entry that lets nothing through, in words a refusal can carry. */
export interface SubscriberFilterProblem {
  /** The entry, as the subscriber's options name it: `eventTypes[1]`, `aggregateTypes[0]`. */
  readonly entry: string;
  /** The value given, what is wrong with it and what is allowed: `is "order.plcaed", which …; allowed: …`. */
  readonly message: string;
}

/** What a subscriber filters on; entries of another shape are left to the caller's own checks. */
export interface SubscriberFilter {
  readonly eventTypes?: readonly unknown[] | undefined;
  readonly aggregateTypes?: readonly unknown[] | undefined;
}

const shown = JSON.stringify;

/**
 * An `eventTypes` entry the catalog does not declare while it refuses undeclared types
 * (`undeclaredEventTypes: 'reject'`), or a declared type whose every version is on an aggregate
 * type routed to another topic. Without `eventTypes` in the config any type passes, as an
 * undeclared one does under `'allow'`.
 */
function eventTypeProblem(config: OutboxConfig, topic: string, eventTypes: readonly unknown[]): SubscriberFilterProblem | undefined {
  const catalog = config.eventTypes;
  if (catalog === undefined) return undefined;
  for (const [i, type] of eventTypes.entries()) {
    if (typeof type !== 'string') continue;
    const entry = `eventTypes[${i}]`;
    const versions = Object.hasOwn(catalog, type) ? catalog[type] : undefined;
    if (versions === undefined) {
      if (config.undeclaredEventTypes === 'allow') continue;
      return {
        entry,
        message: `is ${shown(type)}, which the config's eventTypes do not declare, so no event of it can be written and the subscriber would receive nothing; allowed: a declared type (${Object.keys(catalog).join(', ')}), or undeclaredEventTypes: 'allow' in the config`,
      };
    }
    const aggregateTypes = versions.map((version) => version.aggregateType);
    if (aggregateTypes.some((aggregateType) => aggregateType === undefined || config.routes[aggregateType] === topic)) continue;
    const routed = [...new Set(aggregateTypes as string[])].map(
      (aggregateType) => `${shown(aggregateType)} → ${shown(config.routes[aggregateType])}`,
    );
    return {
      entry,
      message: `is ${shown(type)}, declared on aggregate type ${routed.join(', ')}, not on one routed to ${shown(topic)}, so the subscriber would receive nothing; allowed: a type published to ${shown(topic)}, or subscribe to the topic its aggregate type routes to`,
    };
  }
  return undefined;
}

/** An `aggregateTypes` entry the config does not route to `topic`: its events go to another topic, or cannot be written. */
function aggregateTypeProblem(
  config: OutboxConfig,
  topic: string,
  aggregateTypes: readonly unknown[],
): SubscriberFilterProblem | undefined {
  const routedHere = Object.keys(config.routes).filter((type) => config.routes[type] === topic);
  for (const [i, type] of aggregateTypes.entries()) {
    if (typeof type !== 'string') continue;
    const route = Object.hasOwn(config.routes, type) ? config.routes[type] : undefined;
    if (route === topic) continue;
    const where = route === undefined ? 'does not route (no event of it can be written)' : `routes to ${shown(route)}`;
    return {
      entry: `aggregateTypes[${i}]`,
      message: `is ${shown(type)}, which the config ${where}, not to ${shown(topic)}, so the subscriber would receive nothing; allowed: an aggregate type routed to ${shown(topic)} (${routedHere.join(', ') || 'none'}), or subscribe to the topic it routes to`,
    };
  }
  return undefined;
}

/**
 * The first entry of a subscriber's filter on `topic` that lets nothing through, or `undefined`:
 * an event type the catalog does not declare (under `undeclaredEventTypes: 'reject'`) or declares
 * only on aggregate types routed elsewhere, then an aggregate type not routed to `topic`. A topic
 * the config does not name, a filter that is no list and an entry that is no string are left to
 * the caller's own checks, which refuse them.
 *
 * @example
 * ```ts
 * subscriberFilterProblem(config, 'orders.fifo', { eventTypes: ['order.plcaed'] });
 * // { entry: 'eventTypes[0]', message: 'is "order.plcaed", which the config\'s eventTypes do not declare, …' }
 * ```
 */
export function subscriberFilterProblem(
  config: OutboxConfig,
  topic: unknown,
  filter: SubscriberFilter,
): SubscriberFilterProblem | undefined {
  if (!config.topics.some((t) => t.name === topic)) return undefined;
  const { eventTypes, aggregateTypes } = filter;
  return (
    (Array.isArray(eventTypes) ? eventTypeProblem(config, topic as string, eventTypes) : undefined) ??
    (Array.isArray(aggregateTypes) ? aggregateTypeProblem(config, topic as string, aggregateTypes) : undefined)
  );
}
