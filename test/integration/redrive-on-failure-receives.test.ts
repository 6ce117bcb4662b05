import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { PublishBatchCommand, ThrottledException } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import type { PublishBatchClient } from '../../shared/relay/types.js';
import { failedBatch, fifoView, ORDERS_FIFO_CONFIG } from '../helpers/failed-batch.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';
import { recordOf, type Split, splitWithSibling, streamsOf } from '../helpers/split-stream.js';

const { server, clients } = await emulatorForFile();
const config = ORDERS_FIFO_CONFIG;
/** One attempt per read and publish: a throttle fails at once, and the tests never wait on a backoff. */
const retry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 2 };

/** Real SNS, except that a request carrying one of `failing` (event ids) is throttled. */
function snsFailing(failing: readonly (string | undefined)[]): PublishBatchClient {
  return {
    send(command: PublishBatchCommand) {
      const ids = (command.input.PublishBatchRequestEntries ?? []).map((e) => (JSON.parse(e.Message ?? '{}') as { id: string }).id);
      if (ids.some((id) => failing.includes(id))) {
        return Promise.reject(new ThrottledException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }));
      }
      return clients.sns.send(new PublishBatchCommand(command.input));
    },
  } as PublishBatchClient;
}

/** Sends one on-failure record per batch, in the order given: with `--rate 1` each comes in a receive of its own. */
async function queueOf(name: string, split: Split, batches: readonly { shardId: string; records: _Record[]; arrival?: string }[]) {
  const { queueUrl } = server.createQueue(name);
  for (const { shardId, records, arrival } of batches) {
    const body = JSON.stringify(failedBatch(split.stream.streamArn, shardId, records, arrival === undefined ? {} : { arrival }));
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  }
  return queueUrl;
}

/** A redrive of the queue, one record per receive; `receives` collects `processed` after each. */
async function oneByOne(
  queueUrl: string,
  view: { topicArns: Record<string, string> },
  streams: DynamoDBStreamsClient,
  sns?: PublishBatchClient,
) {
  const receives: number[] = [];
  const summary = await redriveOnFailure({
    source: { sqs: clients.sqs, queueUrl },
    sns: sns ?? clients.sns,
    streams,
    config,
    topicArns: view.topicArns,
    retry,
    ratePerSecond: 1,
    onProgress: (p) => receives.push(p.processed),
  });
  return { summary, receives };
}

const reasons = (problems: readonly { reason: string }[]) => problems.map((p) => p.reason);

