import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  DescribeStreamCommand,
  GetShardIteratorCommand,
  LimitExceededException,
  ResourceNotFoundException,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { NO_RELAY_DLQ } from '../../shared/redrive/on-failure-dead-letters.js';
import { batchPayload, failedBatch, fifoView } from '../helpers/failed-batch.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile, freshTable } from '../helpers/local.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { streamRecords, writeSlot } from '../helpers/slot-stream.js';

const { server, clients } = await emulatorForFile();
const config = defineConfig({
  source: 'urn:dynamodb-outbox:test',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' }, // 'invoice' has no route
});
/** Without a relay DLQ, the unrouted record is skipped and says how to move it. */
const UNROUTED = `aggregate type "invoice" has no route; ${NO_RELAY_DLQ}`;
/** Quick retries: the tests wait on the redrive's own retries, never on a fixed sleep. */
const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 };

/** Batch 1 = [order O commit 1, a slot of the unrouted type 'invoice']; batch 2 = [order O commit 2]. */
async function unroutedFirst(prefix: string) {
  const { tableName, streamArn } = await freshTable(clients, prefix);
  const placed = await writeSlot(clients, tableName, { type: 'order', id: 'O' }, ['order.placed'], 1);
  await writeSlot(clients, tableName, { type: 'invoice', id: 'I' }, ['invoice.raised'], 1);
  const paid = await writeSlot(clients, tableName, { type: 'order', id: 'O' }, ['order.paid'], 2);
  const { shardId, records } = await streamRecords(clients, streamArn);
  expect(records).toHaveLength(3);
  return { streamArn, shardId, first: records.slice(0, 2), second: records.slice(2), ids: [placed[0]?.id, paid[0]?.id] };
}

/** One order's two commits on a simulated stream, the second in the child shard of a split. */
function splitStream() {
  const stream = new SimulatedStream();
  const parent = stream.openShards[0]?.id ?? '';
  stream.commit({ type: 'order', id: 'L' }, 1, 1);
  stream.split(parent);
  const second = stream.commit({ type: 'order', id: 'L' }, 2, 1);
  const child = stream.shardOfEvent.get(second[0] ?? '') ?? '';
  const recordOf = (shardId: string) => stream.shards.find((s) => s.id === shardId)?.records[0] as _Record;
  return { stream, parent, child, recordOf };
}

/** The simulated stream, except that `DescribeStream` fails with `error` and `GetShardIterator` on `unreadable` is throttled. */
function withoutLineage(stream: SimulatedStream, error: Error, unreadable?: string): DynamoDBStreamsClient {
  const throttled = () => Promise.reject(new LimitExceededException({ message: 'Rate exceeded', $metadata: {} }));
  return {
    send(command: unknown) {
      if (command instanceof DescribeStreamCommand) return Promise.reject(error);
      if (command instanceof GetShardIteratorCommand) {
        if (command.input.ShardId === unreadable) return throttled();
        // The simulation has no AT_SEQUENCE_NUMBER; each shard here holds the batch's one record.
        return stream.send(new GetShardIteratorCommand({ ...command.input, ShardIteratorType: 'TRIM_HORIZON', SequenceNumber: undefined }));
      }
      return stream.send(command as DescribeStreamCommand);
    },
  } as unknown as DynamoDBStreamsClient;
}

/**
 * The real streams client, except that the records through `batch`'s last are trimmed: an iterator
 * at its first fails as past the retention, and the oldest record left is the one after it.
 */
function trimmedThrough(batch: readonly _Record[]): DynamoDBStreamsClient {
  const [first, last] = [batch[0]?.dynamodb?.SequenceNumber, batch.at(-1)?.dynamodb?.SequenceNumber];
  return {
    send(command: GetShardIteratorCommand) {
      if (command instanceof GetShardIteratorCommand && command.input.SequenceNumber === first) {
        return Promise.reject(new TrimmedDataAccessException({ message: 'Trimmed', $metadata: {} }));
      }
      if (command instanceof GetShardIteratorCommand && command.input.ShardIteratorType === 'TRIM_HORIZON') {
        return clients.streams.send(
          new GetShardIteratorCommand({ ...command.input, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: last }),
        );
      }
      return clients.streams.send(command);
    },
  } as unknown as DynamoDBStreamsClient;
}

const gone = () => new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: {} });

