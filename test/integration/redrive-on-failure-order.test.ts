import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { GetShardIteratorCommand, LimitExceededException } from '@aws-sdk/client-dynamodb-streams';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { batchPayload, failedBatch, fifoView, ORDERS_FIFO_CONFIG } from '../helpers/failed-batch.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { streamRecords, writeSlot } from '../helpers/slot-stream.js';

const { server, clients } = await emulatorForFile();
const config = ORDERS_FIFO_CONFIG;
/** Quick retries: the tests wait on the redrive's own retries, never on a fixed sleep. */
const retry = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 };
const ESM = 'aws/lambda/0f6c9a5e-1111-2222-3333-444455556666';

/** Two commits of one order, each a failed batch of its own, on the table's (one) shard. */
async function twoCommits(prefix: string, id: string) {
  const { tableName, streamArn } = await freshTable(clients, prefix);
  const placed = await writeSlot(clients, tableName, { type: 'order', id }, ['order.placed'], 1);
  const paid = await writeSlot(clients, tableName, { type: 'order', id }, ['order.paid'], 2);
  const { shardId, records } = await streamRecords(clients, streamArn);
  expect(records).toHaveLength(2);
  return { tableName, streamArn, shardId, records: records as [_Record, _Record], ids: [placed[0]?.id, paid[0]?.id] };
}

const keysIn = async (bucket: string) =>
  ((await clients.s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key);

/** The real streams client, except that `GetShardIterator` at `sequence` is throttled `times` times. */
function throttledAt(sequence: string, times: number): DynamoDBStreamsClient & { throttled: number } {
  const streams = {
    throttled: 0,
    send(command: GetShardIteratorCommand) {
      if (command instanceof GetShardIteratorCommand && command.input.SequenceNumber === sequence && streams.throttled < times) {
        streams.throttled++;
        return Promise.reject(new LimitExceededException({ message: 'Rate exceeded for shard', $metadata: { httpStatusCode: 400 } }));
      }
      return clients.streams.send(command);
    },
  };
  return streams as unknown as DynamoDBStreamsClient & { throttled: number };
}

describe('on-failure redrive: stream order', () => {
  it('publishes S3 objects in stream order, not in key order, when batches of one shard failed in the same second', async () => {
    const view = fifoView(server, 'same-second');
    const { streamArn, shardId, records, ids } = await twoCommits('same-second', 'S');
    server.createBucket('same-second');
    // Keys end in a random UUID: here the older batch got the one that sorts last.
    const base = `${ESM}/${shardId}/2026/05/04/2026-05-04T10.15.07-`;
    const keys = [`${base}f3b1c2d4-0000-4000-8000-000000000001`, `${base}1a2b3c4d-0000-4000-8000-000000000002`];
    for (const [i, record] of records.entries()) {
      const body = JSON.stringify(failedBatch(streamArn, shardId, [record], { payload: batchPayload([record]) }));
      await clients.s3.send(new PutObjectCommand({ Bucket: 'same-second', Key: keys[i], Body: body }));
    }

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'same-second', prefix: 'aws/lambda/' },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
    });

    expect(summary).toMatchObject({ moved: 2, republished: 2, before: 2, after: 0, failed: [], skipped: [] });
    expect(view.delivered().map((e) => e.id)).toEqual(ids);
  });

  it('publishes the records of a parent shard before those of its child, whatever their keys and arrival times say', async () => {
    const view = fifoView(server, 'lineage');
    const stream = new SimulatedStream();
    const parent = stream.openShards[0]!.id;
    const first = stream.commit({ type: 'order', id: 'L' }, 1, 1);
    stream.split(parent);
    const second = stream.commit({ type: 'order', id: 'L' }, 2, 1);
    const child = stream.shardOfEvent.get(second[0]!)!;
    server.createBucket('lineage');
    const batches = [
      // The child's batch says it arrived first, and its key sorts first: only the lineage puts it second.
      { key: `a/${child}`, shard: child, record: stream.shards.find((s) => s.id === child)!.records[0]!, arrival: '2026-05-04T10:00:00Z' },
      {
        key: `b/${parent}`,
        shard: parent,
        record: stream.shards.find((s) => s.id === parent)!.records[0]!,
        arrival: '2026-05-04T10:00:05Z',
      },
    ];
    for (const b of batches) {
      const body = JSON.stringify(
        failedBatch(stream.streamArn, b.shard, [b.record], { payload: batchPayload([b.record]), arrival: b.arrival }),
      );
      await clients.s3.send(new PutObjectCommand({ Bucket: 'lineage', Key: b.key, Body: body }));
    }
    const streams = stream as unknown as DynamoDBStreamsClient;

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'lineage' },
      sns: clients.sns,
      streams,
      config,
      topicArns: view.topicArns,
    });

    expect(summary).toMatchObject({ moved: 2, failed: [], skipped: [] });
    expect(view.delivered().map((e) => e.id)).toEqual([...first, ...second]);
  });
});

