import {
  type _Record,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type GetShardIteratorCommandOutput,
} from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { failedBatch, fifoView, ORDERS_FIFO_CONFIG } from '../helpers/failed-batch.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';
import { recordOf, type Split, splitWithSibling, streamsOf } from '../helpers/split-stream.js';

const { server, clients } = await emulatorForFile();
const config = ORDERS_FIFO_CONFIG;
/** One attempt per read and publish: the tests never wait on a backoff. */
const retry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 2 };
/** Past the stream's 24-hour retention, as a batch the relay gave up at 24 h is when it is redriven. */
const old = () => new Date(Date.now() - 25 * 3_600_000).toISOString();
const sequence = (record: _Record) => record.dynamodb?.SequenceNumber ?? '';

/**
 * Order L's commits L2 to L5 in shard A, a record each: the failed batch [L2, L3, L4] and the
 * later one [L5], both first arrived 25 h ago.
 */
function shardA() {
  const split = splitWithSibling();
  const [l4] = split.stream.commit({ type: 'order', id: 'L' }, 4, 1);
  const [l5] = split.stream.commit({ type: 'order', id: 'L' }, 5, 1);
  const records = [0, 1, 2, 3].map((i) => recordOf(split, split.a, i)) as [_Record, _Record, _Record, _Record];
  return { split, records, ids: { ...split.ids, l4, l5 } };
}

/**
 * The stream as {@link streamsOf} answers, except that a read from shard A's iterator `from` (at the
 * sequence number `at`, if given) gives nothing past `cut`: its pages come back empty from there on,
 * as a read that cannot get further.
 */
function cutShort(split: Split, from: 'TRIM_HORIZON' | 'AT_SEQUENCE_NUMBER', cut: string, at?: string) {
  const { streams } = streamsOf(split);
  const stunted = new Set<string>();
  const client = {
    async send(command: unknown) {
      if (command instanceof GetRecordsCommand) {
        const page = (await streams.send(command)) as GetRecordsCommandOutput;
        if (!stunted.has(command.input.ShardIterator ?? '')) return page;
        if (page.NextShardIterator !== undefined) stunted.add(page.NextShardIterator);
        return { ...page, Records: (page.Records ?? []).filter((r) => BigInt(sequence(r)) <= BigInt(cut)) };
      }
      const answer = await streams.send(command as GetShardIteratorCommand);
      if (!(command instanceof GetShardIteratorCommand)) return answer;
      const { input } = command;
      if (input.ShardId === split.a && input.ShardIteratorType === from && (at === undefined || input.SequenceNumber === at)) {
        stunted.add((answer as GetShardIteratorCommandOutput).ShardIterator ?? '');
      }
      return answer;
    },
  };
  return client as unknown as DynamoDBStreamsClient;
}

async function redrive(name: string, split: Split, batches: readonly _Record[][], streams: DynamoDBStreamsClient) {
  const view = fifoView(server, name);
  const { queueUrl } = server.createQueue(`${name}-failures`);
  for (const records of batches) {
    const body = JSON.stringify(failedBatch(split.stream.streamArn, split.a, records, { arrival: old() }));
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  }
  const summary = await redriveOnFailure({
    source: { sqs: clients.sqs, queueUrl },
    sns: clients.sns,
    streams,
    config,
    topicArns: view.topicArns,
    retry,
  });
  return { summary, view, depth: () => queueDepth(server, `${name}-failures`) };
}

const reasons = (problems: readonly { reason: string }[]) => problems.map((p) => p.reason);

describe('on-failure redrive past the retention: a read that gets part of the batch but not to its end', () => {
  it('from the oldest record left (the start trimmed): keeps the record and holds its shard, not taken for gone', async () => {
    const { split, records } = shardA();
    const [l2, l3, l4, l5] = records;
    split.stream.trimRecords(split.a, 1);
    const streams = cutShort(split, 'TRIM_HORIZON', sequence(l3));

    const { summary, view, depth } = await redrive('cut-after-trim', split, [[l2, l3, l4], [l5]], streams);

    // L3 is still in the stream, so L4 after it cannot have been trimmed: the batch is not gone, and L5 must not overtake L4.
    expect(view.delivered()).toEqual([]);
    expect(summary).toMatchObject({ moved: 0, republished: 0, failed: [], after: 2 });
    expect(reasons(summary.skipped)).toEqual([
      `could not re-read shard ${split.a} from its oldest record left: StreamRangeIncompleteError: read shard ${split.a} from the oldest record left (${sequence(l3)}) up to ${sequence(l3)}, but the batch ends at ${sequence(l4)}: 5 pages in a row came back empty`,
      expect.stringMatching(new RegExp(`^held back: an earlier record of shard ${split.a} was not republished`)),
    ]);
    expect(depth()).toBe(2);
  });

  it('from the batch start (nothing trimmed): keeps the record and holds its shard, not taken for gone', async () => {
    const { split, records } = shardA();
    const [l2, l3, l4, l5] = records;
    const streams = cutShort(split, 'AT_SEQUENCE_NUMBER', sequence(l3), sequence(l2));

    const { summary, view, depth } = await redrive('cut-from-start', split, [[l2, l3, l4], [l5]], streams);

    expect(view.delivered()).toEqual([]);
    expect(summary).toMatchObject({ moved: 0, republished: 0, failed: [], after: 2 });
    expect(reasons(summary.skipped)).toEqual([
      `could not re-read shard ${split.a}: StreamRangeIncompleteError: read shard ${split.a} from ${sequence(l2)} up to ${sequence(l3)}, but the batch ends at ${sequence(l4)}: 5 pages in a row came back empty`,
      expect.stringMatching(new RegExp(`^held back: an earlier record of shard ${split.a} was not republished`)),
    ]);
    expect(depth()).toBe(2);
  });
});
