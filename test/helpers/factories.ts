import { defineConfig, type OutboxConfig } from '../../shared/config.js';
import type { EventInput } from '../../shared/write/index.js';

export const testConfig = (overrides: Partial<Parameters<typeof defineConfig>[0]> = {}): OutboxConfig =>
  defineConfig({
    source: 'urn:test:shop',
    topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
    routes: { order: 'orders.fifo', payment: 'payments' },
    ...overrides,
  });

let counter = 0;
/** A unique aggregate id per call, so tests sharing a table never collide. */
export const newId = (prefix = 'agg'): string => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export const orderEvent = (id: string, type = 'order.placed', data: unknown = { total: 42 }): EventInput => ({
  aggregate: { type: 'order', id },
  type,
  data,
});