describe('on-failure redrive: a record skipped after decoding holds its shard', () => {
  it('S3: a batch with an unrouted slot holds back the later batch of its shard, and always says whether it was a dry run', async () => {
    const view = fifoView(server, 'unrouted-s3');
    const { streamArn, shardId, first, second } = await unroutedFirst('unrouted-s3');
    server.createBucket('unrouted-s3');
    for (const [key, records] of [
      ['1', first],
      ['2', second],
    ] as const) {
      const body = JSON.stringify(failedBatch(streamArn, shardId, records, { payload: batchPayload(records) }));
      await clients.s3.send(new PutObjectCommand({ Bucket: 'unrouted-s3', Key: key, Body: body }));
    }

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'unrouted-s3' },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
    });

    expect(summary).toMatchObject({ dryRun: false, moved: 0, republished: 0, failed: [], before: 2, after: 2 });
    expect(summary.skipped).toEqual([
      { id: '1', reason: UNROUTED },
      {
        id: '2',
        reason: expect.stringContaining(`held back: an earlier record of shard ${shardId} was not republished (object 1: aggregate`),
      },
    ]);
    expect(view.delivered()).toEqual([]);
    const left = await clients.s3.send(new ListObjectsV2Command({ Bucket: 'unrouted-s3' }));
    expect((left.Contents ?? []).map((o) => o.Key)).toEqual(['1', '2']);
  });

  it('SQS: a later record planned first in the same receive is held back too, and reported skipped, not failed', async () => {
    const view = fifoView(server, 'unrouted-sqs');
    const { streamArn, shardId, first, second } = await unroutedFirst('unrouted-sqs');
    const { queueUrl } = server.createQueue('unrouted-sqs-failures');
    // The later batch first: it is planned before the hold is found, and must still wait.
    for (const records of [second, first]) {
      await clients.sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failedBatch(streamArn, shardId, records)) }),
      );
    }
    const progress: { failed: number; skipped: number }[] = [];

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: clients.streams,
      config,
      topicArns: view.topicArns,
      onProgress: (p) => progress.push({ failed: p.failed, skipped: p.skipped }),
    });

    expect(summary).toMatchObject({ dryRun: false, moved: 0, republished: 0, failed: [], after: 2 });
    expect(summary.skipped.map((p) => p.reason).sort()).toEqual([
      UNROUTED,
      expect.stringMatching(
        new RegExp(`^held back: an earlier record of shard ${shardId} was not republished \\(message .*has no route; `),
      ),
    ]);
    expect(progress.at(-1)).toEqual({ failed: 0, skipped: 2 });
    expect(view.delivered()).toEqual([]);
    expect(queueDepth(server, 'unrouted-sqs-failures')).toBe(2);
  });

  it('SQS dry run: counts the later record held back as skipped, as the real run does, not as one that would move', async () => {
    const view = fifoView(server, 'unrouted-dry');
    const { streamArn, shardId, first, second } = await unroutedFirst('unrouted-dry');
    const { queueUrl } = server.createQueue('unrouted-dry-failures');
    for (const records of [second, first]) {
      await clients.sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failedBatch(streamArn, shardId, records)) }),
      );
    }
    const run = { source: { sqs: clients.sqs, queueUrl }, sns: clients.sns, streams: clients.streams, config, topicArns: view.topicArns };

    const dry = await redriveOnFailure({ ...run, dryRun: true });
    const real = await redriveOnFailure(run);

    for (const summary of [dry, real]) {
      expect(summary).toMatchObject({ moved: 0, republished: 0, failed: [] });
      expect(summary.skipped.map((p) => (p.reason === UNROUTED ? p.reason : p.reason.split(' (')[0])).sort()).toEqual([
        UNROUTED,
        `held back: an earlier record of shard ${shardId} was not republished`,
      ]);
    }
    expect(dry.status).toBe('dry-run');
    expect(queueDepth(server, 'unrouted-dry-failures')).toBe(2);
  });

  it('SQS: a record past the stream retention whose records were trimmed holds nothing back, as it can never be read again', async () => {
    const view = fifoView(server, 'expired-sqs');
    const { streamArn, shardId, first, second, ids } = await unroutedFirst('expired-sqs');
    const { queueUrl } = server.createQueue('expired-sqs-failures');
    const old = new Date(Date.now() - 25 * 3_600_000).toISOString();
    await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failedBatch(streamArn, shardId, first, { arrival: old })) }),
    );
    await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failedBatch(streamArn, shardId, second)) }),
    );

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: trimmedThrough(first),
      config,
      topicArns: view.topicArns,
    });

    expect(summary).toMatchObject({ moved: 1, failed: [], after: 1 });
    expect(summary.skipped).toEqual([
      { id: expect.any(String), reason: expect.stringMatching(/retention 24 h: TrimmedDataAccessException/) },
    ]);
    expect(view.delivered().map((e) => e.id)).toEqual([ids[1]]);
  });
});

