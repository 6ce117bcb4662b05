/**
 * The event catalog a config declares: per event type, one or more versions, each with an
 * optional Standard Schema of the event's `data`. Types and their validation only, below
 * `config.ts` in the imports: the write helper, the consumer helper and the AsyncAPI document all
 * read the declarations from the validated config.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { isRecord, rejectUnknownKeys } from './config-fields.js';
import { ConfigError } from './errors.js';
import { showValue as show } from './show-value.js';

/**
 * One version of an event type, as a config declares it.
 *
 * @example
 * ```ts
 * const placed: EventTypeDeclaration = {
 *   version: 1,
 *   schema: z.object({ orderId: z.string(), total: z.number() }),
 *   aggregateType: 'order',
 *   description: 'An order was placed.',
 * };
 * ```
 */
export interface EventTypeDeclaration {
  /** A positive whole number. A breaking change of the schema is a new version, declared beside the old one. */
  readonly version: number;
  /**
   * A Standard Schema (zod, valibot, ArkType …) of the event's `data`. Left out, the type and
   * version are declared (the envelope names them, `undeclaredEventTypes` counts them) but `data`
   * is not checked. A config read back from JSON (`configFromEnv`, `--config file.json`) has none.
   * @default no schema
   */
  readonly schema?: StandardSchemaV1;
  /** The aggregate type events of this type belong to; the write helper refuses the type on any other. @default any routed aggregate type */
  readonly aggregateType?: string;
  /** What the event means, for the AsyncAPI document. @default none */
  readonly description?: string;
}

/** What a config's `eventTypes` maps an event type to: one declaration, or several versions of it. */
export type EventTypeInput = EventTypeDeclaration | readonly EventTypeDeclaration[];

/** The declared versions of every event type, each list ordered by version (the newest last). */
export type EventTypeCatalog = Readonly<Record<string, readonly EventTypeDeclaration[]>>;

/** What the write helper does with an event whose type `eventTypes` does not declare. */
export type UndeclaredEventTypes = 'reject' | 'allow';

