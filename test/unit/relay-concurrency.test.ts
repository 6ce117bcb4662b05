import type { PublishBatchCommand, PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import type { SendMessageCommand, SendMessageCommandOutput } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { Relay } from '../../shared/relay/index.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { config, deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

/** Counts the requests in flight to SNS and to the relay DLQ together; each answer comes a turn of the event loop later. */
class InFlight {
  now = 0;
  max = 0;
  async around<T>(send: () => Promise<T>): Promise<T> {
    this.max = Math.max(this.max, ++this.now);
    try {
      await new Promise((resolve) => setImmediate(resolve));
      return await send();
    } finally {
      this.now--;
    }
  }
}

describe('relay.publishConcurrency', () => {
  it('bounds PublishBatch requests and relay DLQ sends together, the dead letters of entries SNS rejected included', async () => {
    const inFlight = new InFlight();
    const rejecting = new FakeSns(() => 'permanent');
    const sqs = new FakeSqs();
    const relay = new Relay({
      config: { ...config, relay: { ...config.relay, publishConcurrency: 2 } },
      sns: { send: (command: PublishBatchCommand): Promise<PublishBatchCommandOutput> => inFlight.around(() => rejecting.send(command)) },
      sqs: { send: (command: SendMessageCommand): Promise<SendMessageCommandOutput> => inFlight.around(() => sqs.send(command)) },
      topicArns,
      deadLetterQueueUrl,
    });
    // Ten aggregates of one topic: one PublishBatch of ten entries, every one rejected for good.
    const records = Array.from({ length: 10 }, (_, i) => slotRecord({ id: `o-${i}`, sequenceNumber: String(9000 + i) }));

    const result = await relay.relay(records);

    expect(result.outcomes.map((o) => o.status)).toEqual(Array(10).fill('delivered'));
    expect(result.deadLettered).toBe(10);
    expect(sqs.bodies).toHaveLength(10);
    expect(rejecting.requests).toHaveLength(1);
    expect(inFlight.max).toBe(2);
  });
});
