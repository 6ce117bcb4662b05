import { type DynamoDBStreamsClient, GetShardIteratorCommand, TrimmedDataAccessException } from '@aws-sdk/client-dynamodb-streams';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { type PublishBatchCommand, ThrottledException } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { parseEnvelope } from '../../shared/envelope.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import type { StreamOnFailureRecord } from '../../shared/redrive/on-failure-record.js';
import { formatSummary } from '../../shared/redrive/summary.js';
import type { PublishBatchClient } from '../../shared/relay/types.js';
import type { SlotEvent } from '../../shared/slot.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { streamRecords, writeSlot } from '../helpers/slot-stream.js';

const { server, clients } = await emulatorForFile();
let tableName: string;
let streamArn: string;
let topicArns: Record<string, string>;
let written: { order: SlotEvent[]; payment: SlotEvent[]; orderLater: SlotEvent[] };
let failure: StreamOnFailureRecord;
let payload: StreamOnFailureRecord['payload'];

const config = defineConfig({
  source: 'urn:dynamodb-outbox:test',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
});

beforeAll(async () => {
  ({ tableName, streamArn } = await freshTable(clients, 'on-failure'));
  const orders = server.createTopic('orders.fifo', { attributes: { FifoTopic: 'true' } });
  const payments = server.createTopic('payments');
  topicArns = { 'orders.fifo': orders.topicArn, payments: payments.topicArn };

  // One failed batch: two commits on order A, a business item in between, one payment commit.
  const order = await writeSlot(clients, tableName, { type: 'order', id: 'A' }, ['order.placed', 'order.paid']);
  await clients.document.send(new PutCommand({ TableName: tableName, Item: { pk: 'ORDER#A', sk: 'ORDER', total: 10 } }));
  const payment = await writeSlot(clients, tableName, { type: 'payment', id: 'P' }, ['payment.captured']);
  const orderLater = await writeSlot(clients, tableName, { type: 'order', id: 'A' }, ['order.shipped'], 3);
  written = { order, payment, orderLater };
  const { shardId, records } = await streamRecords(clients, streamArn);
  expect(records).toHaveLength(4);
  const arrival = new Date().toISOString().slice(0, 19).concat('Z');
  failure = {
    requestContext: {
      requestId: 'r-1',
      functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:relay',
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: 11,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: new Date().toISOString(),
    DDBStreamBatchInfo: {
      shardId,
      startSequenceNumber: records[0]?.dynamodb?.SequenceNumber ?? '',
      endSequenceNumber: records[3]?.dynamodb?.SequenceNumber ?? '',
      approximateArrivalOfFirstRecord: arrival,
      approximateArrivalOfLastRecord: arrival,
      batchSize: 3,
      streamArn,
    },
  };
  payload = {
    Records: records
      .filter((r) => String(r.dynamodb?.Keys?.pk?.S).startsWith('OUTBOX#'))
      .map((r) => ({ eventName: r.eventName, dynamodb: r.dynamodb })),
  } as StreamOnFailureRecord['payload'];
});

const allEventIds = () => [...written.order, ...written.payment, ...written.orderLater].map((e) => e.id);

/** The real SNS client, except that its first `PublishBatch` is throttled. */
function throttledOnce(): PublishBatchClient & { requests: number } {
  return {
    requests: 0,
    send(command: PublishBatchCommand) {
      this.requests++;
      if (this.requests === 1)
        return Promise.reject(new ThrottledException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }));
      return clients.sns.send(command);
    },
  };
}

/** The real SNS client, except that every `PublishBatch` to `topicArn` is refused with `error()`. */
const refusing = (topicArn: string, error: () => Error): PublishBatchClient => ({
  send: (command: PublishBatchCommand) => (command.input.TopicArn === topicArn ? Promise.reject(error()) : clients.sns.send(command)),
});

/** The real streams client, except that the records are trimmed: every `GetShardIterator` fails as past the retention. */
function trimmedStreams(): DynamoDBStreamsClient & { iterators: number } {
  const streams = {
    iterators: 0,
    send(command: GetShardIteratorCommand) {
      if (!(command instanceof GetShardIteratorCommand)) return clients.streams.send(command);
      streams.iterators++;
      return Promise.reject(
        new TrimmedDataAccessException({ message: 'The operation attempted to read past the oldest stream record', $metadata: {} }),
      );
    },
  };
  return streams as unknown as DynamoDBStreamsClient & { iterators: number };
}