export const MAX_EVENT_TYPE_LENGTH = 256;
/** Control characters and U+FFFE/U+FFFF, which an SNS message attribute cannot carry. */
const EVENT_TYPE_FORBIDDEN = /[\p{Cc}\uFFFE\uFFFF]/u;
/** An absolute URI with no fragment: `dataschema` is the source with a fragment added, and must be an absolute URI. */
const ABSOLUTE_URI_WITHOUT_FRAGMENT = /^[a-z][a-z0-9+\-.]*:[^#]*$/i;
const DECLARATION_KEYS = ['version', 'schema', 'aggregateType', 'description'];

/** Characters (code points), as the write helper counts an event type's length. */
const characterCount = (text: string): number => [...text].length;

/** What an event type may be, as a refusal says it after "allowed:" (the config's declarations, the write helper's `type`). */
export const EVENT_TYPE_ALLOWED = `a string that is not blank, of at most ${MAX_EVENT_TYPE_LENGTH} characters of well-formed Unicode without control characters or U+FFFE/U+FFFF, e.g. "order.placed"`;

/** Why `type` cannot name an event type, or `undefined` when it can: what the write helper accepts as an event's `type`. */
export function eventTypeProblem(type: string): string | undefined {
  // Code points are never more than UTF-16 units: only a long string is counted.
  const tooLong = type.length > MAX_EVENT_TYPE_LENGTH && characterCount(type) > MAX_EVENT_TYPE_LENGTH;
  if (type.trim() === '' || !type.isWellFormed() || tooLong || EVENT_TYPE_FORBIDDEN.test(type)) {
    return `event type ${show(type)} is not allowed; allowed: ${EVENT_TYPE_ALLOWED}`;
  }
  return undefined;
}

/**
 * The CloudEvents `dataschema` of a declared (type, version): the config's `source` with a
 * fragment naming the type (percent-encoded where a URI needs it) and the version.
 *
 * @example
 * ```ts
 * dataschemaOf('urn:example:shop', 'order.placed', 2); // 'urn:example:shop#order.placed:2'
 * ```
 */
export const dataschemaOf = (source: string, type: string, version: number): string => `${source}#${encodeURIComponent(type)}:${version}`;

function validateDeclaration(raw: unknown, field: string, routes: Readonly<Record<string, string>>): EventTypeDeclaration {
  if (!isRecord(raw)) {
    throw new ConfigError(field, `got ${show(raw)}; allowed: { version, schema?, aggregateType?, description? }`);
  }
  rejectUnknownKeys(raw, DECLARATION_KEYS, field);
  const { version, schema, aggregateType, description } = raw;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    throw new ConfigError(`${field}.version`, `got ${show(version)}; allowed: a positive whole number (1, 2, …)`);
  }
  if (schema !== undefined) {
    const standard = (schema as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
    if ((typeof schema !== 'object' && typeof schema !== 'function') || typeof standard?.validate !== 'function') {
      throw new ConfigError(
        `${field}.schema`,
        `got ${typeof schema === 'object' && schema !== null ? `an instance of ${schema.constructor?.name || 'Object'}` : show(schema)}, which is not a Standard Schema (no ~standard.validate); allowed: a zod, valibot, ArkType … schema, or leave it out`,
      );
    }
  }
  if (aggregateType !== undefined && (typeof aggregateType !== 'string' || !Object.hasOwn(routes, aggregateType))) {
    throw new ConfigError(
      `${field}.aggregateType`,
      `got ${show(aggregateType)}; allowed: a routed aggregate type (${Object.keys(routes).map(show).join(', ')}), or leave it out for any`,
    );
  }
  if (description !== undefined && (typeof description !== 'string' || description.trim() === '')) {
    throw new ConfigError(`${field}.description`, `got ${show(description)}; allowed: a string that is not blank, or leave it out`);
  }
  const declaration = {
    version,
    ...(aggregateType === undefined ? {} : { aggregateType: aggregateType as string }),
    ...(description === undefined ? {} : { description: description as string }),
  };
  // The schema is code: JSON of the config (serializeConfig, or JSON.stringify of it) leaves it out.
  const json = { ...declaration };
  Object.defineProperty(declaration, 'toJSON', { value: () => json, enumerable: false });
  return Object.freeze(schema === undefined ? declaration : Object.assign(declaration, { schema: schema as StandardSchemaV1 }));
}

/**
 * Validates a config's `eventTypes` against its `source` and `routes`: each key an event type
 * the write helper accepts, each value one declaration or a non-empty list of versions, no
 * version twice. Throws a {@link ConfigError} naming the field, what was given and what is allowed.
 */
export function validateEventTypes(raw: unknown, source: string, routes: Readonly<Record<string, string>>): EventTypeCatalog {
  if (!isRecord(raw) || Object.keys(raw).length === 0) {
    throw new ConfigError(
      'eventTypes',
      `got ${show(raw)}; allowed: a non-empty object mapping event type to { version, schema?, aggregateType?, description? } or a list of them (leave eventTypes out for no catalog)`,
    );
  }
  if (!ABSOLUTE_URI_WITHOUT_FRAGMENT.test(source)) {
    throw new ConfigError(
      'eventTypes',
      `needs a source that is an absolute URI without a fragment, as each event's dataschema is the source with a fragment naming type and version; got source ${show(source)}; allowed: e.g. "urn:example:shop" or "https://shop.example.com/orders"`,
    );
  }
  const catalog: Record<string, readonly EventTypeDeclaration[]> = {};
  for (const [type, value] of Object.entries(raw)) {
    const field = `eventTypes[${show(type)}]`;
    const problem = eventTypeProblem(type);
    if (problem !== undefined) throw new ConfigError(field, problem);
    const list: readonly unknown[] = Array.isArray(value) ? value : [value];
    if (list.length === 0) throw new ConfigError(field, 'got []; allowed: a declaration { version, … } or a non-empty list of them');
    const declarations = list.map((item, i) => validateDeclaration(item, Array.isArray(value) ? `${field}[${i}]` : field, routes));
    const versions = declarations.map((d) => d.version);
    const repeated = versions.find((v, i) => versions.indexOf(v) !== i);
    if (repeated !== undefined) throw new ConfigError(field, `declares version ${repeated} twice; allowed: each version once`);
    catalog[type] = Object.freeze([...declarations].sort((a, b) => a.version - b.version));
  }
  return Object.freeze(catalog);
}

/** Validates `undeclaredEventTypes`, which applies only to a config with `eventTypes`. @default 'reject' */
export function validateUndeclared(raw: unknown, hasCatalog: boolean): UndeclaredEventTypes | undefined {
  if (!hasCatalog) {
    if (raw === undefined) return undefined;
    throw new ConfigError(
      'undeclaredEventTypes',
      `got ${show(raw)} without eventTypes; allowed: only beside eventTypes, which it applies to`,
    );
  }
  if (raw === undefined) return 'reject';
  if (raw !== 'reject' && raw !== 'allow') throw new ConfigError('undeclaredEventTypes', `got ${show(raw)}; allowed: "reject" or "allow"`);
  return raw;
}

/** The catalog as JSON carries it: every declaration without its schema, which is code. */
export const catalogWithoutSchemas = (catalog: EventTypeCatalog): Record<string, EventTypeDeclaration[]> =>
  Object.fromEntries(Object.entries(catalog).map(([type, versions]) => [type, versions.map(({ schema: _, ...rest }) => rest)]));
