import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalogDocument } from '../../shared/catalog/asyncapi.js';
import { checkCatalog } from '../../shared/catalog/check.js';
import { SchemaDiff } from '../../shared/catalog/schema-diff.js';
import { defineConfig } from '../../shared/config.js';

const base = { source: 'urn:test:schema-diff', topics: [{ name: 'orders' }], routes: { order: 'orders' } } as const;
const declare = (schema: z.ZodType) => defineConfig({ ...base, eventTypes: { 'order.placed': { version: 1, schema } } });
/** The kinds `catalog check` reports from `before` (published) to `after` (current), both zod schemas. */
const check = (before: z.ZodType, after: z.ZodType) => {
  const published = JSON.parse(JSON.stringify(catalogDocument(declare(before)).document));
  const result = checkCatalog(published, declare(after));
  return result.status === 'breaking' ? result.changes.map((c) => c.kind) : [];
};
/** The kinds found from JSON Schema `before` to `after`, each the whole of its document. */
const diff = (before: unknown, after: unknown) => new SchemaDiff({ s: before }, { s: after }).compare('#/s', '#/s').map((f) => f.kind);

type Node = { next?: Node | null; label: string };
const tree = (label: z.ZodType<string>) => {
  const node: z.ZodType<Node> = z.lazy(() => z.object({ next: node.nullable().optional(), label }));
  return z.object({ head: node });
};

describe('schema-diff on recursive schemas', () => {
  it('passes an unchanged recursive nullable schema (a z.lazy list), and fails one whose label is narrowed', () => {
    expect(check(tree(z.string()), tree(z.string()))).toEqual([]);
    expect(check(tree(z.string()), tree(z.string().min(2)))).toContain('constraint-tightened');
  });
});

describe('schema-diff on allOf', () => {
  it('fails a member of allOf narrowed, and passes one widened or unchanged', () => {
    const old = { allOf: [{ type: 'string' }, { minLength: 1 }] };
    expect(diff(old, { allOf: [{ type: 'string' }, { minLength: 3 }] })).toContain('constraint-tightened');
    expect(diff(old, { allOf: [{ type: 'string' }, { minLength: 0 }] })).toEqual([]);
    expect(diff(old, old)).toEqual([]);
  });

  it('fails a zod intersection of a string whose bound is tightened', () => {
    expect(check(z.intersection(z.string().min(1), z.string().max(5)), z.intersection(z.string().min(1), z.string().max(4)))).toContain(
      'constraint-tightened',
    );
    expect(check(z.intersection(z.string().min(1), z.string().max(5)), z.intersection(z.string().min(1), z.string().max(6)))).toEqual([]);
  });

  it('fails a new allOf member the old schema does not satisfy', () => {
    expect(diff({ type: 'string' }, { allOf: [{ type: 'string' }, { pattern: '^a' }] })).toContain('constraint-tightened');
  });
});

describe('schema-diff on anyOf/oneOf', () => {
  const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }] };

  it('fails a constraint added beside a new anyOf', () => {
    expect(diff(nullableString, { ...nullableString, maxLength: 2 })).toContain('constraint-tightened');
    expect(diff(nullableString, { ...nullableString, description: 'a note' })).toEqual([]);
  });

  it('passes a nullable type array rewritten as anyOf, which accepts the same values, and the reverse', () => {
    expect(diff({ type: ['string', 'null'] }, nullableString)).toEqual([]);
    expect(diff(nullableString, { type: ['string', 'null'] })).toEqual([]);
    expect(check(z.object({ a: z.string().nullable() }), z.object({ a: z.union([z.string(), z.null()]) }))).toEqual([]);
    expect(diff({ type: ['string', 'null', 'number'] }, nullableString)).toContain('variant-removed');
  });

  it('fails a new oneOf whose variants both accept an old value (oneOf then rejects it)', () => {
    expect(diff({ type: 'string' }, { oneOf: [{ type: 'string' }, { type: 'string', maxLength: 1 }] })).toContain('variant-removed');
    expect(diff({ type: 'integer' }, { oneOf: [{ type: 'number' }, { type: 'integer' }] })).toContain('variant-removed');
  });

  it('passes a discriminated union that gains a variant, and one left as it was', () => {
    const a = z.object({ kind: z.literal('a'), x: z.string() });
    const b = z.object({ kind: z.literal('b'), y: z.number() });
    const c = z.object({ kind: z.literal('c') });
    expect(check(z.discriminatedUnion('kind', [a, b]), z.discriminatedUnion('kind', [a, b, c]))).toEqual([]);
    expect(check(z.discriminatedUnion('kind', [a, b]), z.discriminatedUnion('kind', [a, b]))).toEqual([]);
    expect(diff({ oneOf: [{ type: 'string' }, { type: 'number' }] }, { oneOf: [{ type: 'string' }, { type: 'number' }] })).toEqual([]);
    // An unchanged oneOf whose variants overlap: the values both accept were refused before as well.
    const overlapping = { oneOf: [{ type: 'number' }, { type: 'integer' }] };
    expect(diff(overlapping, overlapping)).toEqual([]);
    expect(diff({ anyOf: overlapping.oneOf }, overlapping)).toContain('variant-removed');
  });
});

describe('schema-diff on a property beside additionalProperties', () => {
  it('fails a new property that refuses what the old additionalProperties schema accepted under its name', () => {
    const old = { type: 'object', additionalProperties: { type: 'string' } };
    const now = { type: 'object', properties: { b: { type: 'number' } }, additionalProperties: { type: 'string' } };
    expect(diff(old, now)).toContain('type-changed');
    expect(diff(old, { ...now, properties: { b: { type: 'string' } } })).toEqual([]);
  });
});
