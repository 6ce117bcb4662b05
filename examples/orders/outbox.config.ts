import { defineConfig } from 'dynamodb-outbox';
import { z } from 'zod';

/** The data of each event type the app writes: the write helper checks it, the consumer too. */
export const eventSchemas = {
  orderPlaced: z.object({ total: z.number().nonnegative(), currency: z.string().regex(/^[A-Z]{3}$/) }),
  orderCancelled: z.object({ reason: z.string().min(1).max(200) }),
  paymentCaptured: z.object({ orderId: z.string().min(1), amount: z.number().nonnegative() }),
};

/**
 * The outbox configuration of this repository's app: the CDK stack deploys it and `npm start`
 * runs it locally, so both see the same topics, routes and tuning.
 */
export const config = defineConfig({
  source: 'urn:dynamodb-outbox:example-shop',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: {
    order: 'orders.fifo',
    payment: 'payments',
  },
  lowLatencyAggregateTypes: [],
  outboxRetentionSeconds: 7 * 24 * 3600,
  // Every published event kept a year in S3, so `npx dynamodb-outbox replay` can send it again (docs/replay.md).
  archive: { retentionDays: 365 },
  // `npx dynamodb-outbox catalog --config examples/orders/outbox.config.ts` (under tsx) documents them.
  eventTypes: {
    'order.placed': { version: 1, schema: eventSchemas.orderPlaced, aggregateType: 'order', description: 'An order was placed.' },
    'order.cancelled': { version: 1, schema: eventSchemas.orderCancelled, aggregateType: 'order', description: 'An order was cancelled.' },
    'payment.captured': {
      version: 1,
      schema: eventSchemas.paymentCaptured,
      aggregateType: 'payment',
      description: 'The payment of an order was captured.',
    },
  },
});