describe('on-failure redrive: a hold reaches every later shard of a stream whose lineage is not known', () => {
  it('S3, the stream gone: a malformed parent batch holds back the child batch that arrived after it', async () => {
    const view = fifoView(server, 'gone-s3');
    const { stream, parent, child, recordOf } = splitStream();
    server.createBucket('gone-s3');
    const parentBatch = {
      ...failedBatch(stream.streamArn, parent, [recordOf(parent)], { arrival: '2026-05-04T10:00:00Z' }),
      payload: 'not json',
    };
    const childBatch = failedBatch(stream.streamArn, child, [recordOf(child)], {
      payload: batchPayload([recordOf(child)]),
      arrival: '2026-05-04T10:00:05Z',
    });
    await clients.s3.send(new PutObjectCommand({ Bucket: 'gone-s3', Key: 'p', Body: JSON.stringify(parentBatch) }));
    await clients.s3.send(new PutObjectCommand({ Bucket: 'gone-s3', Key: 'c', Body: JSON.stringify(childBatch) }));

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'gone-s3' },
      sns: clients.sns,
      streams: withoutLineage(stream, gone()),
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ moved: 0, failed: [], after: 2 });
    expect(summary.skipped).toEqual([
      { id: 'p', reason: expect.stringMatching(/^payload is a string that is not JSON/) },
      {
        id: 'c',
        reason: expect.stringMatching(new RegExp(`^held back: a record of shard ${parent}, which arrived no later, was not republished`)),
      },
    ]);
    expect(summary.notes).toEqual([expect.stringContaining('put in order by the arrival of their first record')]);
    expect(view.delivered()).toEqual([]);
  });

  it('S3, a middle shard gone from the listing: a held grandparent batch still holds back the grandchild batch', async () => {
    // G → P → C; G's batch cannot be republished, P has none, and G and P left the stream (24 h after closing).
    const stream = new SimulatedStream();
    const grandparent = stream.openShards[0]?.id ?? '';
    stream.commit({ type: 'order', id: 'L' }, 1, 1);
    stream.split(grandparent);
    const middle = stream.shardOfEvent.get(stream.commit({ type: 'order', id: 'L' }, 2, 1)[0] ?? '') ?? '';
    stream.split(middle);
    const grandchild = stream.shardOfEvent.get(stream.commit({ type: 'order', id: 'L' }, 3, 1)[0] ?? '') ?? '';
    stream.trim(grandparent);
    stream.trim(middle);
    const recordOf = (shardId: string) => stream.shards.find((sh) => sh.id === shardId)?.records.at(-1) as _Record;
    const view = fifoView(server, 'lineage-gap');
    server.createBucket('lineage-gap');
    const held = {
      ...failedBatch(stream.streamArn, grandparent, [recordOf(grandparent)], { arrival: '2026-05-04T10:00:00Z' }),
      payload: 'not json',
    };
    const later = failedBatch(stream.streamArn, grandchild, [recordOf(grandchild)], {
      payload: batchPayload([recordOf(grandchild)]),
      arrival: '2026-05-04T10:00:09Z',
    });
    await clients.s3.send(new PutObjectCommand({ Bucket: 'lineage-gap', Key: 'g', Body: JSON.stringify(held) }));
    await clients.s3.send(new PutObjectCommand({ Bucket: 'lineage-gap', Key: 'c', Body: JSON.stringify(later) }));

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'lineage-gap' },
      sns: clients.sns,
      streams: stream as unknown as DynamoDBStreamsClient,
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ moved: 0, failed: [], after: 2 });
    expect(summary.skipped).toEqual([
      { id: 'g', reason: expect.stringMatching(/^payload is a string that is not JSON/) },
      {
        id: 'c',
        reason: expect.stringMatching(
          new RegExp(`^held back: a record of shard ${grandparent}, which arrived no later, was not republished`),
        ),
      },
    ]);
    expect(view.delivered()).toEqual([]);
  });

  it('S3, a day-old stream whose oldest listed shards name a trimmed parent: a held shard holds back no shard of another branch', async () => {
    // R → A and B; R left the listing, so A and B name a parent no listing has. A's batch is held; B is not A's.
    const stream = new SimulatedStream();
    const root = stream.openShards[0]?.id ?? '';
    stream.commit({ type: 'order', id: 'L' }, 1, 1);
    stream.split(root);
    stream.trim(root);
    const [a, b] = stream.openShards.map((shard) => shard.id) as [string, string];
    const commitIn = (shardId: string, seq: number): _Record => {
      for (let i = 0; ; i++) {
        const id = `k${seq}-${i}`;
        const [event] = stream.commit({ type: 'order', id }, 1, 1);
        if (stream.shardOfEvent.get(event ?? '') === shardId)
          return stream.shards.find((sh) => sh.id === shardId)?.records.at(-1) as _Record;
      }
    };
    const inA = commitIn(a, 1);
    const inB = commitIn(b, 2);
    const view = fifoView(server, 'branches');
    server.createBucket('branches');
    const held = { ...failedBatch(stream.streamArn, a, [inA], { arrival: '2026-05-04T10:00:00Z' }), payload: 'not json' };
    const other = failedBatch(stream.streamArn, b, [inB], { payload: batchPayload([inB]), arrival: '2026-05-04T10:00:09Z' });
    await clients.s3.send(new PutObjectCommand({ Bucket: 'branches', Key: 'a', Body: JSON.stringify(held) }));
    await clients.s3.send(new PutObjectCommand({ Bucket: 'branches', Key: 'b', Body: JSON.stringify(other) }));

    const summary = await redriveOnFailure({
      source: { s3: clients.s3, bucket: 'branches' },
      sns: clients.sns,
      streams: stream as unknown as DynamoDBStreamsClient,
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ moved: 1, failed: [], after: 1 });
    expect(summary.skipped).toEqual([{ id: 'a', reason: expect.stringMatching(/^payload is a string that is not JSON/) }]);
    expect(view.delivered()).toHaveLength(1);
  });

  it('SQS, the stream gone: an unreadable parent range holds back the child record of the same receive', async () => {
    const view = fifoView(server, 'gone-sqs');
    const { stream, parent, child, recordOf } = splitStream();
    const { queueUrl } = server.createQueue('gone-sqs-failures');
    // The child's records arrived after the parent's (within 24 h: the stream is read again); its message comes first.
    const arrival = { [parent]: new Date(Date.now() - 10_000).toISOString(), [child]: new Date(Date.now() - 5_000).toISOString() };
    for (const shardId of [child, parent]) {
      const body = JSON.stringify(failedBatch(stream.streamArn, shardId, [recordOf(shardId)], { arrival: arrival[shardId] }));
      await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    }

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: withoutLineage(stream, gone(), parent),
      config,
      topicArns: view.topicArns,
      retry,
    });

    // The parent's range is throttled still after the retries: failed (a rerun may read it), the child held back behind it.
    expect(summary).toMatchObject({ moved: 0, after: 2 });
    expect(summary.failed.map((p) => p.reason)).toEqual([expect.stringMatching(new RegExp(`^could not re-read shard ${parent}`))]);
    expect(summary.skipped.map((p) => p.reason)).toEqual([
      expect.stringMatching(new RegExp(`^held back: a record of shard ${parent}, which arrived no later, was not republished`)),
    ]);
    expect(view.delivered()).toEqual([]);
  });

  it('SQS, the listing throttled: the records of the stream are failed, as they cannot be put in stream order until a rerun lists it', async () => {
    const view = fifoView(server, 'unlisted-sqs');
    const { stream, parent, child, recordOf } = splitStream();
    const { queueUrl } = server.createQueue('unlisted-sqs-failures');
    for (const shardId of [child, parent]) {
      const body = JSON.stringify(failedBatch(stream.streamArn, shardId, [recordOf(shardId)]));
      await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    }
    const throttled = new LimitExceededException({ message: 'Rate exceeded', $metadata: {} });

    const summary = await redriveOnFailure({
      source: { sqs: clients.sqs, queueUrl },
      sns: clients.sns,
      streams: withoutLineage(stream, throttled),
      config,
      topicArns: view.topicArns,
      retry,
    });

    expect(summary).toMatchObject({ moved: 0, skipped: [], after: 2 });
    expect(summary.failed).toEqual([
      {
        id: expect.any(String),
        reason: expect.stringMatching(/LimitExceededException.*without it, records cannot be put in stream order$/),
      },
      {
        id: expect.any(String),
        reason: expect.stringMatching(/LimitExceededException.*without it, records cannot be put in stream order$/),
      },
    ]);
    expect(view.delivered()).toEqual([]);
  });
});
