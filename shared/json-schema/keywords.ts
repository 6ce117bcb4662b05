/**
 * The breaking changes the catalog's schema comparison (schema-diff.ts) reports, the JSON Schema
 * keywords it knows, and the small helpers it reads schemas with.
 */

import { showValue } from '../show-value.js';

/** What kind of break a change is. */
export type BreakingKind =
  | 'version-removed'
  | 'property-removed'
  | 'property-required'
  | 'type-changed'
  | 'enum-value-removed'
  | 'additional-properties-tightened'
  | 'constraint-tightened'
  | 'variant-removed'
  | 'aggregate-type-changed'
  | 'dataschema-changed'
  | 'schema-unverifiable'
  | 'unverifiable-change';

/** One breaking change: where (a JSON pointer into the published document), what kind, in words. */
export interface BreakingChange {
  readonly type: string;
  readonly version: number;
  readonly pointer: string;
  readonly kind: BreakingKind;
  readonly message: string;
}

/** A breaking change without its event type and version. */
export type Found = Omit<BreakingChange, 'type' | 'version'>;

/** A JSON Schema object. */
export type Schema = Record<string, unknown>;

/** A schema and where it is, in its own document; `part` names a part of the schema there judged apart (the keywords beside an `allOf`). */
export interface Located {
  readonly schema: Schema;
  readonly pointer: string;
  readonly part?: string;
  /** A new schema that is one part of a conjunction (an `allOf` member, the keywords beside it): a property it does not name may be named by another part. */
  readonly conjunct?: boolean;
}

/** Keywords that say nothing of what a schema accepts: a change of them breaks nothing. */
export const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  'default',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$id',
  'definitions',
  '$defs',
]);

/** Keywords the comparison judges; any other that differs is an unverifiable change. */
export const JUDGED = new Set([
  'type',
  'const',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'additionalItems',
  'anyOf',
  'oneOf',
  'allOf',
  'minimum',
  'exclusiveMinimum',
  'minLength',
  'minItems',
  'minProperties',
  'maximum',
  'exclusiveMaximum',
  'maxLength',
  'maxItems',
  'maxProperties',
  'multipleOf',
  'pattern',
  'format',
  'uniqueItems',
  '$ref',
]);
export const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
export const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
/** A keyword's value as a message shows it: {@link showValue}. */
export const show = showValue;
export const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A schema as the alternatives it accepts together: an enum of several values as one `const`
 * variant per value, a list of types as one variant per type, the rest of the schema kept; any
 * other schema as it is.
 */
export function eachAlternative(variant: Located): Located[] {
  const { enum: values, ...rest } = variant.schema;
  if (Array.isArray(values) && values.length >= 2 && !('const' in rest))
    return values.map((value, i) => ({ ...variant, schema: { ...rest, const: value }, part: `enum ${i}` }));
  const { type, ...others } = variant.schema;
  if (Array.isArray(type) && type.length >= 2)
    return type.map((t, i) => ({ ...variant, schema: { ...others, type: t }, part: `type ${i}` }));
  return [variant];
}

/** The value at a `#/…` pointer of `document`. */
export function atPointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let value = document;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    value = isSchema(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}
