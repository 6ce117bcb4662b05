import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalogDocument } from '../../shared/catalog/asyncapi.js';
import { checkCatalog } from '../../shared/catalog/check.js';
import { CatalogError } from '../../shared/catalog/errors.js';
import { CONFIG_ALLOWED, defineConfig, type OutboxConfig } from '../../shared/config.js';

const config = defineConfig({
  source: 'urn:test:shop',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
  eventTypes: { 'order.placed': { version: 1, schema: z.object({ total: z.number() }), aggregateType: 'order' } },
});
const published = catalogDocument(config).document;

/** What an adopter may hand the catalog functions from JavaScript, or through a cast. */
const refusedConfigs: [string, unknown, RegExp | string][] = [
  ['null', null, `Invalid catalog option config: got null; allowed: ${CONFIG_ALLOWED}`],
  ['no value', undefined, `Invalid catalog option config: got undefined; allowed: ${CONFIG_ALLOWED}`],
  [
    'an object literal with a topic SNS refuses',
    { source: 'urn:test:shop', topics: [{ name: 'orders fifo' }], routes: { order: 'orders fifo' } },
    /^Invalid catalog option config: is not a valid outbox config \(at topics\[0\]\.name: got "orders fifo" .*\); allowed: the outbox config defineConfig returns \(or an object defineConfig accepts\)$/,
  ],
  [
    'a declaration whose aggregate type has no route',
    {
      source: 'urn:test:shop',
      topics: [{ name: 'orders' }],
      routes: { order: 'orders' },
      eventTypes: { 'x.y': { version: 1, aggregateType: 'payment' } },
    },
    /^Invalid catalog option config: is not a valid outbox config \(at eventTypes.*payment.*\); allowed: the outbox config defineConfig returns/,
  ],
];

describe('catalogDocument and checkCatalog refuse what they cannot use, with a CatalogError naming it', () => {
  it.each(refusedConfigs)('catalogDocument: a config that is %s', (_, given, message) => {
    const call = () => catalogDocument(given as OutboxConfig);
    expect(call).toThrow(CatalogError);
    expect(call).toThrow(message);
    expect(() => checkCatalog(published, given as OutboxConfig)).toThrow(message);
  });

  it('takes an object literal that defineConfig accepts, as defineConfig makes it (a single declaration not in a list)', () => {
    const literal = {
      source: 'urn:test:shop',
      topics: [{ name: 'orders.fifo', fifo: true }],
      routes: { order: 'orders.fifo' },
      eventTypes: { 'order.placed': { version: 1, schema: z.object({ total: z.number() }), aggregateType: 'order' } },
    };
    expect(catalogDocument(literal as unknown as OutboxConfig).document).toEqual(published);
    expect(checkCatalog(published, literal as unknown as OutboxConfig)).toMatchObject({ status: 'compatible', kept: 1 });
  });

  it.each([
    ['a title that is a number', { title: 42 }, /Invalid catalog option title: got 42; allowed: a string that is not blank/],
    [
      'a blank version',
      { version: ' ' },
      /Invalid catalog option version: got " "; allowed: a string that is not blank, or leave it out for the default$/,
    ],
    ['a misspelt key', { titel: 'Orders' }, /Invalid catalog option options: unknown key "titel"; allowed: title, version$/],
    ['null', null, /Invalid catalog option options: got null; allowed: an object with title and version, or leave it out/],
  ])('catalogDocument: options with %s', (_, options, message) => {
    const call = () => catalogDocument(config, options as never);
    expect(call).toThrow(CatalogError);
    expect(call).toThrow(message);
  });

  it('takes a title and a version as given', () => {
    expect(catalogDocument(config, { title: 'Orders', version: '2.1.0' }).document.info).toMatchObject({
      title: 'Orders',
      version: '2.1.0',
    });
  });
});

describe('checkCatalog: a published document it cannot read is refused with a CatalogError that shows what it held', () => {
  const looped: Record<string, unknown> = { type: 'order.placed' };
  looped.self = looped;
  it.each([
    [
      'an asyncapi that is a bigint',
      { asyncapi: 3n },
      /Invalid published catalog at \/asyncapi: got 3n; allowed: an AsyncAPI 3\.0\.0 document/,
    ],
    ['an asyncapi that is a number', { asyncapi: 3 }, /Invalid published catalog at \/asyncapi: got 3; allowed:/],
    [
      "a message's x-outbox-event with a bigint version",
      { asyncapi: '3.0.0', components: { messages: { m: { 'x-outbox-event': { type: 'order.placed', version: 1n, dataschema: 'x' } } } } },
      /Invalid published catalog at \/components\/messages\/m\/x-outbox-event: got \[object Object\]; allowed: \{ type, version, dataschema/,
    ],
    [
      "a message's x-outbox-event that holds itself",
      { asyncapi: '3.0.0', components: { messages: { m: { 'x-outbox-event': looped } } } },
      /Invalid published catalog at \/components\/messages\/m\/x-outbox-event: got \[object Object\]; allowed:/,
    ],
  ])('%s', (_, given, message) => {
    const call = () => checkCatalog(given, config);
    expect(call).toThrow(CatalogError);
    expect(call).toThrow(message);
  });
});

describe('catalogDocument: a schema whose Standard JSON Schema converter answers no JSON Schema object', () => {
  const answering = (answer: unknown) => ({
    '~standard': {
      version: 1 as const,
      vendor: 'handmade',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => answer, output: () => answer },
    },
  });

  it.each([
    ['a string', 'nope', '"nope"'],
    ['a list', [1], '[1]'],
    ['null', null, 'null'],
  ])('leaves data unconstrained with a warning when it answers %s, rather than spreading it into the document', (_, answer, shown) => {
    const declaring = defineConfig({
      source: 'urn:test:shop',
      topics: [{ name: 'orders.fifo', fifo: true }],
      routes: { order: 'orders.fifo' },
      eventTypes: { 'order.placed': { version: 1, schema: answering(answer) as never } },
    });
    const { document, warnings } = catalogDocument(declaring);

    expect((document.components as { schemas: object }).schemas).toEqual({});
    expect(warnings).toEqual([
      `order.placed version 1: its handmade schema's JSON Schema is ${shown}, not a JSON Schema object; its message has no schema for data.`,
    ]);
  });
});
