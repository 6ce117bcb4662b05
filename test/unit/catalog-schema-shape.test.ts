import type { StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalogDocument } from '../../shared/catalog/asyncapi.js';
import { CatalogError } from '../../shared/catalog/errors.js';
import { defineConfig } from '../../shared/config.js';
import type { EventTypeInput } from '../../shared/event-types.js';

/** A schema whose Standard JSON Schema converter answers `json`. */
const answering = (json: unknown): StandardSchemaV1 =>
  ({
    '~standard': {
      version: 1,
      vendor: 'handmade',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  }) as StandardSchemaV1;

const configOf = (declared: EventTypeInput) =>
  defineConfig({
    source: 'urn:test:shop',
    topics: [{ name: 'orders.fifo', fifo: true }],
    routes: { order: 'orders.fifo' },
    eventTypes: { 'order.placed': declared },
  });

const refusal = (declared: EventTypeInput): CatalogError => {
  const config = configOf(declared);
  try {
    catalogDocument(config);
  } catch (error) {
    if (error instanceof CatalogError) return error;
    throw error;
  }
  throw new Error('catalogDocument accepted the schema');
};

describe('catalogDocument: a declared schema whose JSON Schema is malformed', () => {
  it.each([
    [
      { type: 'foo' },
      '/type is "foo"',
      'allowed: one of "array", "boolean", "integer", "null", "number", "object", "string", or a list of them',
    ],
    [{ type: ['string', 'string'] }, '/type is ["string","string"]', 'a list of them, each once'],
    [{ required: 'x' }, '/required is "x"', 'allowed: a list of property names, each once'],
    [{ properties: [] }, '/properties is []', 'allowed: an object mapping each name to a schema'],
    [{ type: 'object', properties: { total: { type: 'numbr' } } }, '/properties/total/type is "numbr"', 'allowed: one of'],
    [{ properties: { total: 5 } }, '/properties/total is 5', 'allowed: a schema: an object or a boolean'],
    [{ anyOf: [] }, '/anyOf is []', 'allowed: a non-empty list of schemas'],
    [{ items: ['x'] }, '/items/0 is "x"', 'allowed: a schema'],
    [{ enum: 'a' }, '/enum is "a"', 'allowed: a list of the values allowed'],
    [{ minLength: -1 }, '/minLength is -1', 'allowed: a whole number, 0 or more'],
    [{ maximum: '10' }, '/maximum is "10"', 'allowed: a number'],
    [{ multipleOf: 0 }, '/multipleOf is 0', 'allowed: a number above 0'],
    [{ pattern: '(' }, '/pattern is "("', 'allowed: a regular expression'],
    [{ $ref: 7 }, '/$ref is 7', 'allowed: a URI reference'],
    [{ definitions: { 'a/b': { required: [1] } } }, '/definitions/a~1b/required is [1]', 'a list of property names'],
  ])('refuses %j, naming the event type, the version, the keyword, what it held and what is allowed', (json, held, allowed) => {
    const error = refusal({ version: 3, schema: answering(json) });
    expect(error.code).toBe('INVALID_EVENT_SCHEMA');
    expect(error.field).toBe('eventTypes["order.placed"]');
    expect(error.message).toMatch(/^Invalid event schema at eventTypes\["order.placed"\]: /);
    expect(error.message).toContain(`version 3: its handmade schema's JSON Schema (~standard.jsonSchema) is malformed: ${held}; `);
    expect(error.message).toContain(allowed);
  });

  it('is left to the catalog: defineConfig does not convert schemas (a function that only validates with them starts without it)', () => {
    let conversions = 0;
    const counted = answering({ type: 'foo' });
    const convert = counted['~standard'] as unknown as { jsonSchema: { input: () => unknown } };
    const input = convert.jsonSchema.input;
    convert.jsonSchema.input = () => {
      conversions++;
      return input();
    };
    const config = configOf({ version: 1, schema: counted });
    expect(conversions).toBe(0);
    expect(() => catalogDocument(config)).toThrow(CatalogError);
    expect(conversions).toBe(1);
  });

  it('names the declaration in a list of versions', () => {
    const error = refusal([{ version: 1 }, { version: 2, schema: answering({ required: 'x' }) }]);
    expect(error.field).toBe('eventTypes["order.placed"]');
    expect(error.message).toContain('version 2: ');
  });
});

describe('catalogDocument: a declared schema whose JSON Schema holds a cycle', () => {
  /** `{ type: 'object', properties: { … } }` where `place` puts the object itself somewhere inside it. */
  const cyclic = (place: (self: Record<string, unknown>) => void) => {
    const self: Record<string, unknown> = { type: 'object', properties: { total: { type: 'number' } } };
    place(self);
    return self;
  };

  const nested = (self: Record<string, unknown>) => {
    const line: Record<string, unknown> = { type: 'object' };
    line.properties = { parts: { type: 'array', items: line } };
    Object.assign(self.properties as object, { line });
  };

  it.each([
    [
      'a property',
      (self: Record<string, unknown>) => Object.assign(self.properties as object, { child: self }),
      '/properties/child',
      'the whole schema',
    ],
    [
      'a list of schemas',
      (self: Record<string, unknown>) => Object.assign(self, { anyOf: [{ type: 'null' }, self] }),
      '/anyOf/1',
      'the whole schema',
    ],
    [
      'a keyword it does not check',
      (self: Record<string, unknown>) => Object.assign(self, { 'x-meta': { of: self } }),
      '/x-meta/of',
      'the whole schema',
    ],
    [
      'a definition',
      (self: Record<string, unknown>) => Object.assign(self, { definitions: { node: { items: [self] } } }),
      '/definitions/node/items/0',
      'the whole schema',
    ],
    ['a subschema', nested, '/properties/line/properties/parts/items', 'its enclosing subschema /properties/line'],
  ])(
    'refuses one through %s with the typed error, naming the event type, the version and where the cycle closes',
    (_, place, pointer, outer) => {
      const error = refusal({ version: 2, schema: answering(cyclic(place)) });
      expect(error.code).toBe('INVALID_EVENT_SCHEMA');
      expect(error.field).toBe('eventTypes["order.placed"]');
      expect(error.message).toContain(
        `version 2: its handmade schema's JSON Schema (~standard.jsonSchema) is malformed: ${pointer} is ${outer} again, a cycle JSON cannot write; `,
      );
      expect(error.message).toContain('allowed: a tree of JSON values; a recursive schema refers to itself by $ref');
    },
  );

  it('takes a subschema shared between places (no cycle), each place written out in full', () => {
    const shared = { type: 'string', minLength: 1 };
    const json = { type: 'object', properties: { a: shared, b: shared, c: { anyOf: [shared, { type: 'null' }] } } };
    const { document, warnings } = catalogDocument(configOf({ version: 1, schema: answering(json) }));
    expect(warnings).toEqual([]);
    const written = JSON.parse(JSON.stringify(document)).components.schemas['order.placed.v1'];
    expect(written.properties).toEqual({ a: shared, b: shared, c: { anyOf: [shared, { type: 'null' }] } });
  });
});

describe('catalogDocument: a declared schema whose JSON Schema holds a value JSON cannot write', () => {
  it.each([
    ['a bigint in an enum', { type: 'integer', enum: [1, 2n] }, '/enum/1 is 2n'],
    ['NaN as a const, which JSON would write as null', { type: 'number', const: Number.NaN }, '/const is NaN'],
    ['Infinity as a default', { type: 'number', default: Number.POSITIVE_INFINITY }, '/default is Infinity'],
    ['a function under a keyword it does not check', { type: 'string', 'x-meta': { make: () => 'x' } }, '/x-meta/make is a function'],
    ['a symbol in examples', { type: 'string', examples: [Symbol('s')] }, '/examples/0 is Symbol(s)'],
    ['a bigint in a subschema', { type: 'object', properties: { total: { const: 10n } } }, '/properties/total/const is 10n'],
  ])('refuses one with %s, where the document would fail to be written or say something else', (_, json, shown) => {
    const error = refusal({ version: 1, schema: answering(json) });
    expect(error.code).toBe('INVALID_EVENT_SCHEMA');
    expect(error.message).toContain(
      `version 1: its handmade schema's JSON Schema (~standard.jsonSchema) is malformed: ${shown}, which JSON cannot write as it is; allowed: JSON values`,
    );
  });
});

describe('catalogDocument: declared schemas whose JSON Schema is well-formed, or that have none', () => {
  it('takes what zod converts, across the keywords the catalog reads', () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) })) as z.ZodType<Node>;
    const schema = z.object({
      id: z.string().uuid(),
      code: z.string().regex(/^[A-Z]{3}-\d+$/),
      total: z.number().positive().multipleOf(0.01).max(1e6),
      count: z.number().int().min(0),
      status: z.enum(['open', 'paid']),
      kind: z.literal('order'),
      note: z.string().max(200).nullable().optional(),
      lines: z
        .array(z.object({ sku: z.string().min(1), qty: z.number().int() }))
        .min(1)
        .max(100),
      pair: z.tuple([z.string(), z.number()]),
      tags: z.record(z.string(), z.boolean()),
      either: z.union([z.string(), z.number()]),
      both: z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })),
      tree: node,
    });
    expect(catalogDocument(configOf({ version: 1, schema })).warnings).toEqual([]);
  });

  it('takes boolean subschemas, a list of types, and keywords it does not check', () => {
    const json = {
      type: ['object', 'null'],
      properties: { a: true, b: false },
      additionalProperties: false,
      'x-owner': 'billing',
      dependencies: 'x',
    };
    expect(catalogDocument(configOf({ version: 1, schema: answering(json) })).warnings).toEqual([]);
  });

  it('takes a schema whose converter has no JSON Schema, throws or answers no object: the document warns instead', () => {
    const throwing = {
      '~standard': {
        version: 1,
        vendor: 'handmade',
        validate: (value: unknown) => ({ value }),
        jsonSchema: {
          input: () => {
            throw new Error('cannot convert');
          },
          output: () => ({}),
        },
      },
    } as StandardSchemaV1;
    for (const schema of [v.object({ id: v.string() }), throwing, answering('nope'), z.object({ at: z.date() })]) {
      const config = configOf({ version: 1, schema });
      expect(catalogDocument(config).warnings).toHaveLength(1);
    }
  });
});
