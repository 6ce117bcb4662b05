/**
 * A declared schema as JSON Schema, through the Standard JSON Schema interface
 * (`~standard.jsonSchema`, which zod 4 implements): the one way to convert that does not depend
 * on the schema library. A schema without it (valibot alone, ArkType …) has no JSON Schema here.
 */

import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { errorMessage } from '../error-message.js';
import { showValue } from '../show-value.js';

/** The JSON Schema draft AsyncAPI 3.0's Schema Object extends. */
export const JSON_SCHEMA_TARGET = 'draft-07';

/** A declared schema converted, or why it could not be. */
export type Conversion =
  | { readonly status: 'converted'; readonly schema: Record<string, unknown> }
  | { readonly status: 'unavailable'; readonly reason: string };

/**
 * `schema` with every local `$ref` (`#`, `#/definitions/…`) moved under `base`, the JSON pointer
 * where the schema is placed in a larger document: refs resolve against the document's root.
 */
function rebased(value: unknown, base: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rebased(item, base));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof inner === 'string' && inner.startsWith('#') ? `#${base}${inner.slice(1)}` : rebased(inner, base);
  }
  return out;
}

/**
 * The JSON Schema (draft-07) of what a declared schema accepts as `data` (its input: the write
 * helper publishes the data as given, before any transform), to be placed at the JSON pointer
 * `base`; `unavailable` with the reason when the schema has no Standard JSON Schema converter, or
 * the converter refuses (a transform, say).
 *
 * @example
 * ```ts
 * const converted = toJsonSchema(z.object({ total: z.number() }), '/components/schemas/order.placed.v1');
 * ```
 */
export function toJsonSchema(schema: StandardSchemaV1 | undefined, base: string): Conversion {
  if (schema === undefined) return { status: 'unavailable', reason: 'it declares no schema' };
  const standard = schema['~standard'] as Partial<StandardJSONSchemaV1.Props> & StandardSchemaV1.Props;
  if (typeof standard.jsonSchema?.input !== 'function') {
    return {
      status: 'unavailable',
      reason: `its ${String(standard.vendor)} schema offers no JSON Schema (it does not implement Standard JSON Schema, ~standard.jsonSchema)`,
    };
  }
  let converted: Record<string, unknown>;
  try {
    converted = standard.jsonSchema.input({ target: JSON_SCHEMA_TARGET });
  } catch (error) {
    return {
      status: 'unavailable',
      reason: `its ${String(standard.vendor)} schema could not be converted to JSON Schema (${errorMessage(error)})`,
    };
  }
  if (typeof converted !== 'object' || converted === null || Array.isArray(converted)) {
    // Spread into the document, a string or a list would become an object of its characters or items.
    return {
      status: 'unavailable',
      reason: `its ${String(standard.vendor)} schema's JSON Schema is ${showValue(converted)}, not a JSON Schema object`,
    };
  }
  // `$schema` names the draft of a whole document; inside the AsyncAPI document it is the spec's.
  const { $schema: _, ...rest } = converted;
  return { status: 'converted', schema: rebased(rest, base) as Record<string, unknown> };
}

/** `name` as one JSON pointer segment: `~` and `/` escaped. */
export const pointerSegment = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1');
