import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../shared/envelope.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';
import type { RedriveProgress, RedriveSummary } from '../../shared/redrive/types.js';
import { messageGroupId } from '../../shared/relay/publish-entry.js';
import { aMalformedSlotDeadLetter, aRelayDeadLetter } from '../helpers/dead-letters.js';
import { anEnvelope } from '../helpers/envelopes.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';

const { server, clients } = await emulatorForFile();

async function sendAll(
  queueUrl: string,
  bodies: readonly string[],
  extra: (i: number) => Record<string, unknown> = () => ({}),
): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies.slice(i, i + 10).map((body, j) => ({ Id: String(j), MessageBody: body, ...extra(i + j) })),
      }),
    );
  }
}

const eventIds = (bodies: readonly string[]) => bodies.map((b) => parseEnvelope(b).id);

describe('relay DLQ redrive', () => {
  it('moves every dead letter under concurrent producers, none lost or doubled, and leaves the unrepublishable ones', async () => {
    const { topicArn } = server.createTopic('payments-redrive');
    server.createQueue('payments-redrive-target');
    server.subscribe({ topic: 'payments-redrive', queue: 'payments-redrive-target', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-concurrent');
    const topicArns = { payments: topicArn };

    const initial = Array.from({ length: 30 }, () => aRelayDeadLetter({ topic: 'payments' }));
    await sendAll(queueUrl, [...initial.map((l) => l.body), aMalformedSlotDeadLetter(), aMalformedSlotDeadLetter()]);
    const produced = [...initial];
    const producer = async (count: number) => {
      for (let i = 0; i < count; i += 5) {
        const letters = Array.from({ length: 5 }, () => aRelayDeadLetter({ topic: 'payments' }));
        produced.push(...letters);
        await sendAll(
          queueUrl,
          letters.map((l) => l.body),
        );
      }
    };

    const summaries: RedriveSummary[] = [];
    const [first] = await Promise.all([
      redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns }),
      producer(60),
      producer(60),
    ]);
    summaries.push(first);
    // A second pass takes what the producers added after the first pass found the queue empty.
    summaries.push(await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns }));

    const moved = summaries.reduce((sum, s) => sum + s.moved, 0);
    expect(produced).toHaveLength(150);
    expect(moved).toBe(150);
    expect(first.before).toBe(32);
    const delivered = eventIds(queueBodies(server, 'payments-redrive-target'));
    expect(delivered).toHaveLength(150);
    expect(new Set(delivered)).toEqual(new Set(produced.map((l) => l.eventId)));
    expect(queueDepth(server, 'relay-dlq-concurrent')).toBe(2);
    expect(summaries.at(-1)?.after).toBe(2);
    expect(summaries.at(-1)?.skipped.map((s) => s.reason)).toEqual([
      expect.stringContaining('MALFORMED_SLOT'),
      expect.stringContaining('MALFORMED_SLOT'),
    ]);
  });

  it('republishes to a FIFO topic with the aggregate group and the event id as dedup id', async () => {
    const { topicArn } = server.createTopic('orders-redrive.fifo', { attributes: { FifoTopic: 'true' } });
    server.createQueue('orders-redrive-target.fifo', { attributes: { FifoQueue: 'true' } });
    server.subscribe({ topic: 'orders-redrive.fifo', queue: 'orders-redrive-target.fifo', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-fifo');
    const letters = [1, 2, 3].map((sequence) =>
      aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: 'A', sequence }),
    );
    await sendAll(queueUrl, [...letters.map((l) => l.body), letters[0]?.body ?? '']);

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: { 'orders.fifo': topicArn } });

    expect(summary.moved).toBe(4);
    const state = server.inspectQueue('orders-redrive-target.fifo');
    const messages = [...(state?.messages.ready ?? [])];
    expect(messages.map((m) => parseEnvelope(m.body).sequence)).toEqual([1, 2, 3]);
    expect(messages.map((m) => m.messageGroupId)).toEqual(['order#A', 'order#A', 'order#A']);
    expect(queueDepth(server, 'relay-dlq-fifo')).toBe(0);
  });

  it('republishes an envelope a dead letter carries gzip’d byte for byte, in the group the relay gives its aggregate', async () => {
    const { topicArn } = server.createTopic('orders-gzip.fifo', { attributes: { FifoTopic: 'true' } });
    server.createQueue('orders-gzip-target.fifo', { attributes: { FifoQueue: 'true' } });
    server.subscribe({ topic: 'orders-gzip.fifo', queue: 'orders-gzip-target.fifo', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-gzip');
    const letter = aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: 'Zürich 1', gzip: true });
    expect(JSON.parse(letter.body).envelope).toBeUndefined();
    await sendAll(queueUrl, [letter.body]);

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: { 'orders.fifo': topicArn } });

    expect(summary.moved).toBe(1);
    const messages = [...(server.inspectQueue('orders-gzip-target.fifo')?.messages.ready ?? [])];
    expect(messages.map((m) => m.body)).toEqual([letter.envelope]);
    expect(messages.map((m) => m.messageGroupId)).toEqual([messageGroupId({ aggregateType: 'order', aggregateId: 'Zürich 1' })]);
    expect(messages[0]?.messageGroupId).toMatch(/^sha256:/);
  });

  it('changes nothing in a dry run but reports what it would move, with progress', async () => {
    const { topicArn } = server.createTopic('payments-dry');
    server.createQueue('payments-dry-target');
    server.subscribe({ topic: 'payments-dry', queue: 'payments-dry-target', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-dry');
    await sendAll(
      queueUrl,
      Array.from({ length: 12 }, () => aRelayDeadLetter({ topic: 'payments' }).body),
    );
    const progress: RedriveProgress[] = [];

    const summary = await redriveRelayDlq({
      sqs: clients.sqs,
      sns: clients.sns,
      queueUrl,
      topicArns: { payments: topicArn },
      dryRun: true,
      onProgress: (p) => progress.push(p),
    });

    expect(summary).toMatchObject({ status: 'dry-run', before: 12, after: 12, moved: 12, processed: 12 });
    expect(queueDepth(server, 'relay-dlq-dry')).toBe(12);
    expect(queueDepth(server, 'payments-dry-target')).toBe(0);
    expect(progress.at(-1)).toMatchObject({ processed: 12, total: 12, moved: 12 });
  });

  it('fails the messages whose republish fails and keeps them in the DLQ', async () => {
    const { topicArn } = server.createTopic('payments-half');
    server.createQueue('payments-half-target');
    server.subscribe({ topic: 'payments-half', queue: 'payments-half-target', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-half');
    const good = Array.from({ length: 4 }, () => aRelayDeadLetter({ topic: 'payments' }));
    const orphaned = Array.from({ length: 3 }, () => aRelayDeadLetter({ topic: 'gone' }));
    await sendAll(
      queueUrl,
      [...good, ...orphaned].map((l) => l.body),
    );

    const summary = await redriveRelayDlq({
      sqs: clients.sqs,
      sns: clients.sns,
      queueUrl,
      topicArns: { payments: topicArn, gone: 'arn:aws:sns:us-east-1:000000000000:deleted-topic' },
    });

    expect(summary).toMatchObject({ moved: 4, before: 7, after: 3 });
    expect(summary.failed).toHaveLength(3);
    expect(summary.failed[0]?.reason).toContain('PublishBatch failed');
    expect(queueDepth(server, 'relay-dlq-half')).toBe(3);
    expect(eventIds(queueBodies(server, 'payments-half-target')).sort()).toEqual(good.map((l) => l.eventId).sort());
  });

  it('rejects a redrive without topic ARNs before reading anything', async () => {
    const { queueUrl } = server.createQueue('relay-dlq-no-topics');
    await sendAll(queueUrl, [aRelayDeadLetter({ topic: 'payments' }).body]);
    await expect(redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: {} })).rejects.toThrow(RedriveOptionsError);
    expect(queueDepth(server, 'relay-dlq-no-topics')).toBe(1);
  });
});

