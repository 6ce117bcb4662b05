import specs from '@asyncapi/specs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalogDocument } from '../../shared/catalog/asyncapi.js';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { messageAttributes, slotMessages } from '../../shared/envelope.js';
import { atPointer } from '../../shared/json-schema/keywords.js';
import type { OutboxSlot } from '../../shared/slot.js';
import { planSlots } from '../../shared/write/input.js';

// ajv-formats is CommonJS: its default export is the function under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

const Line = z.object({ sku: z.string(), quantity: z.number().int().positive() }).meta({ id: 'Line' });
const placedV1 = z.object({ orderId: z.string(), lines: z.array(Line), total: z.number(), note: z.string().optional() });
const input: OutboxConfigInput = {
  source: 'urn:test:shop',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  eventTypes: {
    'order.placed': [
      { version: 1, schema: placedV1, aggregateType: 'order', description: 'An order was placed.' },
      { version: 2, schema: placedV1.extend({ currency: z.enum(['EUR', 'USD']) }), aggregateType: 'order' },
    ],
    'payment.captured': { version: 1, schema: v.object({ amount: v.number() }), aggregateType: 'payment' },
    'audit.noted': { version: 1, schema: z.object({ by: z.string() }) },
  },
};
const config = defineConfig(input);
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/**
 * The official AsyncAPI 3.0.0 JSON Schema (draft-07). It bundles the draft-07 meta-schema under
 * that meta-schema's own `$id`, so Ajv runs without its built-in copy (`meta: false`).
 */
function asyncApiValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true, meta: false, validateSchema: false });
  addFormats(ajv);
  return ajv.compile(specs.schemas['3.0.0']);
}

/** Every `$ref` value in `value`. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push(inner);
      else refsIn(inner, found);
    }
  }
  return found;
}

/** An envelope as the relay publishes it, for one event written with `config`. */
function publishedEnvelope(
  type: string,
  aggregateType: string,
  data: unknown,
  trace: { traceparent?: string; tracestate?: string } = {},
): unknown {
  const stamp = () => ({ id: '01890a5d-ac96-774b-bcce-b302099a8057', time: '2026-01-01T00:00:00.000Z' });
  const [slot] = planSlots([{ aggregate: { type: aggregateType, id: 'a-1' }, type, data, ...trace }], config, stamp);
  const item = {
    pk: slot?.pk,
    sk: 'OUTBOX',
    kind: 'outbox-slot',
    aggregateType,
    aggregateId: 'a-1',
    source: config.source,
    seq: 1,
    createdAt: stamp().time,
    events: slot?.events,
    expiresAt: 1,
  };
  return JSON.parse(slotMessages(item as OutboxSlot)[0]?.body as string);
}

