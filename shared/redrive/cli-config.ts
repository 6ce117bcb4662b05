import { CONFIG_ENV, configFromEnv, type OutboxConfig } from '../config.js';
import { ConfigFileError, loadConfigFile } from '../config-file.js';
import type { RedriveCommand } from './cli-args.js';
import { RedriveOptionsError } from './errors.js';

type Of<K extends RedriveCommand['kind']> = Extract<RedriveCommand, { kind: K }>;

/** A redrive command with the config it routes with: on-failure always has one, relay-dlq may. */
export type ConfiguredRedrive =
  | (Of<'relay-dlq'> & { readonly config?: OutboxConfig })
  | Of<'queue-dlq'>
  | (Of<'on-failure'> & { readonly config: OutboxConfig });

/** The config in `--config FILE`; a file refused is refused as the option (`Invalid redrive option --config: "c.json" …`). */
async function configFileOption(file: string): Promise<OutboxConfig> {
  try {
    return await loadConfigFile(file);
  } catch (error) {
    if (error instanceof ConfigFileError) throw new RedriveOptionsError('--config', error.detail, { cause: error });
    throw error;
  }
}

/** `--config FILE`, else `$OUTBOX_CONFIG`, else `undefined`. */
async function givenConfig(configFile: string | undefined, env: NodeJS.ProcessEnv): Promise<OutboxConfig | undefined> {
  if (configFile !== undefined) return configFileOption(configFile);
  if (env[CONFIG_ENV] !== undefined && env[CONFIG_ENV] !== '') return configFromEnv(env, CONFIG_ENV);
  return undefined;
}

/**
 * Adds the config a redrive routes with: `--config FILE`, else `$OUTBOX_CONFIG`. On-failure
 * cannot run without one (a {@link RedriveOptionsError} naming both ways to give it); relay-dlq
 * needs it only for dead letters written without a topic, and skips those without it. A config
 * given either way is validated before anything is read from AWS: a refused file is a
 * {@link RedriveOptionsError} on `--config` naming it, a refused `$OUTBOX_CONFIG` the
 * `EnvironmentError` of `configFromEnv`.
 *
 * @example
 * ```ts
 * const command = parseRedriveArgs(argv, process.env);
 * if (command.kind !== 'help') {
 *   const configured = await withRedriveConfig(command, process.env); // on-failure: { ...command, config }
 * }
 * ```
 */
export async function withRedriveConfig(
  command: Exclude<RedriveCommand, { kind: 'help' }>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConfiguredRedrive> {
  if (command.kind === 'queue-dlq') return command;
  const config = await givenConfig(command.configFile, env);
  if (command.kind === 'relay-dlq') return config === undefined ? command : { ...command, config };
  if (config === undefined) {
    throw new RedriveOptionsError(
      '--config',
      `is required for on-failure, whose events the outbox config routes, none given (nor ${CONFIG_ENV}); allowed: --config FILE (a .json file of the config, or a module exporting \`config\`) or the config as JSON in ${CONFIG_ENV}, as the relay holds it`,
    );
  }
  return { ...command, config };
}