describe('on-failure redrive: unreadable stream ranges', () => {
  it('reads a throttled range again after a backoff, so both commits go out in order', async () => {
    const view = fifoView(server, 'throttled-once');
    const { streamArn, shardId, records, ids } = await twoCommits('throttled-once', 'T');
    const { queueUrl } = server.createQueue('throttled-once-failures');
    for (const record of records) {
      await clients.sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failedBatch(streamArn, shardId, [record])) }),
      );
    }
    const streams = throttledAt(records[0].dynamodb?.SequenceNumber ?? '', 1);

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams,
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(streams.throttled).toBe(1);
    expect(summary).toMatchObject({ moved: 2, failed: [], skipped: [], after: 0 });
    expect(view.delivered().map((e) => e.id)).toEqual(ids);
  });

  it('holds back the later records of a shard whose earlier range could not be read, and keeps them all', async () => {
    const view = fifoView(server, 'unreadable');
    const { streamArn, shardId, records } = await twoCommits('unreadable', 'U');
    const { queueUrl } = server.createQueue('unreadable-failures');
    for (const record of records) {
      await clients.sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failedBatch(streamArn, shardId, [record])) }),
      );
    }
    const streams = throttledAt(records[0].dynamodb?.SequenceNumber ?? '', Number.POSITIVE_INFINITY);

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams,
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(streams.throttled).toBe(retry.maxAttempts);
    // Failed, not skipped: a rerun may read it once the throttling has passed.
    expect(summary).toMatchObject({ moved: 0, republished: 0, before: 2, after: 2 });
    expect(summary.failed).toEqual([
      {
        id: expect.any(String),
        reason: expect.stringMatching(/could not re-read shard .*LimitExceededException.*still failing after 3 attempts/),
      },
    ]);
    expect(summary.skipped).toEqual([
      { id: expect.any(String), reason: expect.stringContaining(`held back: an earlier record of shard ${shardId} was not republished`) },
    ]);
    expect(view.delivered()).toEqual([]);
    expect(queueDepth(server, 'unreadable-failures')).toBe(2);
  });
});

