import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { ConfigError } from '../../shared/errors.js';
import { Relay, type RelayOptions } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { slotRecord } from '../helpers/stream-records.js';

const config = defineConfig({
  source: 'urn:test:unit',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  lowLatencyAggregateTypes: ['payment'],
});
const topicArns = {
  'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo',
  payments: 'arn:aws:sns:us-east-1:000000000000:payments',
};
const deadLetterQueueUrl = 'http://localhost/000000000000/relay-dlq';

describe('relay restricted to a set of aggregate types (the stream processor’s share)', () => {
  it('publishes only the listed aggregate types and reports the others ignored', async () => {
    const sns = new FakeSns();
    const relay = new Relay({ config, sns, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl, onlyAggregateTypes: ['payment'] });
    const result = await relay.relay([slotRecord({ type: 'order', id: 'o-1' }), slotRecord({ type: 'payment', id: 'p-1' })]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['ignored', 'delivered']);
    expect(sns.requests.map((r) => r.topicArn)).toEqual([topicArns.payments]);
  });

  it('leaves the low-latency aggregate types to the processor by default, so no event is published by both paths', async () => {
    const sns = new FakeSns();
    const relay = new Relay({ config, sns, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl });
    const result = await relay.relay([slotRecord({ type: 'order', id: 'o-1' }), slotRecord({ type: 'payment', id: 'p-1' })]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['delivered', 'ignored']);
    expect(sns.requests.map((r) => r.topicArn)).toEqual([topicArns['orders.fifo']]);

    // Said outright, an empty list publishes every type.
    const everything = new FakeSns();
    await new Relay({ config, sns: everything, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl, ignoreAggregateTypes: [] }).relay([
      slotRecord({ type: 'payment', id: 'p-2' }),
    ]);
    expect(everything.requests.map((r) => r.topicArn)).toEqual([topicArns.payments]);
  });

  it('splits the stream exactly in two with ignoreAggregateTypes on the same list', async () => {
    const records = ['order', 'payment', 'order', 'payment'].map((type, i) => slotRecord({ type, id: `a-${i}` }));
    const only = new FakeSns();
    const ignore = new FakeSns();
    const common = { config, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl };
    await new Relay({ ...common, sns: only, onlyAggregateTypes: config.lowLatencyAggregateTypes }).relay(records);
    await new Relay({ ...common, sns: ignore, ignoreAggregateTypes: config.lowLatencyAggregateTypes }).relay(records);
    expect(only.accepted).toHaveLength(2);
    expect(ignore.accepted).toHaveLength(2);
    expect(new Set([...only.accepted, ...ignore.accepted]).size).toBe(4);
  });

  it('rejects both options at once, naming them', () => {
    const both = { config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns, deadLetterQueueUrl, onlyAggregateTypes: ['payment'] };
    // The type forbids the combination; a caller building options dynamically still gets a typed error.
    const options = { ...both, ignoreAggregateTypes: ['order'] } as unknown as RelayOptions;
    expect(() => new Relay(options)).toThrow(ConfigError);
    expect(() => new Relay(options)).toThrow(
      /got both onlyAggregateTypes \["payment"\] and ignoreAggregateTypes \["order"\]; allowed: at most one of them/,
    );
  });
});
