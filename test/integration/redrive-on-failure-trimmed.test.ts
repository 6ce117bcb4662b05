import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { formatSummary } from '../../shared/redrive/summary.js';
import { failedBatch, fifoView, ORDERS_FIFO_CONFIG } from '../helpers/failed-batch.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';
import { recordOf, splitWithSibling, streamsOf } from '../helpers/split-stream.js';

const { server, clients } = await emulatorForFile();
const config = ORDERS_FIFO_CONFIG;
/** One attempt per read and publish: the tests never wait on a backoff. */
const retry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 2 };
/** Past the stream's 24-hour retention, as a batch the relay gave up at 24 h is when it is redriven. */
const old = () => new Date(Date.now() - 25 * 3_600_000).toISOString();

/**
 * Order L's commits L2, L3 and L4 in shard A (its L1 in A's parent), each a record of its own.
 * The failed batch [L2, L3] (first arrived 25 h ago) and the later one [L4].
 */
function shardA() {
  const split = splitWithSibling();
  const [l4] = split.stream.commit({ type: 'order', id: 'L' }, 4, 1);
  const [l2, l3, l4Record] = [0, 1, 2].map((i) => recordOf(split, split.a, i)) as [_Record, _Record, _Record];
  const sequence = (record: _Record) => record.dynamodb?.SequenceNumber ?? '';
  const batches = [
    { records: [l2, l3], arrival: old() },
    { records: [l4Record], arrival: old() },
  ];
  return { split, batches, ids: { ...split.ids, l4 }, seq: { l2: sequence(l2), l3: sequence(l3) } };
}

type Batches = ReturnType<typeof shardA>['batches'];

async function queueOf(name: string, streamArn: string, shardId: string, batches: Batches) {
  const { queueUrl } = server.createQueue(name);
  for (const { records, arrival } of batches) {
    const body = JSON.stringify(failedBatch(streamArn, shardId, records, { arrival }));
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  }
  return queueUrl;
}

const fromQueue = (queueUrl: string, streams: DynamoDBStreamsClient, topicArns: Record<string, string>, dryRun = false) =>
  redriveOnFailure({ source: { sqs: clients.sqs, queueUrl }, sns: clients.sns, streams, config, topicArns, retry, dryRun });

const reasons = (problems: readonly { reason: string }[]) => problems.map((p) => p.reason);