describe('catalog: the AsyncAPI document', () => {
  const { document, warnings } = catalogDocument(config, { title: 'Shop events', version: '3.1.0' });

  it('is valid against the official AsyncAPI 3.0.0 JSON Schema', () => {
    const validate = asyncApiValidator();
    expect(validate(document), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });

  it('is refused by that schema when broken, so the validation above is not vacuous', () => {
    const validate = asyncApiValidator();
    const broken = structuredClone(document) as unknown as { operations: Record<string, { action: string }> };
    (broken.operations['send.payments'] as { action: string }).action = 'publish';
    expect(validate(broken)).toBe(false);
  });

  it('resolves every $ref inside the document', () => {
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(atPointer(document, ref), ref).toBeDefined();
  });

  it('makes each topic a channel addressed by its name, with the FIFO ordering, message group and deduplication id of a FIFO topic', () => {
    const channels = document.channels as Record<string, Record<string, unknown>>;
    expect(channels['orders.fifo']).toMatchObject({
      address: 'orders.fifo',
      bindings: { sns: { name: 'orders.fifo', ordering: { type: 'FIFO' } } },
      'x-outbox-fifo': { messageGroupId: '<aggregatetype>#<subject>', messageDeduplicationId: '<id>' },
    });
    expect(channels.payments?.bindings).toEqual({ sns: { name: 'payments', bindingVersion: '0.1.0' } });
    expect(channels.payments).not.toHaveProperty('x-outbox-fifo');
    expect(document.operations).toMatchObject({ 'send.orders.fifo': { action: 'send', channel: { $ref: '#/channels/orders.fifo' } } });
  });

  it('puts a version on its aggregate type’s topic, and one without an aggregate type on every topic', () => {
    const channels = document.channels as Record<string, { messages: Record<string, unknown> }>;
    expect(Object.keys(channels['orders.fifo']?.messages ?? {})).toEqual(['order.placed.v1', 'order.placed.v2', 'audit.noted.v1']);
    expect(Object.keys(channels.payments?.messages ?? {})).toEqual(['payment.captured.v1', 'audit.noted.v1']);
  });

  it('describes each (type, version) by its headers (the SNS attributes), its dataschema and its data schema', () => {
    const messages = (document.components as { messages: Record<string, Record<string, unknown>> }).messages;
    expect(messages['order.placed.v1']).toMatchObject({
      name: 'order.placed',
      summary: 'An order was placed.',
      contentType: 'application/cloudevents+json',
      headers: { properties: { type: { const: 'order.placed' }, aggregatetype: { const: 'order' } } },
      payload: {
        properties: { dataschema: { const: 'urn:test:shop#order.placed:1' }, data: { $ref: '#/components/schemas/order.placed.v1' } },
      },
      'x-outbox-event': { type: 'order.placed', version: 1, dataschema: 'urn:test:shop#order.placed:1', aggregateType: 'order' },
    });
    expect(document.info).toMatchObject({ title: 'Shop events', version: '3.1.0' });
  });

  it('names in its headers every SNS message attribute the relay sets, the trace context among them, and requires only type and aggregatetype', () => {
    const messages = (document.components as { messages: Record<string, { headers: Record<string, unknown> }> }).messages;
    const headers = messages['order.placed.v1']?.headers as { properties: Record<string, unknown>; required: string[] };
    const traced = messageAttributes('order.placed', 'order', { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' });
    expect(Object.keys(headers.properties).sort()).toEqual(Object.keys(traced).sort());
    expect(headers.required).toEqual(['type', 'aggregatetype']);
    const values = Object.fromEntries(Object.entries(traced).map(([name, { StringValue }]) => [name, StringValue]));
    const validate = new Ajv({ strict: false }).compile(headers);
    expect(validate(values)).toBe(true);
    expect(validate({ ...values, traceparent: 'not-a-traceparent' })).toBe(false);
    // JSON Schema recommends a regular expression subset without lookahead, which validators outside JavaScript may lack.
    expect((headers.properties.traceparent as { pattern: string }).pattern).not.toContain('(?');
  });

  it('accepts the envelope the relay publishes for a valid event, and refuses one whose data the schema refuses', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, 'catalog');
    const validate = ajv.getSchema('catalog#/components/messages/order.placed.v2/payload');
    const data = { orderId: 'o-1', lines: [{ sku: 'A', quantity: 2 }], total: 5, currency: 'EUR' };
    expect(validate?.(publishedEnvelope('order.placed', 'order', data)), JSON.stringify(validate?.errors)).toBe(true);
    const traced = publishedEnvelope('order.placed', 'order', data, { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' });
    expect(traced).toMatchObject({ traceparent: TRACEPARENT });
    expect(validate?.(traced), JSON.stringify(validate?.errors)).toBe(true);
    const wrong = publishedEnvelope('order.placed', 'order', data) as { data: { lines: { quantity: number }[] } };
    (wrong.data.lines[0] as { quantity: number }).quantity = 0;
    expect(validate?.(wrong)).toBe(false);
  });

  it('warns for a schema without Standard JSON Schema support and leaves its data unconstrained', () => {
    expect(warnings).toEqual([expect.stringMatching(/^payment\.captured version 1: its valibot schema offers no JSON Schema/)]);
    const message = (document.components as { messages: Record<string, { payload: { properties: { data: unknown } } }> }).messages[
      'payment.captured.v1'
    ];
    expect(message?.payload.properties.data).toEqual({});
    expect(message).not.toHaveProperty(['x-outbox-event', 'schema']);
  });

  it('gives event types that are not component names a safe, unique message id', () => {
    const odd = defineConfig({ ...input, eventTypes: { 'order placed': { version: 1 }, order_placed: { version: 1 } } });
    const messages = (catalogDocument(odd).document.components as { messages: Record<string, unknown> }).messages;
    expect(Object.keys(messages)).toEqual(['order_placed.v1', 'order_placed.v1_2']);
    expect(asyncApiValidator()(catalogDocument(odd).document)).toBe(true);
  });
});