describe('on-failure redrive: malformed records', () => {
  it('reports a malformed payload, an unreadable object and a corrupt object each with its reason, keeps them, and goes on', async () => {
    const view = fifoView(server, 'malformed');
    const { tableName, streamArn, shardId, records } = await twoCommits('malformed', 'M');
    const other = await writeSlot(clients, tableName, { type: 'order', id: 'G' }, ['order.placed'], 1);
    const good = (await streamRecords(clients, streamArn)).records.find((r) => r.dynamodb?.Keys?.pk?.S === 'OUTBOX#order#G')!;
    const bucket = 'malformed';
    server.createBucket(bucket);
    const put = (key: string, body: string) => clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    // Shard 1: a truncated payload, then a good later batch that must wait behind it.
    await put('1-truncated', JSON.stringify({ ...failedBatch(streamArn, shardId, [records[0]]), payload: '{"Records": [trunc' }));
    await put('2-later', JSON.stringify(failedBatch(streamArn, shardId, [records[1]], { payload: batchPayload([records[1]]) })));
    // Shard 2: an object that is not JSON; its key names the shard, so the shard's good batch waits too.
    await put(`${ESM}/shardId-corrupt/2026/05/04/2026-05-04T10.15.07-5c1d9a0e-0000-4000-8000-000000000003`, '{"DDBStreamBatchInfo": {');
    await put(
      '3-corrupt-shard',
      JSON.stringify(failedBatch(streamArn, 'shardId-corrupt', [records[0]], { payload: batchPayload([records[0]]) })),
    );
    // No shard at all: a sequence number the stream never gives.
    const badInfo = failedBatch(streamArn, shardId, [records[0]]);
    await put(
      '0-bad-sequence',
      JSON.stringify({ ...badInfo, DDBStreamBatchInfo: { ...badInfo.DDBStreamBatchInfo, startSequenceNumber: 'abc' } }),
    );
    // Shard 3: an object S3 will not give, and a good batch of another order that goes out. No listing
    // names its shard, so its lineage is not known: it arrived before every held record, so none holds it.
    await put('4-denied', 'irrelevant');
    await put(
      '5-good',
      JSON.stringify(failedBatch(streamArn, 'shardId-good', [good], { payload: batchPayload([good]), arrival: '2020-01-01T00:00:00Z' })),
    );
    const s3 = {
      send(command: GetObjectCommand) {
        if (command instanceof GetObjectCommand && command.input.Key === '4-denied') {
          return Promise.reject(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }));
        }
        return clients.s3.send(command);
      },
    } as unknown as S3Client;

    const summary = await redriveOnFailure({
      source: { s3, bucket },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ status: 'completed', before: 7, processed: 7, moved: 1, republished: 1, failed: [], after: 6 });
    expect(Object.fromEntries(summary.skipped.map((p) => [p.id.split('/').at(-1), p.reason]))).toEqual({
      '0-bad-sequence': 'DDBStreamBatchInfo.startSequenceNumber is "abc"; allowed: a stream sequence number (decimal digits only)',
      '2026-05-04T10.15.07-5c1d9a0e-0000-4000-8000-000000000003': 'not JSON',
      '4-denied': expect.stringMatching(/^could not read the object: AccessDenied: Access Denied$/),
      '1-truncated': expect.stringMatching(/^payload is a string that is not JSON .*; allowed: the invocation event/),
      '2-later': expect.stringContaining(
        `held back: an earlier record of shard ${shardId} was not republished (object 1-truncated: payload is`,
      ),
      '3-corrupt-shard': expect.stringContaining('held back: an earlier record of shard shardId-corrupt was not republished'),
    });
    expect(view.delivered().map((e) => e.id)).toEqual([other[0]?.id]);
    expect(await keysIn(bucket)).not.toContain('5-good');
  });

  it('counts a record published but not deleted as failed, keeps it, and goes on to the next', async () => {
    const view = fifoView(server, 'undeleted');
    const { streamArn, shardId, records, ids } = await twoCommits('undeleted', 'D');
    server.createBucket('undeleted');
    for (const [i, record] of records.entries()) {
      const body = JSON.stringify(failedBatch(streamArn, shardId, [record], { payload: batchPayload([record]) }));
      await clients.s3.send(new PutObjectCommand({ Bucket: 'undeleted', Key: `${i + 1}`, Body: body }));
    }
    const s3 = {
      send(command: DeleteObjectCommand) {
        if (command instanceof DeleteObjectCommand && command.input.Key === '1') {
          return Promise.reject(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }));
        }
        return clients.s3.send(command);
      },
    } as unknown as S3Client;

    const summary = await redriveOnFailure({
      source: { s3, bucket: 'undeleted' },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ moved: 1, republished: 2, skipped: [], after: 1 });
    expect(summary.failed).toEqual([{ id: '1', reason: 'republished, but not deleted from the source (AccessDenied: Access Denied)' }]);
    expect(summary.keptRepublished).toEqual({ failed: { records: 1, events: 1 } });
    expect(view.delivered().map((e) => e.id)).toEqual(ids);
    expect(await keysIn('undeleted')).toEqual(['1']);
  });
});
