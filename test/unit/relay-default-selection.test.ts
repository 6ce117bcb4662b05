import { describe, expect, it, vi } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { relayIgnoredAggregateTypes } from '../../shared/publishing-paths.js';
import { Relay } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { slotRecord } from '../helpers/stream-records.js';

// Counts how often the default selection is worked out; it still answers as the real one.
vi.mock('../../shared/publishing-paths.js', async (original) => {
  const actual = await original<typeof import('../../shared/publishing-paths.js')>();
  return { ...actual, relayIgnoredAggregateTypes: vi.fn(actual.relayIgnoredAggregateTypes) };
});

const config = defineConfig({
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }, { name: 'refunds' }],
  routes: { order: 'orders.fifo', payment: 'payments', refund: 'refunds' },
  lowLatencyAggregateTypes: ['payment', 'refund'],
  handoverAggregateTypes: ['refund'],
});
const topicArns = {
  'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo',
  payments: 'arn:aws:sns:us-east-1:000000000000:payments',
  refunds: 'arn:aws:sns:us-east-1:000000000000:refunds',
};
const deadLetterQueueUrl = 'http://localhost/000000000000/relay-dlq';

describe("the relay's default aggregate-type selection", () => {
  it('is worked out once per Relay and still leaves only the low-latency types not handed over to the processor', async () => {
    const resolve = vi.mocked(relayIgnoredAggregateTypes);
    resolve.mockClear();
    const sns = new FakeSns();
    const relay = new Relay({ config, sns, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl });
    expect(resolve).toHaveBeenCalledTimes(1);
    for (let batch = 0; batch < 3; batch++) {
      const result = await relay.relay(['order', 'payment', 'refund'].map((type) => slotRecord({ type, id: `${type}-${batch}` })));
      expect(result.outcomes.map((o) => o.status)).toEqual(['delivered', 'ignored', 'delivered']);
    }
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(sns.requests.map((r) => r.topicArn.split(':').pop()).sort()).toEqual([
      ...Array(3).fill('orders.fifo'),
      ...Array(3).fill('refunds'),
    ]);
  });
});
