import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DescribeStreamCommand, GetShardIteratorCommand, LimitExceededException } from '@aws-sdk/client-dynamodb-streams';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { batchPayload, failedBatch, fifoView, ORDERS_FIFO_CONFIG } from '../helpers/failed-batch.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { streamRecords, writeSlot } from '../helpers/slot-stream.js';

/*
 * A record the run could not read for a passing reason (throttling, a server error) still there
 * after the retries is failed: a rerun may move it (exit status 1). One that needs a change first
 * (no permission) is skipped (exit status 3), as is every record held back behind either.
 */

const { server, clients } = await emulatorForFile();
const config = ORDERS_FIFO_CONFIG;
/** Quick retries: the tests wait on the redrive's own retries, never on a fixed sleep. */
const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 };

const throttled = () => new LimitExceededException({ message: 'Rate exceeded for shard', $metadata: { httpStatusCode: 400 } });
const streamsDenied = () =>
  Object.assign(new Error('User is not authorized to perform: dynamodb:GetShardIterator'), {
    name: 'AccessDeniedException',
    $metadata: { httpStatusCode: 400 },
  });
const slowDown = () =>
  Object.assign(new Error('Please reduce your request rate.'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
const s3Denied = () => Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });

/** Two commits of one order, each a failed batch of its own, on the table's (one) shard. */
async function twoCommits(prefix: string) {
  const { tableName, streamArn } = await freshTable(clients, prefix);
  await writeSlot(clients, tableName, { type: 'order', id: prefix }, ['order.placed'], 1);
  await writeSlot(clients, tableName, { type: 'order', id: prefix }, ['order.paid'], 2);
  const { shardId, records } = await streamRecords(clients, streamArn);
  expect(records).toHaveLength(2);
  return { streamArn, shardId, records: records as [_Record, _Record] };
}

/** The real streams client, except that `GetShardIterator` at `sequence` always fails with `error()`. */
function failingAt(sequence: string | undefined, error: () => Error): DynamoDBStreamsClient {
  return {
    send(command: GetShardIteratorCommand) {
      if (command instanceof GetShardIteratorCommand && command.input.SequenceNumber === sequence) return Promise.reject(error());
      return clients.streams.send(command);
    },
  } as unknown as DynamoDBStreamsClient;
}

/** The S3 client, except that `GetObject` of `key` fails with `error()` from its `from`-th call on (1: every call). */
function failingObject(key: string, error: () => Error, from = 1): S3Client {
  let calls = 0;
  return {
    send(command: GetObjectCommand) {
      if (command instanceof GetObjectCommand && command.input.Key === key && ++calls >= from) return Promise.reject(error());
      return clients.s3.send(command);
    },
  } as unknown as S3Client;
}

async function queueOf(name: string, bodies: readonly unknown[]): Promise<string> {
  const { queueUrl } = server.createQueue(name);
  for (const body of bodies) await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
  return queueUrl;
}

