import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIG_ENV, configFromEnv, defineConfig, type OutboxConfigInput, serializeRuntimeConfig } from '../../shared/config.js';
import { OTHER_EVENT_TYPE } from '../../shared/consumer/reporter.js';
import { ConfigError } from '../../shared/errors.js';
import { declaredEventTypes, UNDECLARED_EVENT_TYPE } from '../../shared/lag-by-event-type.js';
import { OTHER_TYPES } from '../../shared/local/stack/stats.js';
import { OTHER_BUCKET } from '../../shared/metric-dimension.js';

const base: OutboxConfigInput = { source: 'urn:example:shop', topics: [{ name: 'orders' }], routes: { order: 'orders' } };

/** `n` declared event types of 20 characters, each with a schema and a one-line description. */
const catalogOf = (n: number): OutboxConfigInput => ({
  ...base,
  eventTypes: Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `order.event-type-${String(i).padStart(3, '0')}`,
      { version: 1, schema: z.object({ orderId: z.string() }), aggregateType: 'order', description: `Order event number ${i}.` },
    ]),
  ),
});

describe('the config and the lag per event type', () => {
  it(`rejects a catalog that declares the reserved ${UNDECLARED_EVENT_TYPE} event type, saying why and what is allowed`, () => {
    const define = () => defineConfig({ ...base, eventTypes: { 'order.placed': { version: 1 }, [UNDECLARED_EVENT_TYPE]: { version: 1 } } });
    expect(define).toThrow(ConfigError);
    expect(define).toThrow(`eventTypes["${UNDECLARED_EVENT_TYPE}"]`);
    expect(define).toThrow(/is reserved: .*lagByEventType.*; allowed: any other name/);
  });

  it("rejects a catalog that declares a type named like the consumer's bucket, which dashboards could not tell apart", () => {
    // The consumer's and the local stack's bucket are the one the config reserves.
    expect([OTHER_EVENT_TYPE, OTHER_TYPES]).toEqual([OTHER_BUCKET, OTHER_BUCKET]);
    const define = () => defineConfig({ ...base, eventTypes: { 'order.placed': { version: 1 }, other: { version: 1 } } });
    expect(define).toThrow(ConfigError);
    expect(define).toThrow('eventTypes["other"]');
    expect(define).toThrow(/is reserved: .*HandledLag.*; allowed: any other name/);
  });

  it('rejects a declared type CloudWatch refuses as a dimension value (non-ASCII), naming it and what is allowed', () => {
    for (const type of ['commande.créée', 'order.placed\u00a0', 'Bestellung.geändert']) {
      const define = () => defineConfig({ ...base, eventTypes: { [type]: { version: 1 } } });
      expect(define).toThrow(ConfigError);
      expect(define).toThrow(`eventTypes[${JSON.stringify(type)}]`);
      expect(define).toThrow(/cannot be a CloudWatch dimension value.*only ASCII.*; allowed: printable ASCII/);
    }
    // Every printable ASCII character, spaces and 256 characters included, is a valid dimension value.
    const printable = Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
    expect(() => defineConfig({ ...base, eventTypes: { [printable]: { version: 1 }, ['t'.repeat(256)]: { version: 1 } } })).not.toThrow();
  });

  it('gives the deployed functions the declared type names, each with its newest version only, and they read back the same names', () => {
    const config = defineConfig({
      ...base,
      eventTypes: {
        'order.placed': [{ version: 1 }, { version: 3, schema: z.object({ id: z.string() }), description: 'Placed.' }],
        'order.paid': { version: 1, aggregateType: 'order' },
      },
      undeclaredEventTypes: 'allow',
    });

    const text = serializeRuntimeConfig(config);

    expect(JSON.parse(text).eventTypes).toEqual({ 'order.placed': { version: 3 }, 'order.paid': { version: 1 } });
    expect(JSON.parse(text)).not.toHaveProperty('undeclaredEventTypes');
    expect(declaredEventTypes(configFromEnv({ [CONFIG_ENV]: text }))).toEqual(new Set(['order.placed', 'order.paid']));
  });

  it('gives the deployed functions no eventTypes when the config declares none, so they measure no lag per event type', () => {
    const text = serializeRuntimeConfig(defineConfig(base));
    expect(JSON.parse(text)).not.toHaveProperty('eventTypes');
    expect(declaredEventTypes(configFromEnv({ [CONFIG_ENV]: text }))).toBeUndefined();
  });

  it('costs the runtime config the names and 17 bytes per type for a 40-type catalog, however large its schemas and descriptions', () => {
    const without = serializeRuntimeConfig(defineConfig(base)).length;
    const forty = serializeRuntimeConfig(defineConfig(catalogOf(40))).length;
    // `,"eventTypes":{}` once, then `"<name>":{"version":1}` per type with a comma between.
    const perType = '"":{"version":1},'.length;
    expect(forty - without).toBe(',"eventTypes":{}'.length + 40 * (20 + perType) - 1);
    expect(forty - without).toBe(1_495);
  });
});
