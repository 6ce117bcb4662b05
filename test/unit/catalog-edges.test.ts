import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalogDocument } from '../../shared/catalog/asyncapi.js';
import { checkCatalog } from '../../shared/catalog/check.js';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { Outbox } from '../../shared/write/index.js';

const base = { source: 'urn:test:review', topics: [{ name: 'orders' }], routes: { order: 'orders' } } as const;
const catalogConfig = (extra: Partial<OutboxConfigInput> = {}) =>
  defineConfig({ ...base, eventTypes: { 'order.placed': { version: 1, schema: z.object({ note: z.string() }) } }, ...extra });

/** A write helper over a client that records each transaction and answers as a commit. */
function recordingOutbox(config: ReturnType<typeof catalogConfig>) {
  const sent: { TransactItems: { Put?: { Item: Record<string, unknown> }; Update?: unknown }[] }[] = [];
  const client = {
    config: {},
    send: async (command: { input: (typeof sent)[number] }) => {
      sent.push(command.input);
      return {};
    },
  };
  return { outbox: new Outbox({ config, tableName: 'outbox', client: client as never }), sent };
}

describe('a write without events under a catalog', () => {
  it('sends a write of business operations alone (events left out, as the helper allows) under a config with eventTypes', async () => {
    const { outbox, sent } = recordingOutbox(catalogConfig());
    const input = { operations: [{ Put: { Item: { pk: 'ORDER#1', sk: 'A' } } }] } as unknown as Parameters<Outbox['write']>[0];
    // Without eventTypes the same write is sent; with them it must not fail differently.
    const plain = recordingOutbox(defineConfig(base) as ReturnType<typeof catalogConfig>);
    await plain.outbox.write(input);
    expect(plain.sent).toHaveLength(1);
    await outbox.write(input);
    expect(sent).toHaveLength(1);
  });
});

describe('catalog check on an enum written as a union of literals', () => {
  it('passes an enum rewritten as a union of the same literals, which accepts exactly the same values', () => {
    const declare = (status: z.ZodType) =>
      defineConfig({ ...base, eventTypes: { 'order.placed': { version: 1, schema: z.object({ status }) } } });
    const published = JSON.parse(JSON.stringify(catalogDocument(declare(z.enum(['open', 'shipped']))).document));
    const result = checkCatalog(published, declare(z.union([z.literal('open'), z.literal('shipped')])));
    expect(result.status === 'breaking' ? result.changes : []).toEqual([]);
  });

  it('passes a union of literals that gains a value, and fails one that loses a value', () => {
    const declare = (status: z.ZodType) =>
      defineConfig({ ...base, eventTypes: { 'order.placed': { version: 1, schema: z.object({ status }) } } });
    const published = JSON.parse(JSON.stringify(catalogDocument(declare(z.enum(['open', 'shipped']))).document));
    const gained = checkCatalog(published, declare(z.union([z.literal('open'), z.literal('shipped'), z.literal('returned')])));
    const lost = checkCatalog(published, declare(z.union([z.literal('open')])));
    expect(gained.status).toBe('compatible');
    expect(lost.status).toBe('breaking');
  });
});