describe('on-failure redrive from SQS: holds and lineage across receives', () => {
  it('a parent record that cannot be read holds back its child shard in later receives, but not a shard of another branch', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'across-lineage');
    const queueUrl = await queueOf('across-lineage-failures', split, [
      { shardId: split.parent, records: [recordOf(split, split.parent)] },
      { shardId: split.a, records: [recordOf(split, split.a, 0)] },
      { shardId: split.b, records: [recordOf(split, split.b)] },
      { shardId: split.a, records: [recordOf(split, split.a, 1)] },
    ]);

    const { summary, receives } = await oneByOne(queueUrl, view, streamsOf(split, { throttled: split.parent }).streams);

    // One record a receive (progress is told after each receive, then after each batch published).
    expect(receives.slice(0, 4)).toEqual([1, 2, 3, 4]);
    // Throttled still after the retries: failed, as a rerun may read it; what waits behind it is skipped.
    expect(summary).toMatchObject({ moved: 1, after: 3 });
    expect(reasons(summary.failed)).toEqual([
      expect.stringMatching(new RegExp(`^could not re-read shard ${split.parent}: .*Rate exceeded`)),
    ]);
    expect(reasons(summary.skipped)).toEqual([
      expect.stringMatching(new RegExp(`^held back: a record of parent shard ${split.parent} was not republished`)),
      expect.stringMatching(new RegExp(`^held back: a record of parent shard ${split.parent} was not republished`)),
    ]);
    expect(view.delivered().map((e) => e.id)).toEqual([split.ids.m1]);
    expect(queueDepth(server, 'across-lineage-failures')).toBe(3);
  });

  it('lists the stream again for a child shard opened after the first listing, so the hold on its parent reaches it', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'across-new-shard');
    const queueUrl = await queueOf('across-new-shard-failures', split, [
      { shardId: split.parent, records: [recordOf(split, split.parent)] },
      { shardId: split.a, records: [recordOf(split, split.a, 0)] },
      { shardId: split.a, records: [recordOf(split, split.a, 1)] },
    ]);
    const { streams, calls } = streamsOf(split, { throttled: split.parent, listedBeforeSplit: true });

    const { summary, receives } = await oneByOne(queueUrl, view, streams);

    // One record a receive (progress is told after each receive, then after each batch published).
    expect(receives.slice(0, 3)).toEqual([1, 2, 3]);
    expect(calls.describe).toBeGreaterThanOrEqual(2);
    expect(summary).toMatchObject({ moved: 0, after: 3 });
    expect(reasons(summary.failed)).toEqual([
      expect.stringMatching(new RegExp(`^could not re-read shard ${split.parent}: .*Rate exceeded`)),
    ]);
    expect(reasons(summary.skipped)).toEqual([
      expect.stringMatching(new RegExp(`^held back: a record of parent shard ${split.parent}`)),
      expect.stringMatching(new RegExp(`^held back: a record of parent shard ${split.parent}`)),
    ]);
    expect(view.delivered()).toEqual([]);
  });

  it('a record whose publish failed keeps the later records of its aggregate in later receives and child shards, not other aggregates', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'across-blocked');
    const queueUrl = await queueOf('across-blocked-failures', split, [
      { shardId: split.parent, records: [recordOf(split, split.parent)] },
      { shardId: split.a, records: [recordOf(split, split.a, 0)] },
      { shardId: split.b, records: [recordOf(split, split.b)] },
    ]);

    const { summary } = await oneByOne(queueUrl, view, streamsOf(split).streams, snsFailing([split.ids.l1]));

    expect(summary).toMatchObject({ moved: 1, skipped: [], after: 2 });
    expect(reasons(summary.failed)).toEqual([
      expect.stringContaining('Rate exceeded'),
      expect.stringContaining(`earlier event ${split.ids.l1} of aggregate order#L failed`),
    ]);
    expect(view.delivered().map((e) => e.id)).toEqual([split.ids.m1]);
  });

  it('publishes a later batch of a shard after an earlier one that comes in a later receive', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'across-late-first');
    const queueUrl = await queueOf('across-late-first-failures', split, [
      { shardId: split.a, records: [recordOf(split, split.a, 1)] },
      { shardId: split.a, records: [recordOf(split, split.a, 0)] },
    ]);

    const { summary, receives } = await oneByOne(queueUrl, view, streamsOf(split).streams);

    // Both received, one a receive, before either is published.
    expect(receives.slice(0, 2)).toEqual([1, 2]);
    expect(summary).toMatchObject({ moved: 2, failed: [], skipped: [], republished: 2, after: 0 });
    expect(view.delivered().map((e) => e.id)).toEqual([split.ids.l2, split.ids.l3]);
  });

  it('publishes a closed parent shard and then its child in later receives, in order, from the stream read again', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'across-closed');
    const queueUrl = await queueOf('across-closed-failures', split, [
      { shardId: split.parent, records: [recordOf(split, split.parent)] },
      { shardId: split.a, records: [recordOf(split, split.a, 0), recordOf(split, split.a, 1)] },
    ]);

    const { summary, receives } = await oneByOne(queueUrl, view, streamsOf(split).streams);

    // One record a receive (progress is told after each receive, then after each batch published).
    expect(receives.slice(0, 2)).toEqual([1, 2]);
    expect(summary).toMatchObject({ moved: 2, failed: [], skipped: [], republished: 3, after: 0 });
    expect(view.delivered().map((e) => e.id)).toEqual([split.ids.l1, split.ids.l2, split.ids.l3]);
  });

  it('keeps a record whose range runs past the end of its closed shard, and holds its children', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'across-past-end');
    const { queueUrl } = server.createQueue('across-past-end-failures');
    const parentRecord = recordOf(split, split.parent);
    // The batch says it ends after the shard's last record: the read cannot reach its end.
    const record = failedBatch(split.stream.streamArn, split.parent, [parentRecord]);
    const pastEnd = { ...record, DDBStreamBatchInfo: { ...record.DDBStreamBatchInfo, endSequenceNumber: '999999999999999' } };
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(pastEnd) }));
    const body = JSON.stringify(failedBatch(split.stream.streamArn, split.a, [recordOf(split, split.a, 0)]));
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));

    const { summary } = await oneByOne(queueUrl, view, streamsOf(split).streams);

    expect(summary).toMatchObject({ moved: 0, failed: [], after: 2 });
    expect(reasons(summary.skipped)).toEqual([
      expect.stringContaining('the shard is closed and has no more records'),
      expect.stringMatching(new RegExp(`^held back: a record of parent shard ${split.parent}`)),
    ]);
    expect(view.delivered()).toEqual([]);
  });

  it('holds a duplicate of a kept record, and publishes a duplicate of a published one again under the same event id', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'across-duplicate');
    const parent = { shardId: split.parent, records: [recordOf(split, split.parent)] };
    const sibling = { shardId: split.b, records: [recordOf(split, split.b)] };
    const queueUrl = await queueOf('across-duplicate-failures', split, [parent, sibling, parent, sibling]);

    const { summary } = await oneByOne(queueUrl, view, streamsOf(split, { throttled: split.parent }).streams);

    expect(summary).toMatchObject({ moved: 2, after: 2 });
    expect(reasons(summary.failed)).toEqual([expect.stringMatching(/^could not re-read shard .*Rate exceeded/)]);
    expect(reasons(summary.skipped)).toEqual([
      expect.stringMatching(new RegExp(`^held back: an earlier record of shard ${split.parent} was not republished`)),
    ]);
    // The FIFO topic takes the event id as its deduplication id: the copy is not delivered twice.
    expect(view.delivered().map((e) => e.id)).toEqual([split.ids.m1]);
  });
});

