import { configFromEnv, type OutboxConfig, serializeRuntimeConfig } from '../../shared/config.js';
import { ConfigError, EnvironmentError } from '../../shared/errors.js';
import { RELAY_ENV } from '../../shared/event-source.js';
import { OutboxPropsError } from './props-error.js';

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
  try {
    configFromEnv({ [RELAY_ENV.config]: serializeRuntimeConfig(config) }, RELAY_ENV.config);
  } catch (error) {
    const cause = error instanceof EnvironmentError ? error.cause : undefined;
    if (!(cause instanceof ConfigError)) throw error;
    throw new OutboxPropsError(
      path,
      'config',
      `is not a valid outbox config: ${cause.message}; allowed: a config made by defineConfig, which the relay and processor check again at cold start`,
      { cause },
    );
  }
}
