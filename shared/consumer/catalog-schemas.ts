/**
 * The consumer helper's side of the event catalog: the schema an envelope's data is checked
 * against, found by the version its `dataschema` names, so producer and consumer check against
 * one definition.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { OutboxConfig } from '../config.js';
import type { OutboxEnvelope } from '../envelope.js';
import { dataschemaOf } from '../event-types.js';
import { showValue as show } from '../show-value.js';
import { ConsumerOptionsError, MessageRejectedError } from './errors.js';
import { excerpt } from './limits.js';

/** What a consumer reads of a config's catalog. */
export type CatalogSource = Pick<OutboxConfig, 'source' | 'eventTypes'>;

/**
 * The schema of an envelope's declared version: `undefined` when the catalog does not apply (an
 * event of another source, a type it does not declare, a version declared without a schema), a
 * rejection when the envelope names a version the catalog does not declare.
 */
export type CatalogSchemaLookup = (envelope: OutboxEnvelope) => StandardSchemaV1 | MessageRejectedError | undefined;

/** A declaration as a validated config holds it: an object with a version. */
const isDeclaration = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Number.isSafeInteger((value as { version?: unknown }).version);

/**
 * Checks a consumer's `catalog` option: a config (or its `source` and `eventTypes`) whose source
 * the consumer accepts and that declares at least one schema.
 */
export function validateCatalogOption(catalog: unknown, sources: unknown): void {
  const value = catalog as Partial<CatalogSource> | null;
  if (typeof value !== 'object' || value === null || typeof value.source !== 'string' || typeof value.eventTypes !== 'object') {
    throw new ConsumerOptionsError(
      'catalog',
      `got ${typeof value === 'object' && value !== null ? `a config with ${value.eventTypes === undefined ? 'no eventTypes' : `source ${show(value.source)}`}` : show(value)}; allowed: an outbox config from defineConfig with eventTypes`,
    );
  }
  // Checked before anything is read of it: a config input's catalog (a declaration not in a list) is not the validated one.
  const malformed =
    value.eventTypes === null
      ? 'eventTypes is null'
      : Object.entries(value.eventTypes ?? {})
          .filter(([, versions]: [string, unknown]) => !Array.isArray(versions) || !versions.every(isDeclaration))
          .map(([type]) => `eventTypes[${show(type)}] is not a list of { version, schema? }`)[0];
  if (malformed !== undefined) {
    throw new ConsumerOptionsError(
      'catalog',
      `has eventTypes that are not a validated catalog (${malformed}); allowed: the config defineConfig returns, or its source and eventTypes`,
    );
  }
  if (!Object.values(value.eventTypes ?? {}).some((versions) => versions.some((v) => v.schema !== undefined))) {
    throw new ConsumerOptionsError(
      'catalog',
      'declares no schema (a config read back from JSON, such as configFromEnv returns, has none); allowed: the config module itself, whose eventTypes hold the schemas',
    );
  }
  if (Array.isArray(sources) && !sources.includes(value.source)) {
    throw new ConsumerOptionsError(
      'catalog',
      `is the catalog of source ${JSON.stringify(value.source)}, which is not in sources; allowed: the catalog of an accepted source`,
    );
  }
}

/**
 * The lookup over `catalog`: an envelope of the catalog's source and a declared type is checked
 * against the version its `dataschema` names, one without `dataschema` (written before the type
 * was declared) against the oldest declared version.
 *
 * @example
 * ```ts
 * const schemaOf = catalogSchemas(config);
 * const schema = schemaOf(envelope); // the schema of the envelope's version, or undefined
 * ```
 */
export function catalogSchemas(catalog: CatalogSource): CatalogSchemaLookup {
  const { source, eventTypes = {} } = catalog;
  return (envelope) => {
    if (envelope.source !== source || !Object.hasOwn(eventTypes, envelope.type)) return undefined;
    const versions = eventTypes[envelope.type] ?? [];
    if (envelope.dataschema === undefined) return versions[0]?.schema;
    const declared = versions.find((d) => dataschemaOf(source, envelope.type, d.version) === envelope.dataschema);
    if (declared !== undefined) return declared.schema;
    return new MessageRejectedError(
      'SCHEMA_VALIDATION_FAILED',
      `Event ${envelope.id} (${envelope.type}) names dataschema ${excerpt(String(envelope.dataschema))}, a version the consumer's catalog does not declare; allowed: ${versions.map((d) => `version ${d.version} (${dataschemaOf(source, envelope.type, d.version)})`).join(', ')}`,
    );
  };
}
