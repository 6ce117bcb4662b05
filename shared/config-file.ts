/**
 * The outbox config from a file, for the commands that take `--config FILE`: a `.json` file of the
 * config or an ES module exporting `config`, checked as the relay checks `OUTBOX_CONFIG`.
 */

import { readFile, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineConfig, type OutboxConfig, type OutboxConfigInput } from './config.js';
import { errorMessage } from './error-message.js';
import { ConfigError, OutboxError } from './errors.js';

/** What a config file may be, for the usages and for refusals. */
export const CONFIG_FILE_FORMS =
  'a .json file holding the outbox config as JSON (as $OUTBOX_CONFIG holds it), or a module exporting `config` (.js, .mjs; .ts, .mts under a TypeScript loader such as tsx)';

/** What a config file's path may name, for a path that names no file. */
const EXISTING_FILE = `the path of an existing file, absolute or relative to the working directory: ${CONFIG_FILE_FORMS}`;

const MODULE_EXTENSIONS: readonly string[] = ['.js', '.mjs', '.ts', '.mts'];
const TYPESCRIPT_EXTENSIONS: readonly string[] = ['.ts', '.mts'];

/**
 * A config file could not be used: it does not exist, cannot be read or loaded, is of another
 * kind, or holds no valid outbox config. `file` is its name as given; `detail` names it and says
 * what is wrong and what is allowed, for a command to show as the refusal of its own option.
 *
 * @example
 * ```ts
 * try { await loadConfigFile('outbox.yaml'); } catch (error) {
 *   if (error instanceof ConfigFileError) console.error(`--config: ${error.detail}`); // "outbox.yaml" has the extension ".yaml"; allowed: …
 * }
 * ```
 */
export class ConfigFileError extends OutboxError {
  /** The file as given, before it was resolved. */
  readonly file: string;
  /** The file (as given) and what is wrong with it: the message without its heading. */
  readonly detail: string;

  constructor(file: string, problem: string, options?: ErrorOptions) {
    const detail = `${JSON.stringify(file)} ${problem}`;
    super('INVALID_CONFIG_FILE', `Invalid config file: ${detail}`, options);
    this.name = 'ConfigFileError';
    this.file = file;
    this.detail = detail;
  }
}

const refused = (file: string, problem: string, cause?: unknown) =>
  new ConfigFileError(file, problem, cause === undefined ? undefined : { cause });

/** Validated as the relay validates `OUTBOX_CONFIG`, so the file is refused for what the relay would refuse. */
function validated(file: string, value: unknown): OutboxConfig {
  try {
    return defineConfig(value as OutboxConfigInput);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw refused(file, `holds an invalid outbox config (at ${error.field}: ${error.detail})`, error);
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
 * ES module exporting `config`. Every problem is a {@link ConfigFileError} that names the file and
 * what is wrong with it.
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
    if (error.code === 'ENOENT') throw refused(file, `does not exist${where}; allowed: ${EXISTING_FILE}`, error);
    throw refused(file, `cannot be read: ${error.message}`, error);
  });
  if (!found.isFile()) throw refused(file, `is not a file${where}; allowed: ${EXISTING_FILE}`);
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
