import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineConfig } from '../../shared/config.js';
import { catalogSchemas, validateCatalogOption } from '../../shared/consumer/catalog-schemas.js';
import { ConsumerOptionsError, MessageRejectedError } from '../../shared/consumer/errors.js';
import type { OutboxEnvelope } from '../../shared/envelope.js';

const placedV1 = z.object({ orderId: z.string() });
const placedV2 = z.object({ orderId: z.string(), currency: z.string() });
const config = defineConfig({
  source: 'urn:test:shop',
  topics: [{ name: 'orders' }],
  routes: { order: 'orders' },
  eventTypes: {
    'order.placed': [
      { version: 1, schema: placedV1 },
      { version: 2, schema: placedV2 },
    ],
    'order.noted': { version: 1 },
  },
});

const envelope = (fields: Partial<OutboxEnvelope>): OutboxEnvelope => ({
  specversion: '1.0',
  id: '01890a5d-ac96-774b-bcce-b302099a8057',
  source: 'urn:test:shop',
  type: 'order.placed',
  subject: 'o-1',
  time: '2026-01-01T00:00:00.000Z',
  datacontenttype: 'application/json',
  aggregatetype: 'order',
  aggregatesequence: 1,
  sequenceepoch: '2026-01-01T00:00:00.000Z',
  data: null,
  ...fields,
});

describe('catalog: the consumer option', () => {
  it('takes the config defineConfig returns, or its source and eventTypes', () => {
    expect(() => validateCatalogOption(config, [config.source])).not.toThrow();
    expect(() => validateCatalogOption({ source: config.source, eventTypes: config.eventTypes }, undefined)).not.toThrow();
  });

  it.each([
    ['a function (a config factory, not called)', () => config, 'got a function;'],
    ['NaN', Number.NaN, 'got NaN;'],
    ['undefined', undefined, 'got undefined;'],
    ['a string', 'urn:test:shop', 'got "urn:test:shop";'],
    ['a config without eventTypes', { source: 'urn:test:shop' }, 'got a config with no eventTypes;'],
    ['a source that is no string', { source: 7, eventTypes: config.eventTypes }, 'got a config with source 7;'],
  ])('refuses as the catalog %s, showing what was given', (_, catalog, shown) => {
    const attempt = () => validateCatalogOption(catalog, undefined);
    expect(attempt).toThrow(ConsumerOptionsError);
    expect(attempt).toThrow(`${shown} allowed: an outbox config from defineConfig with eventTypes`);
  });

  it.each([
    ['a declaration not in a list, as a config input has it', { 'order.placed': { version: 1, schema: placedV1 } }],
    ['a list holding null', { 'order.placed': [null] }],
    ['a declaration without a version', { 'order.placed': [{ schema: placedV1 }] }],
    ['null', null],
  ])('refuses eventTypes with %s with a ConsumerOptionsError saying what is allowed, not a TypeError', (_, eventTypes) => {
    const attempt = () => validateCatalogOption({ source: 'urn:test:shop', eventTypes }, undefined);
    expect(attempt).toThrow(ConsumerOptionsError);
    expect(attempt).toThrow(/allowed: the config defineConfig returns/);
  });
});

describe('catalog: the schema of an envelope', () => {
  const schemaOf = catalogSchemas(config);

  it('is the version its dataschema names, the oldest without one, none for another source, an undeclared type or a version without schema', () => {
    expect(schemaOf(envelope({ dataschema: 'urn:test:shop#order.placed:2' }))).toBe(placedV2);
    expect(schemaOf(envelope({}))).toBe(placedV1);
    expect(schemaOf(envelope({ source: 'urn:other' }))).toBeUndefined();
    expect(schemaOf(envelope({ type: 'order.cancelled' }))).toBeUndefined();
    expect(schemaOf(envelope({ type: 'order.noted', dataschema: 'urn:test:shop#order.noted:1' }))).toBeUndefined();
  });

  it('rejects an envelope naming a version the catalog does not declare, listing the declared ones', () => {
    const rejected = schemaOf(envelope({ dataschema: 'urn:test:shop#order.placed:3' }));
    expect(rejected).toBeInstanceOf(MessageRejectedError);
    expect((rejected as MessageRejectedError).message).toMatch(
      /order\.placed:3", a version .* allowed: version 1 \(urn:test:shop#order\.placed:1\), version 2/,
    );
  });
});
