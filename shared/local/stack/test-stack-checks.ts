/**
 * The checks `startOutboxTestStack` runs on its config and subscribers before anything starts,
 * beyond the local stack's own: a config `defineConfig` would refuse, and a subscriber filtering
 * on a value that no event published to its topic carries.
 */

import { checkedConfig, type OutboxConfig } from '../../config.js';
import { showValue } from '../../show-value.js';
import { subscriberFilterProblem } from '../../subscriber-filter.js';
import { LocalStackError } from '../errors.js';
import { checkOptionShapes } from './options.js';
import type { OutboxTestSqsHandler, OutboxTestSubscriber } from './test-stack-types.js';

/**
 * The config as `defineConfig` validates it: one it made passes unchanged (its schemas kept); an
 * object literal, or a spread of a config with other topics, is checked as the deployed relay
 * checks its `OUTBOX_CONFIG`, and refused with `INVALID_OPTION` rather than failing half-way
 * through the start.
 *
 * @example
 * ```ts
 * testStackConfig({ source, topics: [{ name: 'orders fifo' }], routes }); // LocalStackError INVALID_OPTION
 * ```
 */
export function testStackConfig(config: unknown): OutboxConfig {
  checkOptionShapes(config, undefined, undefined);
  return checkedConfig(
    config,
    (error) =>
      new LocalStackError(
        'INVALID_OPTION',
        `config is not a valid outbox config: ${error.message}; allowed: the outbox config defineConfig returns`,
        { cause: error },
      ),
  );
}

/**
 * Refuses (`INVALID_SUBSCRIPTION`) a subscriber whose filter lets nothing through, as
 * `Outbox.addSubscriber` does at synth: an `eventTypes` entry the config's catalog does not
 * declare (under `undeclaredEventTypes: 'reject'`, the default) or declares only on aggregate
 * types routed to another topic, an `aggregateTypes` entry the config does not route to the
 * subscriber's topic. Its queue would stay empty and `receive()` time out.
 *
 * @example
 * ```ts
 * checkSubscriberFilters(config, [{ name: 'audit', topic: 'orders.fifo', eventTypes: ['order.plcaed'] }]); // LocalStackError
 * ```
 */
export function checkSubscriberFilters(config: OutboxConfig, subscribers: readonly OutboxTestSubscriber[] | undefined): void {
  if (!Array.isArray(subscribers)) return; // the local stack's own checks refuse it
  subscribers.forEach((subscriber: OutboxTestSubscriber | null | undefined, i) => {
    if (subscriber === null || typeof subscriber !== 'object') return;
    const problem = subscriberFilterProblem(config, subscriber.topic, subscriber);
    if (problem !== undefined)
      throw new LocalStackError(
        'INVALID_SUBSCRIPTION',
        `subscribers[${i}].${problem.entry} (subscriber ${showValue(subscriber.name)}) ${problem.message}`,
      );
  });
}

/** What a handler factory returned, in words: `an object with a handler function` for a consumer given whole. */
function describeBuilt(built: unknown): string {
  if (built === null || built === undefined) return String(built);
  if (typeof built === 'object' && typeof (built as { handler?: unknown }).handler === 'function')
    return 'an object with a handler function (createConsumer(…) rather than createConsumer(…).handler?)';
  if (typeof (built as { then?: unknown }).then === 'function') return 'a promise';
  return `a ${typeof built}`;
}

/**
 * The subscribers, each handler factory wrapped to refuse (`INVALID_OPTION`) what is no handler:
 * the stack builds every handler before any poller starts, so the start fails and stops what it
 * started, rather than each batch failing with "handler is not a function".
 */
export function checkedHandlers(subscribers: readonly OutboxTestSubscriber[] | undefined): readonly OutboxTestSubscriber[] | undefined {
  if (!Array.isArray(subscribers)) return subscribers;
  return subscribers.map((subscriber, i) => {
    const build: unknown = subscriber?.handler;
    if (typeof build !== 'function') return subscriber;
    return {
      ...subscriber,
      handler: (deps) => {
        const built: unknown = build(deps);
        if (typeof built !== 'function')
          throw new LocalStackError(
            'INVALID_OPTION',
            `subscribers[${i}].handler returned ${describeBuilt(built)}; allowed: a function that returns an SQS Lambda handler, such as ({ document, tableName }) => createConsumer({ … }).handler`,
          );
        return built as OutboxTestSqsHandler;
      },
    };
  });
}
