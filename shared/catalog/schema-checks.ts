/**
 * The keyword rules of the catalog's schema comparison (schema-diff.ts) that look at one schema
 * and its counterpart alone, and a proof that two schemas accept no value in common.
 */

import { type Found, isSchema, LOWER_BOUNDS, type Schema, same, show, UPPER_BOUNDS } from '../json-schema/keywords.js';

type At = (suffix?: string) => string;

/** `type`: each old type still allowed (`integer` within `number`). */
export function checkTypes(O: Schema, N: Schema, at: At, found: Found[]): void {
  if (N.type === undefined) return;
  const newTypes = ([] as unknown[]).concat(N.type);
  const covered = (t: unknown) => newTypes.includes(t) || (t === 'integer' && newTypes.includes('number'));
  const oldTypes = O.type === undefined ? undefined : ([] as unknown[]).concat(O.type);
  if (oldTypes === undefined || !oldTypes.every(covered)) {
    found.push({
      pointer: at('/type'),
      kind: 'type-changed',
      message: `type changed from ${oldTypes === undefined ? 'any' : show(O.type)} to ${show(N.type)}`,
    });
  }
}

/** `const`/`enum`: each old value still allowed. */
export function checkValues(O: Schema, N: Schema, at: At, found: Found[]): void {
  const oldValues = 'const' in O ? [O.const] : Array.isArray(O.enum) ? O.enum : undefined;
  if (!('const' in N) && !Array.isArray(N.enum)) return;
  const newValues = 'const' in N ? [N.const] : (N.enum as unknown[]);
  if (oldValues === undefined) {
    found.push({
      pointer: at('enum' in N ? '/enum' : '/const'),
      kind: 'enum-value-removed',
      message: `values narrowed from any to ${show(newValues)}`,
    });
    return;
  }
  for (const value of oldValues) {
    if (!newValues.some((v) => same(v, value))) {
      found.push({
        pointer: at('const' in O ? '/const' : '/enum'),
        kind: 'enum-value-removed',
        message: `value ${show(value)} is no longer allowed`,
      });
    }
  }
}

/** Bounds, `multipleOf`, `pattern`, `format`, `uniqueItems`: none tightened. */
export function checkBounds(O: Schema, N: Schema, at: At, found: Found[]): void {
  const tightened = (keyword: string, raised: boolean) =>
    found.push({
      pointer: at(`/${keyword}`),
      kind: 'constraint-tightened',
      message: `${keyword} ${raised ? 'raised' : 'lowered'} from ${O[keyword] === undefined ? 'none' : show(O[keyword])} to ${show(N[keyword])}`,
    });
  for (const keyword of LOWER_BOUNDS) {
    if (typeof N[keyword] === 'number' && !(typeof O[keyword] === 'number' && (O[keyword] as number) >= (N[keyword] as number)))
      tightened(keyword, true);
  }
  for (const keyword of UPPER_BOUNDS) {
    if (typeof N[keyword] === 'number' && !(typeof O[keyword] === 'number' && (O[keyword] as number) <= (N[keyword] as number)))
      tightened(keyword, false);
  }
  if (typeof N.multipleOf === 'number' && !(typeof O.multipleOf === 'number' && (O.multipleOf as number) % N.multipleOf === 0))
    tightened('multipleOf', true);
  for (const keyword of ['pattern', 'format'] as const) {
    if (N[keyword] !== undefined && !same(O[keyword], N[keyword])) {
      found.push({
        pointer: at(`/${keyword}`),
        kind: 'constraint-tightened',
        message: `${keyword} changed from ${O[keyword] === undefined ? 'none' : show(O[keyword])} to ${show(N[keyword])}`,
      });
    }
  }
  if (N.uniqueItems === true && O.uniqueItems !== true)
    found.push({ pointer: at('/uniqueItems'), kind: 'constraint-tightened', message: 'uniqueItems is newly required' });
}

const typesOf = (s: Schema) => (s.type === undefined ? undefined : ([] as unknown[]).concat(s.type));
const overlaps = (t: unknown, u: unknown) => t === u || (t === 'integer' && u === 'number') || (t === 'number' && u === 'integer');

/**
 * Whether no value can satisfy both `a` and `b`, as far as their types, values and required
 * properties show it (a discriminated union's variants, say); false when it cannot tell.
 * `resolveA`/`resolveB` follow a property's schema to itself in its document.
 */
export function disjoint(a: Schema, b: Schema, resolveA: (s: unknown) => Schema, resolveB: (s: unknown) => Schema, depth = 0): boolean {
  if (depth > 16) return false;
  const ta = typesOf(a);
  const tb = typesOf(b);
  if (ta !== undefined && tb !== undefined && !ta.some((t) => tb.some((u) => overlaps(t, u)))) return true;
  const va = 'const' in a ? [a.const] : Array.isArray(a.enum) ? a.enum : undefined;
  const vb = 'const' in b ? [b.const] : Array.isArray(b.enum) ? b.enum : undefined;
  if (va !== undefined && vb !== undefined && !va.some((v) => vb.some((w) => same(v, w)))) return true;
  const pa = isSchema(a.properties) ? a.properties : {};
  const pb = isSchema(b.properties) ? b.properties : {};
  const required = new Set([...(Array.isArray(a.required) ? a.required : []), ...(Array.isArray(b.required) ? b.required : [])]);
  // A property one side requires and both constrain: a common value has it, valid under both.
  return Object.keys(pa).some(
    (name) =>
      required.has(name) && Object.hasOwn(pb, name) && disjoint(resolveA(pa[name]), resolveB(pb[name]), resolveA, resolveB, depth + 1),
  );
}
