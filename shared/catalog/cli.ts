/**
 * `dynamodb-outbox catalog` and `dynamodb-outbox catalog check`: the command line over
 * {@link catalogDocument} and {@link checkCatalog}, for a person or a CI job.
 */

import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { allowedOptions, commandLineRefusal } from '../cli-refusal.js';
import { parseStrictArgs } from '../cli-tokens.js';
import { CONFIG_ENV, configFromEnv, type OutboxConfig } from '../config.js';
import { ConfigFileError, loadConfigFile } from '../config-file.js';
import { EnvironmentError } from '../errors.js';
import { counted } from '../plural.js';
import { catalogDocument } from './asyncapi.js';
import { checkCatalog } from './check.js';
import { CatalogError } from './errors.js';

export const CATALOG_USAGE = `Usage: dynamodb-outbox catalog [--config FILE] [--out FILE]
       dynamodb-outbox catalog check --published FILE [--config FILE]

catalog          Write the AsyncAPI 3.0 document (JSON) of the config's topics and declared event
                 types: a channel per topic, a message per (type, version) with the CloudEvents
                 envelope as payload and the declared schema's JSON Schema as its data.
                 --out FILE          write it to FILE (default: standard output)
catalog check    Compare the config's event types with a published document that catalog wrote;
                 list each breaking change of a published (type, version) with its JSON pointer.
                 --published FILE    the last published document

  --config FILE    a module exporting \`config\` (.js, .mjs; .ts, .mts when node runs with a
                   TypeScript loader such as tsx), which carries the schemas; or a .json file of the
                   config, which has none (default: $${CONFIG_ENV}, also without schemas)
  -h, --help       show this text

Warnings (a schema with no JSON Schema) go to standard error.

Exit status: 0 when written, or when check finds no breaking change; 1 when check finds one;
2 on a usage error (a flag, the config or the published document refused).`;

/** A parsed `catalog` command line. */
export type CatalogCommand =
  | { readonly kind: 'catalog-help' }
  | { readonly kind: 'catalog'; readonly configFile?: string; readonly out?: string }
  | { readonly kind: 'catalog-check'; readonly configFile?: string; readonly published: string };

/** The flags of `catalog` that take a value, with what the value is. */
export const CATALOG_VALUE_FLAGS: Readonly<Record<string, string>> = { '--config': 'FILE', '--out': 'FILE', '--published': 'FILE' };

/** Every option of `catalog`, as a refusal lists them. */
const CATALOG_ALLOWED = allowedOptions(CATALOG_VALUE_FLAGS, '--help');

const refuse = (field: string, message: string, options?: ErrorOptions) =>
  new CatalogError('INVALID_CATALOG_OPTIONS', field, message, options);

/**
 * Parses `catalog [check] [options]`; throws a {@link CatalogError} naming the flag for anything
 * it cannot take, before a file is read.
 *
 * @example
 * ```ts
 * parseCatalogArgs(['catalog', 'check', '--published', 'asyncapi.json']); // { kind: 'catalog-check', published: 'asyncapi.json' }
 * ```
 */