const keysIn = async (bucket: string) =>
  ((await clients.s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key);

describe('on-failure redrive: a read that fails after its retries', () => {
  it('SQS: a stream range still throttled is failed, and the later record of its shard is held back (skipped)', async () => {
    const view = fifoView(server, 'transient-range');
    const { streamArn, shardId, records } = await twoCommits('transient-range');
    const queueUrl = await queueOf(
      'transient-range-failures',
      records.map((r) => failedBatch(streamArn, shardId, [r])),
    );

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: failingAt(records[0].dynamodb?.SequenceNumber, throttled),
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ moved: 0, republished: 0, after: 2 });
    expect(summary.failed).toEqual([
      {
        id: expect.any(String),
        reason: expect.stringMatching(/^could not re-read shard .*LimitExceededException.*still failing after 2 attempts/),
      },
    ]);
    expect(summary.skipped).toEqual([
      { id: expect.any(String), reason: expect.stringContaining(`held back: an earlier record of shard ${shardId} was not republished`) },
    ]);
    expect(view.delivered()).toEqual([]);
    expect(queueDepth(server, 'transient-range-failures')).toBe(2);
  });

  it('SQS: a stream range refused (no permission) is skipped: a rerun meets the same refusal until the permission is fixed', async () => {
    const view = fifoView(server, 'denied-range');
    const { streamArn, shardId, records } = await twoCommits('denied-range');
    const queueUrl = await queueOf(
      'denied-range-failures',
      records.map((r) => failedBatch(streamArn, shardId, [r])),
    );

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: failingAt(records[0].dynamodb?.SequenceNumber, streamsDenied),
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ moved: 0, failed: [], after: 2 });
    expect(summary.skipped.map((p) => p.reason)).toEqual([
      expect.stringMatching(/^could not re-read shard .*AccessDeniedException/),
      expect.stringContaining('held back: an earlier record of shard'),
    ]);
  });

  it('SQS: records of a stream whose shards cannot be listed for throttling are failed; refused, skipped', async () => {
    for (const [name, error, bucket] of [
      ['unlisted-throttled', throttled, 'failed'],
      ['unlisted-denied', streamsDenied, 'skipped'],
    ] as const) {
      const view = fifoView(server, name);
      const stream = new SimulatedStream();
      const shard = stream.openShards[0]?.id ?? '';
      stream.commit({ type: 'order', id: name }, 1, 1);
      const record = stream.shards[0]?.records[0] as _Record;
      const queueUrl = await queueOf(`${name}-failures`, [failedBatch(stream.streamArn, shard, [record])]);
      const streams = {
        send: (command: unknown) =>
          command instanceof DescribeStreamCommand ? Promise.reject(error()) : stream.send(command as DescribeStreamCommand),
      } as unknown as DynamoDBStreamsClient;

      const summary = await redriveOnFailure({
        source: { sqs: clients.sqs, queueUrl },
        sns: clients.sns,
        streams,
        config,
        topicArns: view.topicArns,
        retry,
      });

      expect(summary).toMatchObject({ moved: 0, after: 1 });
      const other = bucket === 'failed' ? 'skipped' : 'failed';
      expect(summary[other]).toEqual([]);
      expect(summary[bucket]).toEqual([
        {
          id: expect.any(String),
          reason: expect.stringMatching(/^could not list the shards of .*without it, records cannot be put in stream order$/),
        },
      ]);
    }
  });

  it('S3: an object whose GetObject is still throttled is failed in either read; one refused is skipped; the shard behind them waits', async () => {
    const view = fifoView(server, 'transient-object');
    const { streamArn, shardId, records } = await twoCommits('transient-object');
    const other = await twoCommits('transient-object-other');
    const bucket = 'transient-object';
    server.createBucket(bucket);
    const put = (key: string, shard: string, arn: string, record: _Record) =>
      clients.s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: JSON.stringify(failedBatch(arn, shard, [record], { payload: batchPayload([record]) })),
        }),
      );
    // Its key names its shard, as Lambda's keys do: unread, it still holds that shard.
    const first = `aws/lambda/0f6c9a5e-1111-2222-3333-444455556666/${shardId}/2026/05/04/2026-05-04T10.15.07-1a2b3c4d-0000-4000-8000-000000000001`;
    await put(first, shardId, streamArn, records[0]);
    await put('2-later', shardId, streamArn, records[1]);
    await put('3-other', other.shardId, other.streamArn, other.records[0]);
    await put('4-other-later', other.shardId, other.streamArn, other.records[1]);
    // The first: throttled from its first read on (the pass that places it); 3-other only on its second read (its turn).
    const throttledFirst = failingObject(first, slowDown);
    const throttledSecond = failingObject('3-other', slowDown, 2);
    const s3 = {
      send: (command: GetObjectCommand) =>
        command instanceof GetObjectCommand && command.input.Key === first ? throttledFirst.send(command) : throttledSecond.send(command),
    } as unknown as S3Client;

    const summary = await redriveOnFailure({
      source: { s3, bucket },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ moved: 0, republished: 0, after: 4 });
    expect(Object.fromEntries(summary.failed.map((p) => [p.id, p.reason]))).toEqual({
      [first]: expect.stringMatching(
        /^could not read the object: SlowDown: Please reduce your request rate\. \(still failing after 2 attempts\)$/,
      ),
      '3-other': expect.stringMatching(/^could not read the object: SlowDown: .*still failing after 2 attempts/),
    });
    expect(Object.fromEntries(summary.skipped.map((p) => [p.id, p.reason]))).toEqual({
      '2-later': expect.stringContaining(`held back: an earlier record of shard ${shardId} was not republished`),
      '4-other-later': expect.stringContaining(`held back: an earlier record of shard ${other.shardId} was not republished`),
    });
    expect(view.delivered()).toEqual([]);
    expect(await keysIn(bucket)).toHaveLength(4);

    // Refused: skipped, the same object and shard otherwise.
    const denied = await redriveOnFailure({
      source: { s3: failingObject(first, s3Denied), bucket, prefix: 'aws/' },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      retry,
    });
    expect(denied).toMatchObject({
      failed: [],
      skipped: [{ id: first, reason: 'could not read the object: AccessDenied: Access Denied' }],
    });
  });
});
