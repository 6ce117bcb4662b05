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

/** A declared schema converted, or why it could not be: unavailable (the document warns), or malformed (refused). */
export type Conversion =
  | { readonly status: 'converted'; readonly schema: Record<string, unknown> }
  | { readonly status: 'unavailable'; readonly reason: string }
  | { readonly status: 'malformed'; readonly problem: string };

/** A converted schema that holds itself: thrown by {@link rebased}, answered as `malformed`. */
class CycleFound {
  constructor(readonly problem: string) {}
}

const pointerOf = (keys: readonly (string | number)[]): string => keys.map((key) => `/${pointerSegment(String(key))}`).join('');

/**
 * `schema` with every local `$ref` (`#`, `#/definitions/…`) moved under `base`, the JSON pointer
 * where the schema is placed in a larger document: refs resolve against the document's root. A
 * subschema shared between places is copied to each; one that holds itself (a cycle, which JSON
 * cannot write and the copy would follow until the stack overflows) throws {@link CycleFound}.
 */
function rebased(schema: unknown, base: string): unknown {
  /** The objects enclosing the one being copied, each with its depth in `keys`, the path to it. */
  const enclosing = new Map<object, number>();
  const keys: (string | number)[] = [];
  const inner = (value: unknown, key: string | number): unknown => {
    keys.push(key);
    const copied = copy(value);
    keys.pop();
    return copied;
  };
  const copy = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const depth = enclosing.get(value);
    if (depth !== undefined) {
      const outer = depth === 0 ? 'the whole schema' : `its enclosing subschema ${pointerOf(keys.slice(0, depth))}`;
      throw new CycleFound(
        `${pointerOf(keys)} is ${outer} again, a cycle JSON cannot write; allowed: a tree of JSON values; a recursive schema refers to itself by $ref (e.g. "#/definitions/node")`,
      );
    }
    enclosing.set(value, keys.length);
    let out: unknown;
    if (Array.isArray(value)) out = value.map(inner);
    else {
      const fields: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        fields[key] = key === '$ref' && typeof item === 'string' && item.startsWith('#') ? `#${base}${item.slice(1)}` : inner(item, key);
      }
      out = fields;
    }
    enclosing.delete(value);
    return out;
  };
  return copy(schema);
}

/**
 * The JSON Schema (draft-07) of what a declared schema accepts as `data` (its input: the write
 * helper publishes the data as given, before any transform), to be placed at the JSON pointer
 * `base`; `unavailable` with the reason when the schema has no Standard JSON Schema converter, or
 * the converter refuses (a transform, say); `malformed` with the problem when the converter answers
 * an object that holds itself.
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
  try {
    // `$schema` names the draft of a whole document; inside the AsyncAPI document it is the spec's.
    const { $schema: _, ...rest } = rebased(converted, base) as Record<string, unknown>;
    return { status: 'converted', schema: rest };
  } catch (error) {
    if (error instanceof CycleFound) return { status: 'malformed', problem: error.problem };
    throw error;
  }
}

/**
 * Where a converted schema holds a value JSON cannot write as it is, and what: a bigint, a symbol
 * or a function (`JSON.stringify` throws on the first and drops the others) or a number that is
 * not finite (written as `null`, which says something else); `undefined` when there is none. A
 * property whose value is `undefined` is left out by JSON and by this check alike.
 *
 * @example
 * ```ts
 * jsonValueProblem({ enum: [1, 2n] }); // '/enum/1 is 2n, which JSON cannot write as it is; allowed: …'
 * ```
 */
export function jsonValueProblem(schema: unknown): string | undefined {
  const keys: (string | number)[] = [];
  const find = (value: unknown): boolean => {
    const kind = typeof value;
    if (kind === 'bigint' || kind === 'symbol' || kind === 'function' || (kind === 'number' && !Number.isFinite(value))) return true;
    if (typeof value !== 'object' || value === null) return false;
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
    for (const [key, item] of entries) {
      keys.push(key);
      if (find(item)) return true;
      keys.pop();
    }
    return false;
  };
  if (!find(schema)) return undefined;
  const value = keys.reduce<unknown>((at, key) => (at as Record<string | number, unknown>)[key], schema);
  return `${pointerOf(keys)} is ${showValue(value)}, which JSON cannot write as it is; allowed: JSON values (strings, finite numbers, booleans, null, and lists and objects of them)`;
}

/** `name` as one JSON pointer segment: `~` and `/` escaped. */
export const pointerSegment = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1');
