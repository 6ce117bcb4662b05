import type { StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalogDocument } from '../../shared/catalog/asyncapi.js';
import { checkCatalog } from '../../shared/catalog/check.js';
import { CatalogError } from '../../shared/catalog/errors.js';
import { defineConfig } from '../../shared/config.js';
import type { EventTypeInput } from '../../shared/event-types.js';

const configOf = (eventTypes: Record<string, EventTypeInput>, source = 'urn:test:shop') =>
  defineConfig({
    source,
    topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
    routes: { order: 'orders.fifo', payment: 'payments' },
    eventTypes,
  });
const placed = (schema: StandardSchemaV1, aggregateType = 'order') => ({ 'order.placed': { version: 1, schema, aggregateType } });

const base = z.object({
  orderId: z.string(),
  total: z.number(),
  status: z.enum(['open', 'paid']),
  customer: z.object({ id: z.string(), email: z.string().optional() }),
  lines: z.array(z.object({ sku: z.string(), quantity: z.number().int().min(1) })),
  note: z.string().nullable(),
  payment: z.union([z.object({ card: z.string() }), z.object({ iban: z.string() })]),
});
/** The published document, as `dynamodb-outbox catalog` wrote it (through JSON, as a file holds it). */
const published = JSON.parse(JSON.stringify(catalogDocument(configOf(placed(base))).document));
const check = (eventTypes: Record<string, EventTypeInput>) => checkCatalog(published, configOf(eventTypes));
const S = '/components/schemas/order.placed.v1';

describe('catalog check: additive changes', () => {
  it('finds an unchanged catalog compatible', () => {
    expect(check(placed(base))).toMatchObject({ status: 'compatible', kept: 1, added: [] });
  });

  it.each([
    ['an optional property added', base.extend({ coupon: z.string().optional() })],
    [
      'a nested optional property added',
      base.extend({ customer: z.object({ id: z.string(), email: z.string().optional(), vip: z.boolean().optional() }) }),
    ],
    ['an enum value added', base.extend({ status: z.enum(['open', 'paid', 'shipped']) })],
    ['a required property made optional', base.extend({ orderId: z.string().optional() })],
    ['an integer widened to a number', base.extend({ lines: z.array(z.object({ sku: z.string(), quantity: z.number().min(1) })) })],
    ['a bound loosened', base.extend({ lines: z.array(z.object({ sku: z.string(), quantity: z.number().int().min(0) })) })],
    ['a property made nullable', base.extend({ total: z.number().nullable() })],
    ['a description added', base.extend({ total: z.number().describe('in cents') })],
  ])('finds %s compatible', (_, schema) => {
    expect(check(placed(schema))).toMatchObject({ status: 'compatible', kept: 1 });
  });

  it('finds a new version beside the old one, and a new type, compatible, and lists them as added', () => {
    const result = check({
      'order.placed': [
        { version: 1, schema: base, aggregateType: 'order' },
        { version: 2, schema: z.object({ orderId: z.number() }), aggregateType: 'order' },
      ],
      'payment.captured': { version: 1, schema: z.object({ amount: z.number() }), aggregateType: 'payment' },
    });
    expect(result).toMatchObject({ status: 'compatible', kept: 1 });
    expect(result.added).toEqual([
      { type: 'order.placed', version: 2 },
      { type: 'payment.captured', version: 1 },
    ]);
  });
});

