import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIG_ENV, configFromEnv, defineConfig, type OutboxConfigInput, serializeConfig } from '../../shared/config.js';
import { ConfigError, EnvironmentError } from '../../shared/errors.js';
import { dataschemaOf } from '../../shared/event-types.js';

const base = {
  source: 'urn:test:catalog',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
} as const;
const placedV1 = z.object({ orderId: z.string(), total: z.number() });
const placedV2 = z.object({ orderId: z.string(), total: z.object({ amount: z.number(), currency: z.string() }) });

const configWith = (extra: Partial<OutboxConfigInput>) => defineConfig({ ...base, ...extra } as OutboxConfigInput);

/** The ConfigError `run` throws. */
function refusal(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('config: event types', () => {
  it('leaves a config without eventTypes as it was, down to its JSON', () => {
    const config = defineConfig(base);
    expect(config).not.toHaveProperty('eventTypes');
    expect(config).not.toHaveProperty('undeclaredEventTypes');
    expect(JSON.parse(serializeConfig(config))).not.toHaveProperty('eventTypes');
  });

  it('takes one declaration or a list of versions per type, orders the versions and rejects undeclared types by default', () => {
    const config = configWith({
      eventTypes: {
        'order.placed': [
          { version: 2, schema: placedV2, aggregateType: 'order' },
          { version: 1, schema: placedV1, aggregateType: 'order', description: 'An order was placed.' },
        ],
        'payment.captured': { version: 1, schema: v.object({ amount: v.number() }) },
      },
    });
    expect(config.eventTypes?.['order.placed']?.map((d) => d.version)).toEqual([1, 2]);
    expect(config.eventTypes?.['order.placed']?.[0]).toMatchObject({ description: 'An order was placed.', aggregateType: 'order' });
    expect(config.eventTypes?.['payment.captured']).toHaveLength(1);
    expect(config.undeclaredEventTypes).toBe('reject');
    expect(configWith({ eventTypes: { a: { version: 1 } }, undeclaredEventTypes: 'allow' }).undeclaredEventTypes).toBe('allow');
  });

  it('serialises without the schemas, and reads back the same types and versions with none', () => {
    const config = configWith({
      eventTypes: {
        'order.placed': [
          { version: 1, schema: placedV1 },
          { version: 2, schema: placedV2 },
        ],
      },
    });
    const text = serializeConfig(config);
    expect(JSON.parse(text).eventTypes).toEqual({ 'order.placed': [{ version: 1 }, { version: 2 }] });
    expect(JSON.stringify(config)).toBe(text);
    const read = configFromEnv({ [CONFIG_ENV]: text });
    expect(read.eventTypes?.['order.placed']).toEqual([{ version: 1 }, { version: 2 }]);
    expect(read.undeclaredEventTypes).toBe('reject');
  });

  it('names a version by the source with a fragment of the type (percent-encoded) and the version', () => {
    expect(dataschemaOf('urn:example:shop', 'order.placed', 2)).toBe('urn:example:shop#order.placed:2');
    expect(dataschemaOf('https://shop.example.com/orders', 'Order Placed/ü', 1)).toBe(
      'https://shop.example.com/orders#Order%20Placed%2F%C3%BC:1',
    );
  });

  it.each([
    ['an empty object', {}, 'eventTypes', /allowed: a non-empty object/],
    ['an array', [], 'eventTypes', /allowed: a non-empty object/],
    ['a version 0', { a: { version: 0 } }, 'eventTypes["a"].version', /got 0; allowed: a positive whole number/],
    ['a version 1.5', { a: { version: 1.5 } }, 'eventTypes["a"].version', /got 1.5; allowed: a positive whole number/],
    ['a version as a string', { a: { version: '1' } }, 'eventTypes["a"].version', /got "1"; allowed: a positive whole number/],
    ['a version NaN, shown as NaN', { a: { version: Number.NaN } }, 'eventTypes["a"].version', /got NaN; allowed: a positive whole number/],
    ['an infinite version', { a: { version: Number.POSITIVE_INFINITY } }, 'eventTypes["a"].version', /got Infinity; allowed/],
    ['no version', { a: { schema: placedV1 } }, 'eventTypes["a"].version', /got undefined/],
    ['a version twice', { a: [{ version: 1 }, { version: 1 }] }, 'eventTypes["a"]', /declares version 1 twice/],
    ['an empty list', { a: [] }, 'eventTypes["a"]', /got \[\]/],
    [
      'a schema that is no Standard Schema',
      { a: { version: 1, schema: { parse: () => 1 } } },
      'eventTypes["a"].schema',
      /not a Standard Schema/,
    ],
    [
      'an unrouted aggregate type',
      { a: { version: 1, aggregateType: 'invoice' } },
      'eventTypes["a"].aggregateType',
      /got "invoice"; allowed: a routed aggregate type \("order", "payment"\)/,
    ],
    [
      'an unknown key',
      { a: { version: 1, schemas: placedV1 } },
      'eventTypes["a"].schemas',
      /unknown key "schemas"; allowed: version, schema, aggregateType, description/,
    ],
    [
      'a blank description',
      { a: { version: 1, description: ' ' } },
      'eventTypes["a"].description',
      /got " "; allowed: a string that is not blank, or leave it out/,
    ],
    ['a type with a control character', { 'a\u0007': { version: 1 } }, 'eventTypes["a\\u0007"]', /event type "a\\u0007" is not allowed/],
    [
      'a blank type',
      { ' ': { version: 1 } },
      'eventTypes[" "]',
      /is not allowed; allowed: a string that is not blank, of at most 256 characters/,
    ],
    ['a type of 257 characters', { ['t'.repeat(257)]: { version: 1 } }, `eventTypes["${'t'.repeat(257)}"]`, /at most 256 characters/],
  ])('rejects %s, naming the field, what was given and what is allowed', (_, eventTypes, field, message) => {
    const error = refusal(() => configWith({ eventTypes: eventTypes as never }));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it('rejects eventTypes beside a source that cannot carry a dataschema fragment (relative, or with a fragment)', () => {
    for (const source of ['shop/orders', '/orders', 'urn:example:shop#x']) {
      const error = refusal(() => defineConfig({ ...base, source, eventTypes: { a: { version: 1 } } }));
      expect(error.field).toBe('eventTypes');
      expect(error.message).toContain(`got source ${JSON.stringify(source)}`);
    }
  });

  it('rejects undeclaredEventTypes without eventTypes, and values other than "reject" and "allow"', () => {
    expect(refusal(() => configWith({ undeclaredEventTypes: 'allow' })).message).toMatch(/without eventTypes/);
    const error = refusal(() => configWith({ eventTypes: { a: { version: 1 } }, undeclaredEventTypes: 'strict' as never }));
    expect(error.message).toMatch(/got "strict"; allowed: "reject" or "allow"/);
  });

  it('fails configFromEnv with the variable name when the JSON catalog is invalid', () => {
    const text = JSON.stringify({ ...base, eventTypes: { a: { version: -1 } } });
    expect(() => configFromEnv({ [CONFIG_ENV]: text })).toThrow(EnvironmentError);
    expect(() => configFromEnv({ [CONFIG_ENV]: text })).toThrow(/OUTBOX_CONFIG.*eventTypes\["a"\]\.version/);
  });
});
