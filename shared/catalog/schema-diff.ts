/**
 * Whether a JSON Schema (draft-07, as the catalog holds the declared schemas) still accepts what
 * an earlier one accepted and still promises what it promised: each difference that could break
 * a consumer of data written under the earlier one, with its JSON pointer in the earlier document.
 * Conservative: a change of a keyword it cannot judge (not, if/then/else, patternProperties …)
 * counts as breaking.
 */

import { pointerSegment } from '../json-schema/convert.js';
import {
  ANNOTATIONS,
  atPointer,
  type BreakingKind,
  eachAlternative,
  type Found,
  isSchema,
  JUDGED,
  type Located,
  type Schema,
  same,
  show,
} from '../json-schema/keywords.js';
import { checkBounds, checkTypes, checkValues, disjoint } from './schema-checks.js';

const without = (schema: Schema, keyword: string): Schema => Object.fromEntries(Object.entries(schema).filter(([k]) => k !== keyword));

/** Compares schemas of two documents (a published catalog and the current one). */
export class SchemaDiff {
  readonly #old: unknown;
  readonly #new: unknown;
  /** Pairs judged or being judged: a pair met again is not judged twice. */
  readonly #seen: Set<string>;
  /** Pairs being judged (the current path): a recursive schema meeting itself again on it is taken as compatible. */
  readonly #judging: Set<string>;