describe('catalog check: breaking changes', () => {
  it.each([
    ['a property removed', base.omit({ note: true }), 'property-removed', `${S}/properties/note`],
    [
      'a property newly required',
      base.extend({ customer: z.object({ id: z.string(), email: z.string() }) }),
      'property-required',
      `${S}/properties/customer/properties/email`,
    ],
    ['a property added as required', base.extend({ currency: z.string() }), 'property-required', `${S}/properties/currency`],
    ['a type changed', base.extend({ total: z.string() }), 'type-changed', `${S}/properties/total/type`],
    ['a number narrowed to an integer', base.extend({ total: z.number().int() }), 'type-changed', `${S}/properties/total/type`],
    ['an enum value removed', base.extend({ status: z.enum(['open']) }), 'enum-value-removed', `${S}/properties/status/enum`],
    ['additionalProperties tightened', z.strictObject(base.shape), 'additional-properties-tightened', `${S}/additionalProperties`],
    [
      'a lower bound raised inside an array',
      base.extend({ lines: z.array(z.object({ sku: z.string(), quantity: z.number().int().min(2) })) }),
      'constraint-tightened',
      `${S}/properties/lines/items/properties/quantity/minimum`,
    ],
    ['a pattern added', base.extend({ orderId: z.string().regex(/^o-/) }), 'constraint-tightened', `${S}/properties/orderId/pattern`],
    ['null no longer allowed', base.extend({ note: z.string() }), 'type-changed', `${S}/properties/note/type`],
    [
      'a union variant removed',
      base.extend({ payment: z.union([z.object({ card: z.string() })]) }),
      'variant-removed',
      `${S}/properties/payment/anyOf/1`,
    ],
  ])('fails on %s, naming the kind and the JSON pointer in the published document', (_, schema, kind, pointer) => {
    const result = check(placed(schema));
    expect(result.status).toBe('breaking');
    if (result.status !== 'breaking') return;
    expect(result.changes).toContainEqual(expect.objectContaining({ type: 'order.placed', version: 1, kind, pointer }));
    expect(result.kept).toBe(0);
  });

  it('fails on a published (type, version) that is no longer declared, even with a newer version beside it', () => {
    const result = check({ 'order.placed': { version: 2, schema: base, aggregateType: 'order' } });
    expect(result).toMatchObject({
      status: 'breaking',
      changes: [{ kind: 'version-removed', pointer: '/components/messages/order.placed.v1' }],
    });
  });

  it('fails on a version moved to another aggregate type, which moves it to another topic', () => {
    const result = check(placed(base, 'payment'));
    expect(result).toMatchObject({ status: 'breaking', changes: [{ kind: 'aggregate-type-changed' }] });
  });

  it('fails on a changed source, which changes every dataschema', () => {
    const result = checkCatalog(published, configOf(placed(base), 'urn:test:other-shop'));
    expect(result).toMatchObject({ status: 'breaking', changes: [{ kind: 'dataschema-changed' }] });
  });

  it('fails when the current schema can no longer be described as JSON Schema, since nothing can then be checked', () => {
    const result = check(placed(v.object({ orderId: v.string() })));
    expect(result).toMatchObject({
      status: 'breaking',
      changes: [{ kind: 'schema-unverifiable', pointer: '/components/messages/order.placed.v1/payload/properties/data' }],
    });
  });

  it('fails on a keyword it cannot judge rather than let it pass', () => {
    // A schema whose Standard JSON Schema says what the test needs it to.
    const hand = (json: Record<string, unknown>) =>
      ({
        '~standard': {
          version: 1,
          vendor: 'hand',
          validate: (value: unknown) => ({ value }),
          jsonSchema: { input: () => json, output: () => json },
        },
      }) as StandardSchemaV1;
    const before = JSON.parse(JSON.stringify(catalogDocument(configOf(placed(hand({ type: 'object' })))).document));
    const result = checkCatalog(before, configOf(placed(hand({ type: 'object', not: { required: ['x'] } }))));
    expect(result).toMatchObject({ status: 'breaking', changes: [{ kind: 'unverifiable-change', pointer: `${S}/not` }] });
  });

  it('compares recursive schemas without looping, and finds a break inside them', () => {
    type Node = { name: string; children: Node[] };
    const tree = (extra: boolean): z.ZodType<Node> => {
      const node: z.ZodType<Node> = z.lazy(() =>
        z.object({ name: extra ? z.string().min(1) : z.string(), children: z.array(node) }),
      ) as z.ZodType<Node>;
      return node;
    };
    const before = JSON.parse(JSON.stringify(catalogDocument(configOf(placed(z.object({ root: tree(false) })))).document));
    expect(checkCatalog(before, configOf(placed(z.object({ root: tree(false) })))).status).toBe('compatible');
    const result = checkCatalog(before, configOf(placed(z.object({ root: tree(true) }))));
    expect(result).toMatchObject({ status: 'breaking', changes: [expect.objectContaining({ kind: 'constraint-tightened' })] });
  });

  it('rejects a published document that is not a catalog, naming where', () => {
    expect(() => checkCatalog({ openapi: '3.1.0' }, configOf(placed(base)))).toThrow(CatalogError);
    expect(() => checkCatalog({ asyncapi: '3.0.0', components: { messages: { m: { payload: {} } } } }, configOf(placed(base)))).toThrow(
      /Invalid published catalog at \/components\/messages\/m\/x-outbox-event: got nothing/,
    );
  });
});
