/**
 * A light structural check of a declared schema's JSON Schema (what its Standard JSON Schema
 * converter answers): each keyword the AsyncAPI document carries and the catalog's schema
 * comparison reads (schema-diff.ts) holds a value of the kind draft-07 gives it, in every
 * subschema. No validator: it catches a converter answering `{ type: 'foo' }` or
 * `{ required: 'x' }`, which the document would publish and its readers fail on.
 */

import { showValue } from '../show-value.js';
import { pointerSegment } from './convert.js';
import { isSchema } from './keywords.js';

/** A keyword holding what it may not: where (a JSON pointer into the data's schema), what it held, what it may hold. */
interface ShapeProblem {
  readonly pointer: string;
  readonly given: unknown;
  readonly allowed: string;
}

type Rule = (value: unknown, at: string, seen: WeakSet<object>) => ShapeProblem | undefined;

const TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];
const TYPE_ALLOWED = `one of ${TYPES.map((t) => `"${t}"`).join(', ')}, or a list of them, each once`;

/** What a keyword held, cut to 200 characters: a subschema may be large. */
const shown = (value: unknown): string => {
  const text = showValue(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

const problem = (pointer: string, given: unknown, allowed: string): ShapeProblem => ({ pointer, given, allowed });
const isUniqueList = (value: unknown, item: (v: unknown) => boolean): boolean =>
  Array.isArray(value) && value.every(item) && new Set(value).size === value.length;
const compiles = (pattern: string): boolean => {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
};

/** The problem of the first wrong keyword in `schema` or its subschemas, or `undefined`. */
function schemaProblem(schema: unknown, at: string, seen: WeakSet<object>): ShapeProblem | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isSchema(schema)) return problem(at === '' ? '/' : at, schema, 'a schema: an object or a boolean');
  if (seen.has(schema)) return undefined; // met before: a subschema the converter shares between places, checked once
  seen.add(schema);
  for (const [keyword, value] of Object.entries(schema)) {
    const found = RULES.get(keyword)?.(value, `${at}/${pointerSegment(keyword)}`, seen);
    if (found !== undefined) return found;
  }
  return undefined;
}

const subschema: Rule = (value, at, seen) => schemaProblem(value, at, seen);

const schemaMap: Rule = (value, at, seen) => {
  if (!isSchema(value)) return problem(at, value, 'an object mapping each name to a schema');
  for (const [name, inner] of Object.entries(value)) {
    const found = schemaProblem(inner, `${at}/${pointerSegment(name)}`, seen);
    if (found !== undefined) return found;
  }
  return undefined;
};

const schemaList =
  (nonEmpty: boolean): Rule =>
  (value, at, seen) => {
    if (!Array.isArray(value) || (nonEmpty && value.length === 0))
      return problem(at, value, `a${nonEmpty ? ' non-empty' : ''} list of schemas`);
    for (const [i, inner] of value.entries()) {
      const found = schemaProblem(inner, `${at}/${i}`, seen);
      if (found !== undefined) return found;
    }
    return undefined;
  };

const checked =
  (ok: (value: unknown) => boolean, allowed: string): Rule =>
  (value, at) =>
    ok(value) ? undefined : problem(at, value, allowed);

const isNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const number = checked(isNumber, 'a number');
const count = checked((value) => Number.isSafeInteger(value) && (value as number) >= 0, 'a whole number, 0 or more');

/** Keywords whose value is one subschema. */
const SUBSCHEMA_KEYWORDS = ['additionalProperties', 'propertyNames', 'additionalItems', 'contains', 'not', 'if', 'then', 'else'];

/** The keywords checked and what each may hold; any other is left alone. */
const RULES: ReadonlyMap<string, Rule> = new Map([
  ...SUBSCHEMA_KEYWORDS.map((keyword): [string, Rule] => [keyword, subschema]),
  ...(['properties', 'patternProperties', 'definitions', '$defs'] as const).map((keyword): [string, Rule] => [keyword, schemaMap]),
  ...(['allOf', 'anyOf', 'oneOf'] as const).map((keyword): [string, Rule] => [keyword, schemaList(true)]),
  ...(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const).map((keyword): [string, Rule] => [keyword, number]),
  ...(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const).map((keyword): [string, Rule] => [
    keyword,
    count,
  ]),
  [
    'type',
    checked(
      (value) =>
        typeof value === 'string' ? TYPES.includes(value) : isUniqueList(value, (t) => typeof t === 'string' && TYPES.includes(t)),
      TYPE_ALLOWED,
    ),
  ],
  ['enum', checked(Array.isArray, 'a list of the values allowed')],
  ['required', checked((value) => isUniqueList(value, (name) => typeof name === 'string'), 'a list of property names, each once')],
  ['items', (value, at, seen) => (Array.isArray(value) ? schemaList(false)(value, at, seen) : subschema(value, at, seen))],
  ['multipleOf', checked((value) => isNumber(value) && (value as number) > 0, 'a number above 0')],
  ['uniqueItems', checked((value) => typeof value === 'boolean', 'true or false')],
  ['pattern', checked((value) => typeof value === 'string' && compiles(value), 'a regular expression, as a string')],
  ['format', checked((value) => typeof value === 'string', 'a format name, as a string')],
  ['$ref', checked((value) => typeof value === 'string', 'a URI reference, as a string, e.g. "#/definitions/address"')],
]);

/**
 * What is wrong with `json`, a declared schema's JSON Schema as its converter answered it: the
 * first keyword, in it or a subschema, holding what draft-07 does not give that keyword, as
 * `<JSON pointer> is <what it held>; allowed: <what it may hold>`; `undefined` when none is.
 *
 * @example
 * ```ts
 * jsonSchemaProblem({ type: 'object', required: 'x' }); // '/required is "x"; allowed: a list of property names, each once'
 * ```
 */
export function jsonSchemaProblem(json: Record<string, unknown>): string | undefined {
  const found = schemaProblem(json, '', new WeakSet());
  return found === undefined ? undefined : `${found.pointer} is ${shown(found.given)}; allowed: ${found.allowed}`;
}
