import { readFile, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONFIG_ENV, configFromEnv, defineConfig, type OutboxConfig, type OutboxConfigInput } from '../config.js';
import { errorMessage } from '../error-message.js';
import { ConfigError } from '../errors.js';
import { CONFIG_FILE_FORMS, type RedriveCommand } from './cli-args.js';
import { RedriveOptionsError } from './errors.js';

const MODULE_EXTENSIONS: readonly string[] = ['.js', '.mjs', '.ts', '.mts'];
const TYPESCRIPT_EXTENSIONS: readonly string[] = ['.ts', '.mts'];

/** The refusal of a config file, naming it as typed. */
const refused = (file: string, problem: string, cause?: unknown) =>
  new RedriveOptionsError('--config', `${JSON.stringify(file)} ${problem}`, cause === undefined ? undefined : { cause });

/** Validated as the relay validates `OUTBOX_CONFIG`, so the file is refused for what the relay would refuse. */
function validated(file: string, value: unknown): OutboxConfig {
  try {
    return defineConfig(value as OutboxConfigInput);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw refused(file, `holds an invalid outbox config: ${error.message}`, error);
  }
}

async function importConfig(file: string, path: string): Promise<OutboxConfig> {
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { readonly code?: unknown } | null)?.code;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && TYPESCRIPT_EXTENSIONS.includes(extname(path))) {
      throw refused(
        file,
        'is TypeScript, which this node does not load by itself; allowed: node with a TypeScript loader (NODE_OPTIONS="--import tsx"), or the config as .json or as a .js or .mjs module',
        error,
      );
    }
    throw refused(file, `could not be loaded: ${errorMessage(error)}`, error);
  }
  if (!('config' in exports)) {
    const names = Object.keys(exports);
    throw refused(
      file,
      `has no \`config\` export (${names.length === 0 ? 'it exports nothing' : `it exports ${names.join(', ')}`}); allowed: a module with \`export const config = defineConfig({ … })\``,
    );
  }
  return validated(file, exports.config);
}

/**
 * Reads and validates the outbox config in `file` (relative to `cwd`): a `.json` file holding
 * the config as JSON (what the relay holds in `OUTBOX_CONFIG`, or `serializeConfig(config)`), or an
 * ES module exporting `config`. Every problem is a {@link RedriveOptionsError} on `--config` that
 * names the file and what is wrong with it.
 *
 * @example
 * ```ts
 * const config = await loadConfigFile('outbox.config.json');
 * ```
 */
export async function loadConfigFile(file: string, cwd: string = process.cwd()): Promise<OutboxConfig> {
  const path = resolve(cwd, file);
  const where = path === file ? '' : ` (looked for ${path})`;
  const extension = extname(path);
  if (extension !== '.json' && !MODULE_EXTENSIONS.includes(extension)) {
    throw refused(file, `has the extension ${JSON.stringify(extension)}; allowed: ${CONFIG_FILE_FORMS}`);
  }
  const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw refused(file, `does not exist${where}`, error);
    throw refused(file, `cannot be read: ${error.message}`, error);
  });
  if (!found.isFile()) throw refused(file, `is not a file${where}`);
  if (extension !== '.json') return importConfig(file, path);
  const text = await readFile(path, 'utf8').catch((error: Error) => {
    throw refused(file, `cannot be read: ${error.message}`, error);
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw refused(
      file,
      `is not JSON (${(error as Error).message}); allowed: the outbox config as JSON, as serializeConfig writes it`,
      error,
    );
  }
  return validated(file, parsed);
}

type Of<K extends RedriveCommand['kind']> = Extract<RedriveCommand, { kind: K }>;

/** A redrive command with the config it routes with: on-failure always has one, relay-dlq may. */
export type ConfiguredRedrive =
  | (Of<'relay-dlq'> & { readonly config?: OutboxConfig })
  | Of<'queue-dlq'>
  | (Of<'on-failure'> & { readonly config: OutboxConfig });

/** `--config FILE`, else `$OUTBOX_CONFIG`, else `undefined`. */
async function givenConfig(configFile: string | undefined, env: NodeJS.ProcessEnv): Promise<OutboxConfig | undefined> {
  if (configFile !== undefined) return loadConfigFile(configFile);
  if (env[CONFIG_ENV] !== undefined && env[CONFIG_ENV] !== '') return configFromEnv(env, CONFIG_ENV);
  return undefined;
}

/**
 * Adds the config a redrive routes with: `--config FILE`, else `$OUTBOX_CONFIG`. On-failure
 * cannot run without one (a {@link RedriveOptionsError} naming both ways to give it); relay-dlq
 * needs it only for dead letters written without a topic, and skips those without it. A config
 * given either way is validated before anything is read from AWS: a refused `$OUTBOX_CONFIG`
 * throws the `EnvironmentError` of `configFromEnv`.
 *
 * @example
 * ```ts
 * const configured = await withRedriveConfig(parseRedriveArgs(argv) as RunCommand, process.env);
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
      `is required for on-failure, whose events the outbox config routes; allowed: --config FILE (a .json file of the config, or a module exporting \`config\`) or the config as JSON in ${CONFIG_ENV}, as the relay holds it`,
    );
  }
  return { ...command, config };
}
