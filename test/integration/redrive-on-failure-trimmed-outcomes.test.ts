import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PublishBatchCommand, type PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import type { PublishBatchClient } from '../../shared/relay/types.js';
import { failedBatch, fifoView, ORDERS_FIFO_CONFIG } from '../helpers/failed-batch.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';
import { recordOf, splitWithSibling, streamsOf } from '../helpers/split-stream.js';

const { server, clients } = await emulatorForFile();
const config = ORDERS_FIFO_CONFIG;
/** One attempt per read and publish: the tests never wait on a backoff. */
const retry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 2 };

/**
 * Order L's commits L2, L3 and L4 in shard A, a record each, as one failed batch that first
 * arrived 25 h ago; the stream has trimmed L2, so L3 and L4 are what is left of it.
 */
function trimmedBatch() {
  const split = splitWithSibling();
  const [l4] = split.stream.commit({ type: 'order', id: 'L' }, 4, 1);
  const records = [0, 1, 2].map((i) => recordOf(split, split.a, i)) as [_Record, _Record, _Record];
  split.stream.trimRecords(split.a, 1);
  const [l2, l3] = records.map((r) => r.dynamodb?.SequenceNumber ?? '');
  const body = JSON.stringify(
    failedBatch(split.stream.streamArn, split.a, records, { arrival: new Date(Date.now() - 25 * 3_600_000).toISOString() }),
  );
  const trimmed = `sequence numbers ${l2} to just before ${l3} of shard ${split.a} were trimmed from the stream \\(first arrived `;
  return { split, body, trimmed, ids: { l3: split.ids.l3, l4 } };
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
      const refused = bad.map((e) => ({ Id: e.Id, Code: 'InvalidParameter', Message: 'Invalid parameter: Message', SenderFault: true }));
      return { ...sent, Failed: [...(sent.Failed ?? []), ...refused] };
    },
  };
}

/** The on-failure record in `source` (an SQS queue or an S3 bucket named `name`). */
async function sourceOf(kind: 'sqs' | 's3', name: string, body: string) {
  if (kind === 's3') {
    server.createBucket(name);
    await clients.s3.send(new PutObjectCommand({ Bucket: name, Key: 'batch.json', Body: body }));
    return { s3: clients.s3, bucket: name };
  }
  const { queueUrl } = server.createQueue(name);
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  return { sqs: clients.sqs, queueUrl };
}

describe('on-failure redrive: the reason a partly trimmed record is kept with says what became of its events', () => {
  it.each(['sqs', 's3'] as const)('%s: an event dead-lettered instead is told apart from the one published', async (kind) => {
    const { split, body, trimmed, ids } = trimmedBatch();
    const view = fifoView(server, `trim-dl-${kind}`);
    const { queueUrl: dlq } = server.createQueue(`trim-dl-${kind}-relay-dlq`);

    const summary = await redriveOnFailure({
      source: await sourceOf(kind, `trim-dl-${kind}-failures`, body),
      sns: rejecting(ids.l3),
      streams: streamsOf(split).streams,
      config,
      topicArns: view.topicArns,
      deadLetterQueue: { queueUrl: dlq, sqs: clients.sqs },
      retry,
    });

    expect(view.delivered().map((e) => e.id)).toEqual([ids.l4]);
    expect(queueDepth(server, `trim-dl-${kind}-relay-dlq`)).toBe(1);
    expect(summary).toMatchObject({ moved: 0, republished: 1, deadLettered: 1, failed: [], after: 1 });
    expect(summary.skipped.map((s) => s.reason)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${trimmed}.*\\) and the record has no payload; of the 2 events of its records still there, 1 was republished and 1 dead-lettered to the relay DLQ \\(SNS refused it for good\\)$`,
        ),
      ),
    ]);
  });

  it.each(['sqs', 's3'] as const)(
    '%s: a record whose events left partly fail is failed, and its reason names the trimmed range',
    async (kind) => {
      const { split, body, trimmed, ids } = trimmedBatch();
      const view = fifoView(server, `trim-fail-${kind}`);

      const summary = await redriveOnFailure({
        source: await sourceOf(kind, `trim-fail-${kind}-failures`, body),
        sns: rejecting(ids.l4),
        streams: streamsOf(split).streams,
        config,
        topicArns: view.topicArns,
        retry,
      });

      expect(view.delivered().map((e) => e.id)).toEqual([ids.l3]);
      expect(summary).toMatchObject({ moved: 0, republished: 1, skipped: [], after: 1 });
      expect(summary.keptRepublished).toEqual({ failed: { records: 1, events: 1 } });
      expect(summary.failed.map((f) => f.reason)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^1 of 2 events failed, first .*; ${trimmed}.*\\) and the record has no payload; of the 2 events of its records still there, 1 was republished and 1 failed$`,
          ),
        ),
      ]);
    },
  );
});