/** Fresh subscriber queues per test: a FIFO queue remembers dedup ids, so each test needs its own. */
function views(name: string) {
  const orders = `order-view-${name}.fifo`;
  const payments = `payment-view-${name}`;
  server.createQueue(orders, { attributes: { FifoQueue: 'true' } });
  server.createQueue(payments);
  server.subscribe({ topic: 'orders.fifo', queue: orders, attributes: { RawMessageDelivery: 'true' } });
  server.subscribe({ topic: 'payments', queue: payments, attributes: { RawMessageDelivery: 'true' } });
  return {
    orders: () => queueBodies(server, orders).map((b) => parseEnvelope(b)),
    payments: () => queueBodies(server, payments).map((b) => parseEnvelope(b)),
    ids: () => [...queueBodies(server, orders), ...queueBodies(server, payments)].map((b) => parseEnvelope(b).id),
  };
}

describe('on-failure redrive', () => {
  it('re-reads the stream for a coordinates-only record from an SQS destination and republishes every event with its id', async () => {
    const view = views('sqs');
    const { queueUrl } = server.createQueue('relay-on-failure');
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failure) }));

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns,
    });

    expect(summary).toMatchObject({ status: 'completed', before: 1, after: 0, moved: 1, republished: 4 });
    expect(view.ids().sort()).toEqual(allEventIds().sort());
    expect(view.orders().map((e) => [e.type, e.aggregatesequence])).toEqual([
      ['order.placed', 1],
      ['order.paid', 2],
      ['order.shipped', 3],
    ]);
    expect(queueDepth(server, 'relay-on-failure')).toBe(0);
  });

  it('uses the payload an S3 destination kept and deletes the object after publishing', async () => {
    const view = views('s3');
    server.createBucket('relay-failures');
    await clients.s3.send(
      new PutObjectCommand({ Bucket: 'relay-failures', Key: 'failures/2026/one.json', Body: JSON.stringify({ ...failure, payload }) }),
    );
    // Coordinates that point nowhere prove the payload, not the stream, was used.
    await clients.s3.send(
      new PutObjectCommand({
        Bucket: 'relay-failures',
        Key: 'failures/2026/two.json',
        Body: JSON.stringify({
          ...failure,
          DDBStreamBatchInfo: { ...failure.DDBStreamBatchInfo, shardId: 'shardId-missing' },
          payload: JSON.stringify(payload),
        }),
      }),
    );

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'relay-failures', prefix: 'failures/' },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns,
    });

    expect(summary).toMatchObject({ status: 'completed', before: 2, after: 0, moved: 2, republished: 8 });
    // The FIFO topic drops the second copy of each order event (same dedup id); the standard topic does not.
    expect(view.orders()).toHaveLength(3);
    expect(view.payments()).toHaveLength(2);
    expect(new Set(view.ids())).toEqual(new Set(allEventIds()));
  });

  it("republishes each event with its write's trace context as traceparent and tracestate attributes, as the relay does", async () => {
    const view = views('trace');
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    // The payment commit's event as the write helper stores it with a caller's trace context.
    const traced = structuredClone(payload) as { Records: { dynamodb: { NewImage: Record<string, { L?: { M: object }[] }> } }[] };
    const slot = traced.Records.find((r) => JSON.stringify(r.dynamodb.NewImage).includes('payment.captured'));
    const event = slot?.dynamodb.NewImage.events?.L?.[0] as { M: Record<string, unknown> };
    Object.assign(event.M, { traceparent: { S: traceparent }, tracestate: { S: 'vendor=abc' } });
    server.createBucket('relay-failures-trace');
    await clients.s3.send(
      new PutObjectCommand({ Bucket: 'relay-failures-trace', Key: 'one.json', Body: JSON.stringify({ ...failure, payload: traced }) }),
    );

    await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'relay-failures-trace' },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns,
    });

    const [message] = server.inspectQueue('payment-view-trace')?.messages.ready ?? [];
    expect(view.payments().map((e) => e.type)).toEqual(['payment.captured']);
    expect(message?.messageAttributes.traceparent?.StringValue).toBe(traceparent);
    expect(message?.messageAttributes.tracestate?.StringValue).toBe('vendor=abc');
    // An event written without one gets none.
    expect(server.inspectQueue('order-view-trace.fifo')?.messages.ready.some((m) => 'traceparent' in m.messageAttributes)).toBe(false);
  });

  it('skips a record past the 24-hour retention whose records the stream has trimmed and that has no payload, and keeps it', async () => {
    const view = views('expired');
    server.createBucket('relay-failures-old');
    const old = new Date(Date.now() - 25 * 3600 * 1000).toISOString();
    const expired = { ...failure, DDBStreamBatchInfo: { ...failure.DDBStreamBatchInfo, approximateArrivalOfFirstRecord: old } };
    await clients.s3.send(new PutObjectCommand({ Bucket: 'relay-failures-old', Key: 'old.json', Body: JSON.stringify(expired) }));
    await clients.s3.send(new PutObjectCommand({ Bucket: 'relay-failures-old', Key: 'junk.json', Body: 'not json' }));
    const streams = trimmedStreams();

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'relay-failures-old' },
      sns: clients.sns,
      streams,
      config,
      topicArns,
    });

    expect(summary).toMatchObject({ moved: 0, before: 2, after: 2 });
    // Asked once at the batch's start and once from the oldest record left: a trimmed record cannot
    // come back, however often it is asked for.
    expect(streams.iterators).toBe(2);
    expect(summary.skipped).toEqual([
      { id: 'junk.json', reason: 'not JSON' },
      { id: 'old.json', reason: expect.stringContaining('retention 24 h') },
    ]);
    expect(view.ids()).toEqual([]);
  });

  it('republishes a record past the 24-hour retention whose records the stream still holds (it trims them some time after)', async () => {
    const view = views('late');
    const { queueUrl } = server.createQueue('relay-failures-late');
    // Given up late (a relay.maxRecordAgeSeconds of 24 h or more): the record reaches the queue after the stream's retention.
    const old = new Date(Date.now() - 25 * 3600 * 1000).toISOString();
    const late = { ...failure, DDBStreamBatchInfo: { ...failure.DDBStreamBatchInfo, approximateArrivalOfFirstRecord: old } };
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(late) }));

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns,
    });

    expect(summary).toMatchObject({ moved: 1, failed: [], skipped: [], republished: 4 });
    expect(view.ids().sort()).toEqual(allEventIds().sort());
    expect(queueDepth(server, 'relay-failures-late')).toBe(0);
  });

  it('keeps a later record of an aggregate whose earlier record failed in the same run, so it cannot overtake it', async () => {
    const view = views('blocked');
    server.createBucket('relay-failures-blocked');
    const first = await writeSlot(clients, tableName, { type: 'order', id: 'o1' }, ['order.placed'], 1);
    const second = await writeSlot(clients, tableName, { type: 'order', id: 'o1' }, ['order.paid'], 2);
    const records = (await streamRecords(clients, streamArn)).records.filter((r) => r.dynamodb?.Keys?.pk?.S === 'OUTBOX#order#o1');
    expect(records).toHaveLength(2);
    // One object per failed batch, each holding one commit of order o1, in stream order.
    for (const [i, record] of records.entries()) {
      const object = { ...failure, payload: { Records: [{ eventName: record.eventName, dynamodb: record.dynamodb }] } };
      await clients.s3.send(
        new PutObjectCommand({ Bucket: 'relay-failures-blocked', Key: `o1/${i + 1}.json`, Body: JSON.stringify(object) }),
      );
    }
    const sns = throttledOnce();

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'relay-failures-blocked' },
      sns,
      streams: clients.streams,
      config,
      topicArns,
      // No second attempt: the one throttle fails the first record's event.
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 2 },
    });

    expect(summary).toMatchObject({ moved: 0, before: 2, after: 2 });
    expect(summary.failed).toEqual([
      { id: 'o1/1.json', reason: expect.stringContaining('Rate exceeded') },
      { id: 'o1/2.json', reason: expect.stringContaining(`earlier event ${first[0]?.id} of aggregate order#o1 failed`) },
    ]);
    expect(sns.requests).toBe(1);
    expect(view.ids()).not.toContain(second[0]?.id);
    expect(view.ids()).toEqual([]);
  });

  it('publishes the events of every topic of a failed record, so a later record cannot overtake one left untried', async () => {
    const view = views('untried');
    server.createBucket('relay-failures-untried');
    await writeSlot(clients, tableName, { type: 'order', id: 'o2' }, ['order.placed'], 1);
    const paymentFirst = await writeSlot(clients, tableName, { type: 'payment', id: 'p2' }, ['payment.captured'], 1);
    const paymentLater = await writeSlot(clients, tableName, { type: 'payment', id: 'p2' }, ['payment.refunded'], 2);
    const records = (await streamRecords(clients, streamArn)).records.filter((r) =>
      ['OUTBOX#order#o2', 'OUTBOX#payment#p2'].includes(String(r.dynamodb?.Keys?.pk?.S)),
    );
    expect(records).toHaveLength(3);
    const payloadOf = (list: typeof records) => ({ Records: list.map((r) => ({ eventName: r.eventName, dynamodb: r.dynamodb })) });
    // The first failed batch holds order o2 and payment p2's first commit; the second, p2's next one.
    const objects = [payloadOf(records.slice(0, 2)), payloadOf(records.slice(2))];
    for (const [i, object] of objects.entries()) {
      await clients.s3.send(
        new PutObjectCommand({
          Bucket: 'relay-failures-untried',
          Key: `${i + 1}.json`,
          Body: JSON.stringify({ ...failure, payload: object }),
        }),
      );
    }
    const ordersDown = refusing(
      topicArns['orders.fifo']!,
      () => new ThrottledException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }),
    );

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'relay-failures-untried' },
      sns: ordersDown,
      streams: clients.streams,
      config,
      topicArns,
    });

    expect(summary.failed).toEqual([{ id: '1.json', reason: expect.stringContaining('1 of 2 events failed') }]);
    expect(summary).toMatchObject({ moved: 1, after: 1 });
    expect(view.payments().map((e) => e.id)).toEqual([paymentFirst[0]?.id, paymentLater[0]?.id]);
  });

  it('leaves the aggregate types of the low-latency processor out when it re-reads the stream, as the relay does', async () => {
    const view = views('low-latency');
    const { queueUrl } = server.createQueue('relay-on-failure-low-latency');
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failure) }));
    const split = defineConfig({ ...config, lowLatencyAggregateTypes: ['payment'] });

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: clients.streams,
      config: split,
      topicArns,
    });

    expect(summary).toMatchObject({ moved: 1, republished: 3, after: 0 });
    expect(view.orders().map((e) => e.id)).toEqual([...written.order, ...written.orderLater].map((e) => e.id));
    expect(view.payments()).toEqual([]);
  });

  it('keeps a record whose range the stream does not give back to its end, instead of taking part of it for the whole', async () => {
    const view = views('short');
    const { queueUrl } = server.createQueue('relay-on-failure-short');
    const end = BigInt(failure.DDBStreamBatchInfo.endSequenceNumber);
    // A batch said to end far past anything on the shard: the read runs dry before it gets there.
    const beyond = { ...failure, DDBStreamBatchInfo: { ...failure.DDBStreamBatchInfo, endSequenceNumber: String(end * 1000n + 1n) } };
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(beyond) }));

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns,
    });

    expect(summary).toMatchObject({ moved: 0, republished: 0, before: 1, after: 1 });
    expect(summary.skipped).toEqual([
      {
        id: expect.any(String),
        reason: expect.stringMatching(/could not re-read shard .*but the batch ends at \d+: 5 pages in a row came back empty/),
      },
    ]);
    expect(queueDepth(server, 'relay-on-failure-short')).toBe(1);
    expect(view.ids()).toEqual([]);
  });
});