export function parseCatalogArgs(argv: readonly string[]): CatalogCommand {
  const { values, positionals } = parseStrictArgs(
    argv,
    {
      config: { type: 'string' },
      out: { type: 'string' },
      published: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    { valueFlags: CATALOG_VALUE_FLAGS, allowed: CATALOG_ALLOWED, refuse: commandLineRefusal(CATALOG_ALLOWED, CATALOG_VALUE_FLAGS, refuse) },
  );
  if (values.help === true) return { kind: 'catalog-help' };
  const [, sub, ...rest] = positionals;
  if (rest.length > 0 || (sub !== undefined && sub !== 'check')) {
    throw refuse('command', `got ${JSON.stringify(positionals.join(' '))}; allowed: catalog, catalog check`);
  }
  for (const [flag, value] of Object.entries(values)) {
    if (value === '') throw refuse(`--${flag}`, 'got ""; allowed: a file name');
  }
  const config = values.config === undefined ? {} : { configFile: values.config };
  if (sub === 'check') {
    if (values.out !== undefined) throw refuse('--out', 'does not apply to catalog check; allowed: --published, --config');
    if (values.published === undefined)
      throw refuse('--published', 'is required by catalog check, none given; allowed: --published FILE, the document catalog last wrote');
    return { kind: 'catalog-check', published: values.published, ...config };
  }
  if (values.published !== undefined) throw refuse('--published', 'applies only to catalog check; allowed: --out, --config');
  return { kind: 'catalog', ...config, ...(values.out === undefined ? {} : { out: values.out }) };
}

/** `--config FILE`, else `$OUTBOX_CONFIG`; a refusal of either is a usage error of the catalog command. */
async function configOf(configFile: string | undefined, env: NodeJS.ProcessEnv): Promise<OutboxConfig> {
  try {
    if (configFile !== undefined) return await loadConfigFile(configFile);
    if (env[CONFIG_ENV] !== undefined && env[CONFIG_ENV] !== '') return configFromEnv(env, CONFIG_ENV);
  } catch (error) {
    if (error instanceof ConfigFileError) throw refuse('--config', error.detail, { cause: error });
    if (error instanceof EnvironmentError) throw refuse(CONFIG_ENV, error.message, { cause: error });
    throw error;
  }
  throw refuse('--config', `is required: there is no config to read; allowed: --config FILE or the config as JSON in ${CONFIG_ENV}`);
}

async function publishedOf(file: string): Promise<unknown> {
  const text = await readFile(resolve(file), 'utf8').catch((error: Error) => {
    throw refuse(
      '--published',
      `${JSON.stringify(file)} cannot be read (${error.message}); allowed: a document dynamodb-outbox catalog wrote`,
      {
        cause: error,
      },
    );
  });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw refuse(
      '--published',
      `${JSON.stringify(file)} is not JSON (${(error as Error).message}); allowed: a document dynamodb-outbox catalog wrote`,
      { cause: error },
    );
  }
}

/** Where the command writes: standard output and error, or a test's. */
export interface CatalogOutput {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/**
 * Runs a parsed catalog command; answers the exit status (see {@link CATALOG_USAGE}). A refused
 * flag, config or published document is written to `stderr` with status 2.
 *
 * @example
 * ```ts
 * process.exitCode = await runCatalogCommand(parseCatalogArgs(process.argv.slice(2)));
 * ```
 */
export async function runCatalogCommand(
  command: CatalogCommand,
  env: NodeJS.ProcessEnv = process.env,
  io: CatalogOutput = process,
): Promise<number> {
  if (command.kind === 'catalog-help') {
    io.stdout.write(`${CATALOG_USAGE}\n`);
    return 0;
  }
  try {
    const config = await configOf(command.configFile, env);
    if (command.kind === 'catalog') {
      const { document, warnings } = catalogDocument(config);
      for (const warning of warnings) io.stderr.write(`warning: ${warning}\n`);
      const text = `${JSON.stringify(document, null, 2)}\n`;
      if (command.out === undefined) io.stdout.write(text);
      else {
        await writeFile(resolve(command.out), text).catch((error: Error) => {
          throw refuse(
            '--out',
            `${JSON.stringify(command.out)} cannot be written (${error.message}); allowed: a file in an existing directory the command may write to`,
            { cause: error },
          );
        });
        io.stderr.write(`Wrote the AsyncAPI 3.0 document of ${config.source} to ${command.out}\n`);
      }
      return 0;
    }
    const result = checkCatalog(await publishedOf(command.published), config);
    for (const warning of result.warnings) io.stderr.write(`warning: ${warning}\n`);
    const added = result.added.map((a) => `${a.type} v${a.version}`);
    const summary = `${counted(result.kept, 'published version')} kept${added.length === 0 ? '' : `, added: ${added.join(', ')}`}`;
    if (result.status === 'compatible') {
      io.stdout.write(`Compatible with ${command.published}: ${summary}\n`);
      return 0;
    }
    io.stdout.write(`Breaking changes against ${command.published} (${result.changes.length}):\n`);
    for (const change of result.changes)
      io.stdout.write(`  ${change.type} v${change.version}  ${change.kind}  ${change.pointer}: ${change.message}\n`);
    io.stdout.write(`${summary}. Keep published versions as they are: declare a breaking change as a new version beside the old one.\n`);
    return 1;
  } catch (error) {
    if (!(error instanceof CatalogError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return 2;
  }
}
