import { checkedConfig, configRefusal, type OutboxConfig, serializeRuntimeConfig } from '../../shared/config.js';
import { OutboxPropsError } from './props-error.js';

/**
 * A construct's `config` prop, checked before anything is built or read of it: one `defineConfig`
 * made passes as it is, an object it accepts is given its defaults, anything else (undefined,
 * null, an object it refuses) is an {@link OutboxPropsError} naming `config`, what was given and
 * what is allowed.
 *
 * @example
 * ```ts
 * const config = propsConfig(this.node.path, props.config); // null throws
 * ```
 */
export function propsConfig(path: string, config: unknown): OutboxConfig {
  return checkedConfig(config, (cause) => new OutboxPropsError(path, 'config', configRefusal(cause), { cause }));
}

/**
 * Refuses, at synth, a config the deployed relay and processor would refuse at cold start: they
 * validate their `OUTBOX_CONFIG` with `defineConfig`, so a config not made by it (an object
 * literal, a spread of one with other topics) is checked the same way here.
 *
 * @example
 * ```ts
 * checkDeployedConfig(this.node.path, props.config); // a topic named "orders fifo" throws
 * ```
 */
export function checkDeployedConfig(path: string, config: OutboxConfig): void {
  // The config as the deployed functions read it back from their OUTBOX_CONFIG.
  checkedConfig(
    JSON.parse(serializeRuntimeConfig(config)),
    (cause) =>
      new OutboxPropsError(
        path,
        'config',
        `is not a valid outbox config: ${cause.message}; allowed: a config made by defineConfig, which the relay and processor check again at cold start`,
        { cause },
      ),
  );
}
