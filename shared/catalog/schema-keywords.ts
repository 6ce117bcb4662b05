/**
 * The JSON Schema keywords the catalog's schema comparison (schema-diff.ts) knows, and the small
 * helpers it reads schemas with.
 */

/** A JSON Schema object. */
export type Schema = Record<string, unknown>;

/** A schema and where it is, in its own document. */
export interface Located {
  readonly schema: Schema;
  readonly pointer: string;
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
export const show = (value: unknown): string => JSON.stringify(value) ?? 'undefined';
export const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An enum of several values as one `const` variant per value, the rest of the schema kept; any other schema as it is. */
export function eachValue(variant: Located): Located[] {
  const { enum: values, ...rest } = variant.schema;
  if (!Array.isArray(values) || values.length < 2 || 'const' in rest) return [variant];
  return values.map((value) => ({ ...variant, schema: { ...rest, const: value } }));
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
