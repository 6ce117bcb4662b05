import { defineConfig } from 'dynamodb-outbox';

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
});