describe('on-failure redrive of a record some of whose events fail', () => {
  it('counts the events it did publish, from S3 and from SQS, though the record fails and stays', async () => {
    /** SNS refusing every publish to the payments topic: the record's three order events go out, its payment not. */
    const paymentsDown = refusing(topicArns.payments!, () =>
      Object.assign(new Error('not allowed'), { name: 'AuthorizationErrorException', $metadata: { httpStatusCode: 403 } }),
    );
    views('partly-s3');
    server.createBucket('partly');
    await clients.s3.send(new PutObjectCommand({ Bucket: 'partly', Key: 'one.json', Body: JSON.stringify({ ...failure, payload }) }));
    const fromS3 = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'partly' },
      sns: paymentsDown,
      streams: clients.streams,
      config,
      topicArns,
    });

    views('partly-sqs');
    const { queueUrl } = server.createQueue('relay-on-failure-partly');
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failure) }));
    const fromSqs = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: paymentsDown,
      streams: clients.streams,
      config,
      topicArns,
    });

    for (const summary of [fromS3, fromSqs]) {
      expect(summary).toMatchObject({ moved: 0, republished: 3, after: 1 });
      expect(summary.failed).toEqual([{ id: expect.any(String), reason: expect.stringMatching(/^1 of 4 events failed, first /) }]);
      // The events went out with a record that stays: told with it, not as moved.
      expect(summary.keptRepublished).toEqual({ failed: { records: 1, events: 3 } });
      expect(formatSummary(summary)).toMatch(
        / {2}moved {8}0 \(0 events\)\n {2}failed: {6}1 \(1 kept after 3 events of it were republished\)\n/,
      );
    }
  });
});
