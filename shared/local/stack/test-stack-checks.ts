/**
 * Checks run before anything starts: the config, by `startOutboxTestStack` and by the local stack
 * `npm start` runs (a config `defineConfig` would refuse), and `startOutboxTestStack`'s handler
 * factories that build no handler.
 */

import { checkedConfig, configRefusal, type OutboxConfig } from '../../config.js';
import { LocalStackError } from '../errors.js';
import type { OutboxTestSqsHandler, OutboxTestSubscriber } from './test-stack-types.js';

/**
 * The config as `defineConfig` validates it: one it made passes unchanged (its schemas kept); an
 * object literal, or a spread of a config with other topics, is checked as the deployed relay
 * checks its `OUTBOX_CONFIG`, and refused with `INVALID_OPTION` rather than failing half-way
 * through the start. What is refused is worded as every part words it (`configRefusal`): what
 * in the config is wrong, not the whole object.
 *
 * @example
 * ```ts
 * localStackConfig({ source, topics: [{ name: 'orders fifo' }], routes }); // LocalStackError INVALID_OPTION
 * ```
 */
export function localStackConfig(config: unknown): OutboxConfig {
  return checkedConfig(config, (cause) => new LocalStackError('INVALID_OPTION', `config ${configRefusal(cause)}`, { cause }));
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
