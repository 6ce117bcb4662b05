import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { PublishBatchCommand, type PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { isRelayDeadLetter, type RelayDeadLetter } from '../../shared/dead-letter.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { formatSummary } from '../../shared/redrive/summary.js';
import type { PublishBatchClient } from '../../shared/relay/types.js';
import { batchPayload, failedBatch, fifoView } from '../helpers/failed-batch.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { streamRecords, writeSlot } from '../helpers/slot-stream.js';

const { server, clients } = await emulatorForFile();
const config = defineConfig({
  source: 'urn:dynamodb-outbox:test',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' }, // 'invoice' has no route
});
const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 };

/** The relay DLQ's dead letters, as sent. */
const letters = (queue: string): RelayDeadLetter[] =>
  queueBodies(server, queue).map((body) => {
    const letter: unknown = JSON.parse(body);
    expect(isRelayDeadLetter(letter)).toBe(true);
    return letter as RelayDeadLetter;
  });

/**
 * Batch 1 = [order O commit 1, an unrouted 'invoice' slot, a malformed slot of order M];
 * batch 2 = [order O commit 2, order M commit 2]: the relay dead-letters the invoice event and
 * the malformed slot, and publishes the rest.
 */
async function mixedBatches(prefix: string) {
  const { tableName, streamArn } = await freshTable(clients, prefix);
  const placed = await writeSlot(clients, tableName, { type: 'order', id: 'O' }, ['order.placed'], 1);
  const invoice = await writeSlot(clients, tableName, { type: 'invoice', id: 'I' }, ['invoice.raised'], 1);
  await clients.document.send(
    new PutCommand({
      TableName: tableName,
      Item: { pk: 'OUTBOX#order#M', sk: 'OUTBOX', kind: 'outbox-slot', aggregateType: 'order', aggregateId: 'M', seq: 0, events: [] },
    }),
  );
  const paid = await writeSlot(clients, tableName, { type: 'order', id: 'O' }, ['order.paid'], 2);
  const later = await writeSlot(clients, tableName, { type: 'order', id: 'M' }, ['order.later'], 2);
  const { shardId, records } = await streamRecords(clients, streamArn);
  expect(records).toHaveLength(5);
  return {
    streamArn,
    shardId,
    first: records.slice(0, 3),
    second: records.slice(3),
    published: [placed[0]?.id, paid[0]?.id, later[0]?.id],
    invoiceId: invoice[0]?.id,
  };
}

/** The real SNS client, except that SNS refuses the entry of `eventId` for good, as the sender's fault. */
function rejecting(eventId: string | undefined): PublishBatchClient {
  return {
    async send(command: PublishBatchCommand): Promise<PublishBatchCommandOutput> {
      const entries = command.input.PublishBatchRequestEntries ?? [];
      const bad = entries.filter((e) => e.Message?.includes(`"id":"${eventId}"`));
      const rest = entries.filter((e) => !bad.includes(e));
      const sent =
        rest.length === 0
          ? { Successful: [], Failed: [], $metadata: {} }
          : await clients.sns.send(new PublishBatchCommand({ ...command.input, PublishBatchRequestEntries: rest }));
      return {
        ...sent,
        Failed: [
          ...(sent.Failed ?? []),
          ...bad.map((e) => ({ Id: e.Id, Code: 'InvalidParameter', Message: 'Invalid parameter: Message', SenderFault: true })),
        ],
      };
    },
  };
}

/** The real SNS client, except that SNS refuses as a whole, as the sender's fault, every request carrying the event `eventId`. */
function refusingRequests(eventId: string | undefined): PublishBatchClient & { sizes: number[] } {
  const client = {
    sizes: [] as number[],
    send(command: PublishBatchCommand): Promise<PublishBatchCommandOutput> {
      const entries = command.input.PublishBatchRequestEntries ?? [];
      client.sizes.push(entries.length);
      if (!entries.some((e) => e.Message?.includes(`"id":"${eventId}"`))) return clients.sns.send(command);
      const error = Object.assign(new Error('Invalid parameter: Message'), {
        name: 'InvalidParameterException',
        $metadata: { httpStatusCode: 400 },
      });
      return Promise.reject(error);
    },
  };
  return client;
}