describe('on-failure redrive: a batch past the retention whose first records the stream trimmed', () => {
  it('republishes the records still there, reports the trimmed range, keeps the record and holds nothing back (SQS)', async () => {
    const { split, batches, ids, seq } = shardA();
    const view = fifoView(server, 'part-trimmed');
    split.stream.trimRecords(split.a, 1);
    const queueUrl = await queueOf('part-trimmed-failures', split.stream.streamArn, split.a, batches);
    const { streams, calls } = streamsOf(split);

    const summary = await fromQueue(queueUrl, streams, view.topicArns);

    expect(view.delivered().map((e) => e.id)).toEqual([ids.l3, ids.l4]);
    expect(summary).toMatchObject({ moved: 1, republished: 2, failed: [], after: 1 });
    const trimmed = `sequence numbers ${seq.l2} to just before ${seq.l3} of shard ${split.a} were trimmed from the stream`;
    expect(reasons(summary.skipped)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${trimmed} \\(first arrived .*, retention 24 h\\) and the record has no payload; the 1 event of its records still there was republished$`,
        ),
      ),
    ]);
    expect(calls.iterators.filter((c) => c.startsWith(split.a))).toEqual([
      `${split.a}@${seq.l2}`,
      `${split.a}@TRIM_HORIZON`,
      expect.any(String),
    ]);
    expect(queueDepth(server, 'part-trimmed-failures')).toBe(1);
    expect(summary.keptRepublished).toEqual({ trimmed: { records: 1, events: 1 } });
    const text = formatSummary(summary);
    // The moved record's event; the kept record's event is told with the record, which stays.
    expect(text).toContain('  moved        1 (1 event)\n');
    expect(text).toContain(
      '  skipped:     1 (1 kept after the 1 event of its records still in the stream was republished: the stream had trimmed the first records of its batch)\n',
    );
    expect(text).toContain(`  skipped ${summary.skipped[0]?.id}: ${trimmed}`);
  });

  it('a dry run says the record would stay, and publishes nothing', async () => {
    const { split, batches, seq } = shardA();
    const view = fifoView(server, 'part-trimmed-dry');
    split.stream.trimRecords(split.a, 1);
    const queueUrl = await queueOf('part-trimmed-dry-failures', split.stream.streamArn, split.a, batches);

    const summary = await fromQueue(queueUrl, streamsOf(split).streams, view.topicArns, true);

    expect(view.delivered()).toEqual([]);
    // The record that would move and the one that would stay after its event went out: as an S3 dry run counts them.
    expect(summary).toMatchObject({ status: 'dry-run', moved: 1, republished: 2, failed: [], after: 2 });
    expect(summary.keptRepublished).toEqual({ trimmed: { records: 1, events: 1 } });
    expect(formatSummary(summary)).toContain(
      '  skipped:     1 (1 would be kept after the 1 event of its records still in the stream was republished: the stream had trimmed the first records of its batch)\n',
    );
    expect(reasons(summary.skipped)).toEqual([
      expect.stringMatching(
        new RegExp(`^sequence numbers ${seq.l2} to just before ${seq.l3} .*; the 1 event of its records still there would be republished$`),
      ),
    ]);
  });

  it('is expired as before when the oldest record left is past its end, and the later batch still goes out', async () => {
    const { split, batches, ids } = shardA();
    const view = fifoView(server, 'all-trimmed');
    split.stream.trimRecords(split.a, 2);
    const queueUrl = await queueOf('all-trimmed-failures', split.stream.streamArn, split.a, batches);

    const summary = await fromQueue(queueUrl, streamsOf(split).streams, view.topicArns);

    expect(view.delivered().map((e) => e.id)).toEqual([ids.l4]);
    expect(summary).toMatchObject({ moved: 1, republished: 1, failed: [], after: 1 });
    expect(reasons(summary.skipped)).toEqual([
      expect.stringMatching(
        /^the stream no longer holds these records \(.*TrimmedDataAccessException.*; the oldest record left is past its end\)/,
      ),
    ]);
  });

  it('republishes what is left of a batch in a shard closed since', async () => {
    const { split, batches, ids, seq } = shardA();
    const view = fifoView(server, 'part-trimmed-closed');
    split.stream.split(split.a);
    split.stream.trimRecords(split.a, 1);
    const queueUrl = await queueOf('part-trimmed-closed-failures', split.stream.streamArn, split.a, batches);

    const summary = await fromQueue(queueUrl, streamsOf(split).streams, view.topicArns);

    expect(view.delivered().map((e) => e.id)).toEqual([ids.l3, ids.l4]);
    expect(summary).toMatchObject({ moved: 1, republished: 2, failed: [], after: 1 });
    expect(reasons(summary.skipped)).toEqual([expect.stringContaining(`sequence numbers ${seq.l2} to just before ${seq.l3}`)]);
  });

  it('from S3: republishes the records still there (a dry run none), counts them, and keeps the object', async () => {
    const { split, batches, ids, seq } = shardA();
    const view = fifoView(server, 'part-trimmed-s3');
    split.stream.trimRecords(split.a, 1);
    server.createBucket('part-trimmed');
    for (const [i, { records, arrival }] of batches.entries()) {
      const body = JSON.stringify(failedBatch(split.stream.streamArn, split.a, records, { arrival }));
      await clients.s3.send(new PutObjectCommand({ Bucket: 'part-trimmed', Key: `batch-${i}.json`, Body: body }));
    }

    const run = (dryRun: boolean) =>
      redriveOnFailure({
        source: { s3: clients.s3, bucket: 'part-trimmed' },
        sns: clients.sns,
        streams: streamsOf(split).streams,
        config,
        topicArns: view.topicArns,
        retry,
        dryRun,
      });

    const dry = await run(true);
    expect(view.delivered()).toEqual([]);
    expect(dry).toMatchObject({ status: 'dry-run', moved: 1, republished: 2, after: 2 });
    expect(dry.keptRepublished).toEqual({ trimmed: { records: 1, events: 1 } });
    expect(reasons(dry.skipped)).toEqual([expect.stringMatching(/; the 1 event of its records still there would be republished$/)]);

    const summary = await run(false);
    expect(view.delivered().map((e) => e.id)).toEqual([ids.l3, ids.l4]);
    expect(summary).toMatchObject({ moved: 1, republished: 2, failed: [], before: 2, after: 1 });
    expect(summary.keptRepublished).toEqual({ trimmed: { records: 1, events: 1 } });
    expect(formatSummary(summary)).toContain('  moved        1 (1 event)\n');
    expect(summary.skipped).toEqual([
      { id: 'batch-0.json', reason: expect.stringContaining(`sequence numbers ${seq.l2} to just before ${seq.l3}`) },
    ]);
  });
});