describe('subscriber DLQ redrive', () => {
  it('moves messages back to the source queue with their attributes, deleting each only after it was sent', async () => {
    const source = server.createQueue('billing');
    const dlq = server.createQueue('billing-dlq');
    const bodies = Array.from({ length: 23 }, (_, i) => anEnvelope({ aggregateId: `b-${i}` }).body);
    await sendAll(dlq.queueUrl, bodies, () => ({ MessageAttributes: { type: { DataType: 'String', StringValue: 'order.placed' } } }));

    const summary = await redriveQueueDlq({
      sqs: clients.sqs,
      queueUrl: dlq.queueUrl,
      targetQueueUrl: source.queueUrl,
      ratePerSecond: 1000,
    });

    expect(summary).toMatchObject({ status: 'completed', before: 23, after: 0, moved: 23 });
    expect(queueDepth(server, 'billing-dlq')).toBe(0);
    const state = server.inspectQueue('billing');
    expect(state?.messages.ready.map((m) => m.body).sort()).toEqual([...bodies].sort());
    expect(state?.messages.ready.every((m) => m.messageAttributes.type?.StringValue === 'order.placed')).toBe(true);
  });

  it('keeps FIFO message groups and their order', async () => {
    const source = server.createQueue('shipping.fifo', { attributes: { FifoQueue: 'true' } });
    const dlq = server.createQueue('shipping-dlq.fifo', { attributes: { FifoQueue: 'true' } });
    const bodies = [1, 2, 3].map((sequence) => anEnvelope({ aggregateId: 'S', sequence }).body);
    await sendAll(dlq.queueUrl, bodies, (i) => ({ MessageGroupId: 'order#S', MessageDeduplicationId: `d-${i}` }));

    const summary = await redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: source.queueUrl });

    expect(summary.moved).toBe(3);
    const ready = server.inspectQueue('shipping.fifo')?.messages.ready ?? [];
    expect(ready.map((m) => parseEnvelope(m.body).sequence)).toEqual([1, 2, 3]);
    expect(ready.map((m) => m.messageGroupId)).toEqual(['order#S', 'order#S', 'order#S']);
  });

  it('rejects a redrive into the DLQ itself, or across FIFO and standard, before reading anything', async () => {
    const dlq = server.createQueue('loop-dlq');
    const fifo = server.createQueue('loop.fifo', { attributes: { FifoQueue: 'true' } });
    await sendAll(dlq.queueUrl, ['x']);
    await expect(redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: dlq.queueUrl })).rejects.toThrow(
      /is the DLQ itself/,
    );
    await expect(redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: fifo.queueUrl })).rejects.toThrow(
      /differ in kind/,
    );
    expect(queueDepth(server, 'loop-dlq')).toBe(1);
  });
});