  constructor(oldDocument: unknown, newDocument: unknown, judging: ReadonlySet<string> = new Set()) {
    this.#old = oldDocument;
    this.#new = newDocument;
    this.#seen = new Set(judging);
    this.#judging = new Set(judging);
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

  /**
   * The breaking changes from `o` to `n` judged on their own, in a fresh list: whether `o` fits `n`.
   * It shares only the pairs being judged, so that a pair judged breaking elsewhere is judged again.
   */
  #trial(o: Located, n: Located, reversed = false): Found[] {
    const scratch: Found[] = [];
    const trial = reversed ? new SchemaDiff(this.#new, this.#old) : new SchemaDiff(this.#old, this.#new, this.#judging);
    trial.#diff(o, n, scratch);
    return scratch;
  }

  #diff(o: Located, n: Located, found: Found[]): void {
    const key = `${o.pointer}\u0000${o.part ?? ''}\u0000${n.pointer}\u0000${n.part ?? ''}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.#judging.add(key);
    try {
      this.#judge(o, n, found);
    } finally {
      this.#judging.delete(key);
    }
  }

  #judge(o: Located, n: Located, found: Found[]): void {
    const O = o.schema;
    const N = n.schema;
    const at = (suffix = '') => `${o.pointer}${suffix}`;
    if (Array.isArray(N.allOf)) {
      // The old schema must fit every member and the keywords beside them; a property is kept when one of them names it.
      const parts = [
        ...N.allOf.map((member, i) => ({ ...this.#child(this.#new, n, member, 'allOf', i), conjunct: true })),
        { schema: without(N, 'allOf'), pointer: n.pointer, part: 'beside allOf', conjunct: true },
      ];
      for (const part of parts) this.#diff(o, part, found);
      const named = (s: Schema) => Object.keys(isSchema(s.properties) ? s.properties : {});
      const kept = new Set(parts.flatMap((part) => named(part.schema)));
      for (const name of named(O).filter((name) => !kept.has(name))) this.#removed(o, name, found);
      return;
    }
    if (Array.isArray(O.allOf)) {
      this.#oldAllOf(o, n, found);
      return;
    }
    if (Array.isArray(N.anyOf ?? N.oneOf) || Array.isArray(O.anyOf ?? O.oneOf)) {
      // Each old variant is judged whole against the new ones; the keywords beside them would count it twice.
      this.#variants(o, n, found);
      return;
    }
    checkTypes(O, N, at, found);
    checkValues(O, N, at, found);
    this.#objects(o, n, found);
    this.#arrays(o, n, found);
    checkBounds(O, N, at, found);
    for (const keyword of new Set([...Object.keys(O), ...Object.keys(N)])) {
      if (JUDGED.has(keyword) || ANNOTATIONS.has(keyword) || same(O[keyword], N[keyword])) continue;
      found.push({
        pointer: at(`/${pointerSegment(keyword)}`),
        kind: 'unverifiable-change',
        message: `${keyword} changed from ${show(O[keyword])} to ${show(N[keyword])}, which this check cannot prove compatible`,
      });
    }
  }

  /** An old `allOf` accepts only what all its members do: it fits when one member, or the keywords beside them, fits. */
  #oldAllOf(o: Located, n: Located, found: Found[]): void {
    const members = o.schema.allOf as unknown[];
    const parts = [
      ...members.map((member, i) => this.#child(this.#old, o, member, 'allOf', i)),
      { schema: without(o.schema, 'allOf'), pointer: o.pointer, part: 'beside allOf' },
    ];
    let fewest: Found[] | undefined;
    for (const part of parts) {
      const scratch = this.#trial(part, n);
      if (scratch.length === 0) return;
      if (fewest === undefined || scratch.length < fewest.length) fewest = scratch;
    }
    found.push(...(fewest ?? []));
  }

  #objects(o: Located, n: Located, found: Found[]): void {
    const O = o.schema;
    const N = n.schema;
    const oldProps = isSchema(O.properties) ? O.properties : {};
    const newProps = isSchema(N.properties) ? N.properties : {};
    for (const [name, schema] of Object.entries(oldProps)) {
      if (!Object.hasOwn(newProps, name)) {
        if (!n.conjunct) this.#removed(o, name, found);
        else if (isSchema(N.additionalProperties))
          this.#diff(
            this.#child(this.#old, o, schema, 'properties', name),
            this.#child(this.#new, n, N.additionalProperties, 'additionalProperties'),
            found,
          );
        continue;
      }
      this.#diff(
        this.#child(this.#old, o, schema, 'properties', name),
        this.#child(this.#new, n, newProps[name], 'properties', name),
        found,
      );
    }
    // A new property takes values the old additionalProperties schema (a record's) judged under its name.
    const rest = O.additionalProperties;
    if (isSchema(rest) && Object.keys(rest).length > 0) {
      for (const [name, schema] of Object.entries(newProps)) {
        if (Object.hasOwn(oldProps, name)) continue;
        this.#diff(this.#child(this.#old, o, rest, 'additionalProperties'), this.#child(this.#new, n, schema, 'properties', name), found);
      }
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

  #removed(o: Located, name: string, found: Found[]): void {
    found.push({
      pointer: `${o.pointer}/properties/${pointerSegment(name)}`,
      kind: 'property-removed',
      message: `property ${show(name)} was removed`,
    });
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

  /**
   * `anyOf`/`oneOf`: every old variant must still be accepted, without a break, by the keywords
   * beside the new ones and by some new variant; by a new `oneOf`, by exactly one, and no other
   * new variant may accept a value of it that the old schema accepted.
   */
  #variants(o: Located, n: Located, found: Found[]): void {
    const keywordOf = (s: Schema) => (Array.isArray(s.anyOf) ? 'anyOf' : Array.isArray(s.oneOf) ? 'oneOf' : undefined);
    const ok = keywordOf(o.schema);
    const nk = keywordOf(n.schema);
    const oldVariants = ok === undefined ? [o] : (o.schema[ok] as unknown[]).map((v, i) => this.#child(this.#old, o, v, ok, i));
    const newVariants = nk === undefined ? [n] : (n.schema[nk] as unknown[]).map((v, i) => this.#child(this.#new, n, v, nk, i));
    const beside =
      nk === undefined ? undefined : { schema: without(n.schema, nk), pointer: n.pointer, part: `beside ${nk}`, conjunct: true };
    const resolver = (document: unknown) => (s: unknown) => this.#child(document, { schema: {}, pointer: '' }, s).schema;
    // A value of `variant` a new variant also accepts is refused by a new oneOf, unless the old schema refused it too (an old oneOf).
    const excluded = (variant: Located, other: Located, i: number) =>
      disjoint(variant.schema, other.schema, resolver(this.#old), resolver(this.#new)) ||
      (ok === 'oneOf' && oldVariants.some((w, j) => j !== i && this.#trial(other, w, true).length === 0));
    const accepted = (variant: Located, i: number) => {
      const by = newVariants.filter((candidate) => this.#trial(variant, candidate).length === 0);
      if (nk !== 'oneOf') return by.length > 0;
      return by.length > 0 && newVariants.every((other) => other === by[0] || excluded(variant, other, i));
    };
    // The keywords beside the new variants apply to every value: what they tighten is reported as it is.
    if (beside !== undefined) {
      const changes = oldVariants.flatMap(eachAlternative).flatMap((variant) => this.#trial(variant, beside));
      found.push(...changes.filter((change, i) => changes.findIndex((c) => same(c, change)) === i));
    }
    oldVariants.forEach((variant, i) => {
      // An old enum or type list may be accepted by several new variants together (`z.enum` rewritten as a union of literals): each value or type by one.
      if (eachAlternative(variant).every((alternative) => accepted(alternative, i))) return;
      found.push({
        pointer: ok === undefined ? o.pointer : `${o.pointer}/${ok}/${i}`,
        kind: 'variant-removed',
        message: `${ok === undefined ? 'the schema' : `variant ${i} of ${ok}`} (${show(variant.schema)}) is no longer accepted as it was by ${nk === undefined ? 'the new schema' : `${nk === 'oneOf' ? 'exactly one' : 'any'} variant of the new ${nk}`}`,
      });
    });
  }
}
