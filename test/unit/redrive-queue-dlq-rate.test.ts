import type { Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { scriptedQueue } from '../helpers/scripted-queue.js';

const envelope = (id: string, sequence: number) => ({
  specversion: '1.0',
  id,
  source: 'urn:test:rate',
  type: 'order.placed',
  subject: 'o-1',
  time: '2026-05-01T10:00:00Z',
  datacontenttype: 'application/json',
  aggregatetype: 'order',
  aggregatesequence: sequence,
  sequenceepoch: '2026-05-01T10:00:00Z',
  data: {},
});

/** A DLQ that hands out the given receives in turn and takes every send; records when each send went. */
function queue(receives: Message[][]) {
  const sentAt: number[] = [];
  const { sqs } = scriptedQueue(receives, async (entries) => {
    sentAt.push(performance.now());
    return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
  });
  return { sqs, sentAt };
}

describe('redriveQueueDlq --rate', () => {
  it('counts a CloudEvents batch message as all its events, as docs/redrive.md says', async () => {
    const batch: Message = {
      MessageId: 'batch',
      ReceiptHandle: 'r-batch',
      Body: JSON.stringify(Array.from({ length: 10 }, (_, i) => envelope(`0190f0e0-0000-7000-8000-00000000000${i}`, i + 1))),
      MessageAttributes: { 'content-type': { DataType: 'String', StringValue: 'application/cloudevents-batch+json' } },
    };
    const single: Message = {
      MessageId: 'single',
      ReceiptHandle: 'r-single',
      Body: JSON.stringify(envelope('0190f0e0-0000-7000-8000-0000000000ff', 11)),
    };
    const { sqs, sentAt } = queue([[batch], [single]]);

    const summary = await redriveQueueDlq({
      sqs,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q-dlq',
      targetQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
      ratePerSecond: 10,
    });

    expect(summary).toMatchObject({ moved: 2, republished: 11 });
    expect(sentAt).toHaveLength(2);
    // 10 events at 10 per second: the next send waits a second, not the tenth of one a message would take.
    expect((sentAt[1] as number) - (sentAt[0] as number)).toBeGreaterThanOrEqual(900);
  });
});