describe('on-failure redrive: what the relay dead-letters goes to the relay DLQ', () => {
  it('S3: an unrouted event and a malformed slot are dead-lettered, the records move and the shard is not held', async () => {
    const view = fifoView(server, 'dl-s3');
    const { queueUrl } = server.createQueue('dl-s3-relay-dlq');
    const { streamArn, shardId, first, second, published, invoiceId } = await mixedBatches('dl-s3');
    server.createBucket('dl-s3');
    for (const [key, records] of [
      ['1', first],
      ['2', second],
    ] as const) {
      const body = JSON.stringify(failedBatch(streamArn, shardId, records, { payload: batchPayload(records) }));
      await clients.s3.send(new PutObjectCommand({ Bucket: 'dl-s3', Key: key, Body: body }));
    }

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'dl-s3' },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      deadLetterQueue: { queueUrl, sqs: clients.sqs },
      retry,
    });

    expect(summary).toMatchObject({
      status: 'completed',
      moved: 2,
      republished: 3,
      deadLettered: 2,
      failed: [],
      skipped: [],
      before: 2,
      after: 0,
    });
    expect(summary.notes).toEqual([expect.stringContaining('2 dead letters sent to the relay DLQ')]);
    expect(view.delivered().map((e) => e.id)).toEqual(published);
    const sent = letters('dl-s3-relay-dlq');
    expect(sent.map((l) => [l.reason, l.eventId, l.aggregateType, l.aggregateId])).toEqual([
      ['UNKNOWN_ROUTE', invoiceId, 'invoice', 'I'],
      ['MALFORMED_SLOT', undefined, undefined, undefined],
    ]);
    expect(sent[0]).toMatchObject({ kind: 'outbox-relay-dead-letter', version: 1, detail: 'aggregate type "invoice" has no route' });
    expect(JSON.parse(sent[0]?.envelope ?? '{}')).toMatchObject({ id: invoiceId, type: 'invoice.raised' });
    expect(sent[0]?.record).toMatchObject({ eventSourceArn: streamArn, sequenceNumber: first[1]?.dynamodb?.SequenceNumber });
    expect(sent[1]?.rawImage).toMatchObject({ pk: { S: 'OUTBOX#order#M' } });
    const left = await clients.s3.send(new ListObjectsV2Command({ Bucket: 'dl-s3' }));
    expect(left.Contents ?? []).toEqual([]);
  });

  it('SQS: an event SNS refuses for good is dead-lettered as PUBLISH_REJECTED, and its record moves', async () => {
    const view = fifoView(server, 'dl-rej');
    const { queueUrl: dlq } = server.createQueue('dl-rej-relay-dlq');
    const { tableName, streamArn } = await freshTable(clients, 'dl-rej');
    const placed = await writeSlot(clients, tableName, { type: 'order', id: 'R' }, ['order.placed'], 1);
    const paid = await writeSlot(clients, tableName, { type: 'order', id: 'R' }, ['order.paid'], 2);
    const { shardId, records } = await streamRecords(clients, streamArn);
    const { queueUrl } = server.createQueue('dl-rej-failures');
    await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failedBatch(streamArn, shardId, records)) }),
    );

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: rejecting(placed[0]?.id),
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      deadLetterQueue: { queueUrl: dlq, sqs: clients.sqs },
      retry,
    });

    // One event published, one dead-lettered: `republished` counts only the one that went out.
    expect(summary).toMatchObject({ status: 'completed', moved: 1, republished: 1, deadLettered: 1, failed: [], skipped: [], after: 0 });
    expect(formatSummary(summary)).toContain('moved        1 (1 event published; 1 dead-lettered to the relay DLQ)');
    // The later event of the aggregate goes out once the earlier one is in the DLQ, as from the relay.
    expect(view.delivered().map((e) => e.id)).toEqual([paid[0]?.id]);
    expect(letters('dl-rej-relay-dlq')).toEqual([
      expect.objectContaining({
        reason: 'PUBLISH_REJECTED',
        detail: 'InvalidParameter: Invalid parameter: Message',
        topic: 'orders.fifo',
        eventId: placed[0]?.id,
        aggregateType: 'order',
        aggregateId: 'R',
      }),
    ]);
    expect(queueDepth(server, 'dl-rej-failures')).toBe(0);
  });

  it('a request SNS refuses as a whole is sent again one event each, and only the refused event is dead-lettered', async () => {
    const view = fifoView(server, 'dl-whole');
    const { queueUrl: dlq } = server.createQueue('dl-whole-relay-dlq');
    const { tableName, streamArn } = await freshTable(clients, 'dl-whole');
    const bad = await writeSlot(clients, tableName, { type: 'order', id: 'B' }, ['order.placed'], 1);
    const good = await writeSlot(clients, tableName, { type: 'order', id: 'G' }, ['order.placed'], 1);
    const { shardId, records } = await streamRecords(clients, streamArn);
    server.createBucket('dl-whole');
    const body = JSON.stringify(failedBatch(streamArn, shardId, records, { payload: batchPayload(records) }));
    await clients.s3.send(new PutObjectCommand({ Bucket: 'dl-whole', Key: 'k', Body: body }));
    const sns = refusingRequests(bad[0]?.id);

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'dl-whole' },
      sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      deadLetterQueue: { queueUrl: dlq, sqs: clients.sqs },
      retry,
    });

    expect(summary).toMatchObject({ status: 'completed', moved: 1, republished: 1, deadLettered: 1, failed: [], skipped: [], after: 0 });
    expect(sns.sizes).toEqual([2, 1, 1]);
    expect(view.delivered().map((e) => e.id)).toEqual([good[0]?.id]);
    expect(letters('dl-whole-relay-dlq').map((l) => [l.reason, l.eventId])).toEqual([['PUBLISH_REJECTED', bad[0]?.id]]);
  });

  it('without a relay DLQ, an event SNS refuses for good fails, and its reason names the flag that would dead-letter it', async () => {
    const view = fifoView(server, 'dl-none');
    const { tableName, streamArn } = await freshTable(clients, 'dl-none');
    const placed = await writeSlot(clients, tableName, { type: 'order', id: 'N' }, ['order.placed'], 1);
    const { shardId, records } = await streamRecords(clients, streamArn);
    server.createBucket('dl-none');
    const body = JSON.stringify(failedBatch(streamArn, shardId, records, { payload: batchPayload(records) }));
    await clients.s3.send(new PutObjectCommand({ Bucket: 'dl-none', Key: 'k', Body: body }));

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'dl-none' },
      sns: rejecting(placed[0]?.id),
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ moved: 0, republished: 0, skipped: [], after: 1 });
    expect(summary.deadLettered).toBeUndefined();
    expect(summary.failed).toEqual([
      { id: 'k', reason: expect.stringMatching(/InvalidParameter: Invalid parameter: Message; not dead-lettered: .*--relay-dlq-url/) },
    ]);
  });

  it('a dead letter the DLQ does not take fails its record, which stays, and holds back the later events of its aggregate', async () => {
    const view = fifoView(server, 'dl-lost');
    const { streamArn, shardId, first, second, published } = await mixedBatches('dl-lost');
    server.createBucket('dl-lost');
    for (const [key, records] of [
      ['1', first],
      ['2', second],
    ] as const) {
      const body = JSON.stringify(failedBatch(streamArn, shardId, records, { payload: batchPayload(records) }));
      await clients.s3.send(new PutObjectCommand({ Bucket: 'dl-lost', Key: key, Body: body }));
    }
    const missing = `${server.createQueue('dl-lost-elsewhere').queueUrl.replace(/dl-lost-elsewhere$/, '')}no-such-queue`;

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'dl-lost' },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      deadLetterQueue: { queueUrl: missing, sqs: clients.sqs },
      retry,
    });

    expect(summary).toMatchObject({ moved: 0, republished: 2, deadLettered: 0, skipped: [], after: 2 });
    expect(summary.failed).toEqual([
      { id: '1', reason: expect.stringMatching(/^UNKNOWN_ROUTE .* not dead-lettered: relay DLQ rejected the dead letter/) },
      { id: '2', reason: expect.stringContaining('of aggregate order#M failed') },
    ]);
    // Order O's events (no dead letter) went out; order M's later event waits behind its malformed slot, unsent.
    expect(view.delivered().map((e) => e.id)).toEqual(published.slice(0, 2));
    const left = await clients.s3.send(new ListObjectsV2Command({ Bucket: 'dl-lost' }));
    expect((left.Contents ?? []).map((o) => o.Key)).toEqual(['1', '2']);
  });
});