describe('on-failure redrive from SQS: records the stream no longer holds', () => {
  it('a batch whose first record was trimmed within 24 h is kept, not retried, and holds back the rest of its shard', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'trimmed');
    const [l2, l3] = [recordOf(split, split.a, 0), recordOf(split, split.a, 1)];
    // The batch [L2, L3] lost its first record; the later batch [L3] could still be read.
    split.stream.trimRecords(split.a, 1);
    const queueUrl = await queueOf('trimmed-failures', split, [
      { shardId: split.a, records: [l2, l3] },
      { shardId: split.a, records: [l3] },
    ]);
    const { streams, calls } = streamsOf(split);

    const { summary } = await oneByOne(queueUrl, view, streams);

    expect(summary).toMatchObject({ moved: 0, failed: [], after: 2 });
    expect(reasons(summary.skipped)).toEqual([
      expect.stringMatching(/^could not re-read shard .*TrimmedDataAccessException/),
      expect.stringMatching(new RegExp(`^held back: an earlier record of shard ${split.a} was not republished`)),
    ]);
    // Retrying cannot bring trimmed records back: one attempt, though the run allows more.
    expect(calls.iterators.filter((c) => c.startsWith(split.a))).toHaveLength(1);
    expect(view.delivered()).toEqual([]);
  });

  it('a batch past the 24-hour retention that the stream trimmed is kept, asked for once from each end, and holds nothing back', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'expired-across');
    const old = new Date(Date.now() - 25 * 3_600_000).toISOString();
    const parentRecord = recordOf(split, split.parent);
    split.stream.trimRecords(split.parent, 1);
    const queueUrl = await queueOf('expired-across-failures', split, [
      { shardId: split.parent, records: [parentRecord], arrival: old },
      { shardId: split.a, records: [recordOf(split, split.a, 0)] },
    ]);
    const { streams, calls } = streamsOf(split);

    const { summary } = await oneByOne(queueUrl, view, streams);

    expect(summary).toMatchObject({ moved: 1, failed: [], after: 1 });
    expect(reasons(summary.skipped)).toEqual([expect.stringMatching(/retention 24 h: TrimmedDataAccessException/)]);
    // At its start, then from the oldest record left (the shard holds none of it), neither retried.
    expect(calls.iterators.filter((c) => c.startsWith(split.parent))).toEqual([
      `${split.parent}@${parentRecord.dynamodb?.SequenceNumber}`,
      `${split.parent}@TRIM_HORIZON`,
    ]);
    expect(view.delivered().map((e) => e.id)).toEqual([split.ids.l2]);
  });

  it('a batch past the 24-hour retention whose read is throttled still holds its shard: the stream may hold it yet', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'late-throttled');
    const old = new Date(Date.now() - 25 * 3_600_000).toISOString();
    const queueUrl = await queueOf('late-throttled-failures', split, [
      { shardId: split.parent, records: [recordOf(split, split.parent)], arrival: old },
      { shardId: split.a, records: [recordOf(split, split.a, 0)] },
    ]);

    const { summary } = await oneByOne(queueUrl, view, streamsOf(split, { throttled: split.parent }).streams);

    expect(summary).toMatchObject({ moved: 0, after: 2 });
    expect(reasons(summary.failed)).toEqual([
      expect.stringMatching(new RegExp(`^could not re-read shard ${split.parent}: .*Rate exceeded`)),
    ]);
    expect(reasons(summary.skipped)).toEqual([expect.stringMatching(new RegExp(`^held back: a record of parent shard ${split.parent}`))]);
    expect(view.delivered()).toEqual([]);
  });

  it('a batch past the 24-hour retention whose read is refused (no permission) holds its shard: the stream may hold it yet', async () => {
    const split = splitWithSibling();
    const view = fifoView(server, 'late-denied');
    const old = new Date(Date.now() - 25 * 3_600_000).toISOString();
    const queueUrl = await queueOf('late-denied-failures', split, [
      { shardId: split.parent, records: [recordOf(split, split.parent)], arrival: old },
      { shardId: split.a, records: [recordOf(split, split.a, 0)] },
    ]);

    const { summary } = await oneByOne(queueUrl, view, streamsOf(split, { denied: split.parent }).streams);

    expect(summary).toMatchObject({ moved: 0, failed: [], after: 2 });
    expect(reasons(summary.skipped)).toEqual([
      expect.stringMatching(new RegExp(`^could not re-read shard ${split.parent}: AccessDeniedException`)),
      expect.stringMatching(new RegExp(`^held back: a record of parent shard ${split.parent}`)),
    ]);
    expect(view.delivered()).toEqual([]);
  });
});
