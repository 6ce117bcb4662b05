/**
 * The checks of what `catalogDocument` and `checkCatalog` are given, before anything is built: a
 * config that `defineConfig` would refuse, and options of the wrong type or name, each refused with
 * a {@link CatalogError} naming the field, the value and what is allowed.
 */

import { checkedConfig, configRefusal, type OutboxConfig } from '../config.js';
import { showValue } from '../show-value.js';
import { unknownKeys, unknownKeysDetail } from '../unknown-keys.js';
import { CatalogError } from './errors.js';

/** The options of `catalogDocument`, checked by {@link checkDocumentOptions}. */
export interface CatalogDocumentOptions {
  /** `info.title`. @default `Events of <source>` */
  readonly title?: string;
  /** `info.version`, the version of the document itself. @default '1.0.0' */
  readonly version?: string;
}

const OPTION_KEYS = ['title', 'version'];

const refuse = (field: string, problem: string, options?: ErrorOptions) =>
  new CatalogError('INVALID_CATALOG_OPTIONS', field, problem, options);

/**
 * The config as `defineConfig` validates it (its schemas kept): one it made passes unchanged; an
 * object literal, or a spread of a config with other fields, is checked the same way; what is
 * refused is worded as every part words it (`configRefusal`).
 *
 * @example
 * ```ts
 * catalogConfig(null); // CatalogError: Invalid catalog option config: got null; allowed: …
 * ```
 */
export function catalogConfig(config: unknown): OutboxConfig {
  return checkedConfig(config, (cause) => refuse('config', configRefusal(cause), { cause }));
}

/** Refuses options of `catalogDocument` that are not an object of `title` and `version`, each a non-blank string. */
export function checkDocumentOptions(options: unknown): asserts options is CatalogDocumentOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw refuse('options', `got ${showValue(options)}; allowed: an object with title and version, or leave it out`);
  const unknown = unknownKeys(options, OPTION_KEYS);
  if (unknown.length > 0) throw refuse('options', unknownKeysDetail(unknown, OPTION_KEYS));
  for (const key of OPTION_KEYS) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === ''))
      throw refuse(key, `got ${showValue(value)}; allowed: a string that is not blank, or leave it out for the default`);
  }
}
