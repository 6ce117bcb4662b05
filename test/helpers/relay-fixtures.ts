import { defineConfig } from '../../shared/config.js';
import { Relay } from '../../shared/relay/index.js';
import { type FakeSns, FakeSqs } from './fake-sns.js';

/** The relay unit tests' outbox: a FIFO and a standard topic, three attempts, four requests at once. */
export const config = defineConfig({
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  relay: { maxPublishAttempts: 3, publishConcurrency: 4 },
});
export const topicArns = {
  'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo',
  payments: 'arn:aws:sns:us-east-1:000000000000:payments',
};
export const deadLetterQueueUrl = 'http://localhost/000000000000/relay-dlq';

/** A relay on fakes, with backoffs of a millisecond or two. */
export const relayWith = (sns: FakeSns, sqs = new FakeSqs(), overrides: Partial<typeof config> = {}) =>
  new Relay({ config: { ...config, ...overrides }, sns, sqs, topicArns, deadLetterQueueUrl, backoff: { baseDelayMs: 1, maxDelayMs: 2 } });
