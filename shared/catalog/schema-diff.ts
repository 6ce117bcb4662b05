/**
 * Whether a JSON Schema (draft-07, as the catalog holds the declared schemas) still accepts what
 * an earlier one accepted and still promises what it promised: each difference that could break
 * a consumer of data written under the earlier one, with its JSON pointer in the earlier document.
 * Conservative: a change of a keyword it cannot judge (not, if/then/else, patternProperties …)
 * counts as breaking.
 */

import { pointerSegment } from './json-schema.js';
import {
  ANNOTATIONS,
  atPointer,
  eachValue,
  isSchema,
  JUDGED,
  LOWER_BOUNDS,
  type Located,
  type Schema,
  same,
  show,
  UPPER_BOUNDS,
} from './schema-keywords.js';

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

type Found = Omit<BreakingChange, 'type' | 'version'>;

/** Compares schemas of two documents (a published catalog and the current one). */
export class SchemaDiff {
  readonly #old: unknown;
  readonly #new: unknown;
  readonly #seen = new Set<string>();

  constructor(oldDocument: unknown, newDocument: unknown) {
    this.#old = oldDocument;
    this.#new = newDocument;
  }

  /** The breaking changes from the schema at `oldRef` to the one at `newRef` (`#/…` pointers). */
  compare(oldRef: string, newRef: string): Found[] {
    const found: Found[] = [];
    this.#diff(
      this.#resolve(this.#old, { schema: { $ref: oldRef }, pointer: oldRef.slice(1) }),
      this.#resolve(this.#new, { schema: { $ref: newRef }, pointer: newRef.slice(1) }),
      found,
    );
    return found;
  }

  /** Follows local `$ref`s, and a lone `allOf` member (how zod wraps a referenced schema), to the schema itself. */
  #resolve(document: unknown, at: Located): Located {
    let current = at;
    for (let hops = 0; hops < 64; hops++) {
      const { schema } = current;
      const ref = schema.$ref;
      if (typeof ref === 'string' && Object.keys(schema).every((k) => k === '$ref' || ANNOTATIONS.has(k))) {
        const target = atPointer(document, ref);
        current = { schema: target === true ? {} : isSchema(target) ? target : { not: {} }, pointer: ref.slice(1) };
      } else if (
        Array.isArray(schema.allOf) &&
        schema.allOf.length === 1 &&
        Object.keys(schema).every((k) => k === 'allOf' || ANNOTATIONS.has(k))
      ) {
        const [only] = schema.allOf as unknown[];
        current = { schema: only === true ? {} : isSchema(only) ? only : { not: {} }, pointer: `${current.pointer}/allOf/0` };
      } else return current;
    }
    return current;
  }

  #child(document: unknown, parent: Located, schema: unknown, ...path: (string | number)[]): Located {
    const located = {
      schema: schema === true || schema === undefined ? {} : isSchema(schema) ? schema : { not: {} },
      pointer: `${parent.pointer}/${path.map((p) => pointerSegment(String(p))).join('/')}`,
    };
    return this.#resolve(document, located);
  }

  #diff(o: Located, n: Located, found: Found[]): void {
    const key = `${o.pointer}\u0000${n.pointer}`;
    // A recursive schema meets itself again: the first visit judges it.
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const O = o.schema;
    const N = n.schema;
    const at = (suffix = '') => `${o.pointer}${suffix}`;
    if (Array.isArray(N.anyOf ?? N.oneOf) || Array.isArray(O.anyOf ?? O.oneOf)) {
      // Each old variant is judged whole against the new ones; the keywords beside them would count it twice.
      this.#variants(o, n, found);
      return;
    }
    this.#types(O, N, at, found);
    this.#values(O, N, at, found);
    this.#objects(o, n, found);
    this.#arrays(o, n, found);
    this.#bounds(O, N, at, found);
    for (const keyword of new Set([...Object.keys(O), ...Object.keys(N)])) {
      if (JUDGED.has(keyword) || ANNOTATIONS.has(keyword) || same(O[keyword], N[keyword])) continue;
      found.push({
        pointer: at(`/${pointerSegment(keyword)}`),
        kind: 'unverifiable-change',
        message: `${keyword} changed from ${show(O[keyword])} to ${show(N[keyword])}, which this check cannot prove compatible`,
      });
    }
  }

  #types(O: Schema, N: Schema, at: (s?: string) => string, found: Found[]): void {
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

  #values(O: Schema, N: Schema, at: (s?: string) => string, found: Found[]): void {
    const oldValues = 'const' in O ? [O.const] : Array.isArray(O.enum) ? O.enum : undefined;
    if ('const' in N || Array.isArray(N.enum)) {
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
  }

  #objects(o: Located, n: Located, found: Found[]): void {
    const O = o.schema;
    const N = n.schema;
    const oldProps = isSchema(O.properties) ? O.properties : {};
    const newProps = isSchema(N.properties) ? N.properties : {};
    for (const [name, schema] of Object.entries(oldProps)) {
      if (!Object.hasOwn(newProps, name)) {
        found.push({
          pointer: `${o.pointer}/properties/${pointerSegment(name)}`,
          kind: 'property-removed',
          message: `property ${show(name)} was removed`,
        });
        continue;
      }
      this.#diff(
        this.#child(this.#old, o, schema, 'properties', name),
        this.#child(this.#new, n, newProps[name], 'properties', name),
        found,
      );
    }
    const oldRequired = Array.isArray(O.required) ? O.required : [];
    for (const name of Array.isArray(N.required) ? N.required : []) {
      if (!oldRequired.includes(name)) {
        found.push({
          pointer: `${o.pointer}/properties/${pointerSegment(String(name))}`,
          kind: 'property-required',
          message: `property ${show(name)} is newly required`,
        });
      }
    }
    this.#rest(o, n, 'additionalProperties', 'additional-properties-tightened', found);
  }

  #arrays(o: Located, n: Located, found: Found[]): void {
    const O = o.schema;
    const N = n.schema;
    if (Array.isArray(O.items) || Array.isArray(N.items)) {
      const oldItems = ([] as unknown[]).concat(O.items ?? []);
      const newItems = ([] as unknown[]).concat(N.items ?? []);
      if (!Array.isArray(O.items) || !Array.isArray(N.items) || oldItems.length !== newItems.length) {
        if (!same(O.items, N.items))
          found.push({
            pointer: `${o.pointer}/items`,
            kind: 'unverifiable-change',
            message: `items changed from ${show(O.items)} to ${show(N.items)}, which this check cannot prove compatible`,
          });
      } else {
        for (const [i, item] of oldItems.entries()) {
          this.#diff(this.#child(this.#old, o, item, 'items', i), this.#child(this.#new, n, newItems[i], 'items', i), found);
        }
      }
      this.#rest(o, n, 'additionalItems', 'constraint-tightened', found);
    } else if (O.items !== undefined || N.items !== undefined) {
      this.#diff(this.#child(this.#old, o, O.items, 'items'), this.#child(this.#new, n, N.items, 'items'), found);
    }
  }

  /** `additionalProperties` or `additionalItems`: absent or `true` allows anything, `false` nothing. */
  #rest(o: Located, n: Located, keyword: 'additionalProperties' | 'additionalItems', kind: BreakingKind, found: Found[]): void {
    const O = o.schema[keyword];
    const N = n.schema[keyword];
    const open = (v: unknown) => v === undefined || v === true || (isSchema(v) && Object.keys(v).length === 0);
    if (open(N)) return;
    if (N === false) {
      if (O !== false)
        found.push({ pointer: `${o.pointer}/${keyword}`, kind, message: `${keyword} tightened from ${show(O ?? true)} to false` });
      return;
    }
    if (open(O)) {
      found.push({ pointer: `${o.pointer}/${keyword}`, kind, message: `${keyword} tightened from any to ${show(N)}` });
      return;
    }
    if (O === false) return;
    this.#diff(this.#child(this.#old, o, O, keyword), this.#child(this.#new, n, N, keyword), found);
  }

  #bounds(O: Schema, N: Schema, at: (s?: string) => string, found: Found[]): void {
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

  /** `anyOf`/`oneOf`: every old variant must still be matched, without a break, by some new one. */
  #variants(o: Located, n: Located, found: Found[]): void {
    const keywordOf = (s: Schema) => (Array.isArray(s.anyOf) ? 'anyOf' : Array.isArray(s.oneOf) ? 'oneOf' : undefined);
    const ok = keywordOf(o.schema);
    const nk = keywordOf(n.schema);
    const oldVariants = ok === undefined ? [o] : (o.schema[ok] as unknown[]).map((v, i) => this.#child(this.#old, o, v, ok, i));
    const newVariants = nk === undefined ? [n] : (n.schema[nk] as unknown[]).map((v, i) => this.#child(this.#new, n, v, nk, i));
    const matchedBy = (variant: Located) =>
      newVariants.some((candidate) => {
        const trial = new SchemaDiff(this.#old, this.#new);
        const scratch: Found[] = [];
        trial.#diff(variant, candidate, scratch);
        return scratch.length === 0;
      });
    oldVariants.forEach((variant, i) => {
      // An old enum may be accepted by several new variants together (`z.enum` rewritten as a union of literals): each value by one.
      const matched = eachValue(variant).every(matchedBy);
      if (!matched) {
        found.push({
          pointer: ok === undefined ? o.pointer : `${o.pointer}/${ok}/${i}`,
          kind: 'variant-removed',
          message: `${ok === undefined ? 'the schema' : `variant ${i} of ${ok}`} (${show(variant.schema)}) is no longer accepted as it was by ${nk === undefined ? 'the new schema' : `any variant of the new ${nk}`}`,
        });
      }
    });
  }
}
