import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { RedriveInFlightLimitError, RedriveOptionsError, RedriveStoppedError } from '../../shared/redrive/errors.js';
import { redriveOnFailure } from '../../shared/redrive/on-failure.js';
import { IN_FLIGHT_LIMIT } from '../../shared/redrive/queue-counts.js';
import { batchPayload, failedBatch } from '../helpers/failed-batch.js';
import { FakeSns } from '../helpers/fake-sns.js';
import { scriptedQueue } from '../helpers/scripted-queue.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

/*
 * An SQS on-failure destination is received whole, every record held in flight, before any is
 * published, so that they go out in stream order. SQS keeps about 120,000 messages of a standard
 * queue in flight: past that a short poll fails with OverLimit, and a long poll comes back empty.
 */

const config = defineConfig({
  source: 'urn:dynamodb-outbox:test',
  topics: [{ name: 'orders.fifo', fifo: true }],
  routes: { order: 'orders.fifo' },
});
const topicArns = { 'orders.fifo': 'arn:aws:sns:us-east-1:000000000000:orders.fifo' };
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/relay-on-failure';

/** One order's commits on one shard, each a failed batch of its own with its records (as message bodies). */
function commits(count: number) {
  const stream = new SimulatedStream();
  const shard = stream.openShards[0]?.id ?? '';
  for (let seq = 1; seq <= count; seq++) stream.commit({ type: 'order', id: 'A' }, seq, 1);
  const records = stream.shards[0]?.records ?? [];
  const messages: Message[] = records.map((record, i) => ({
    MessageId: `m${i + 1}`,
    ReceiptHandle: `r${i + 1}`,
    Body: JSON.stringify(failedBatch(stream.streamArn, shard, [record], { payload: batchPayload([record]) })),
  }));
  return { streams: stream as unknown as DynamoDBStreamsClient, messages };
}

/**
 * The scripted queue, answering `GetQueueAttributes` with `counts` in turn (the last one again) and
 * the receive after `receives` (batches) with `after` ('overLimit': the error; 'empty': nothing);
 * it records the receipt handles made visible again.
 */
function queue(receives: Message[][], counts: { visible: number; inFlight: number }[], after: 'overLimit' | 'empty') {
  const scripted = scriptedQueue([...receives], async () => ({ Successful: [], Failed: [] }));
  let receiveCalls = 0;
  const released: string[] = [];
  const sqs = {
    send: async (command: unknown): Promise<unknown> => {
      if (command instanceof GetQueueAttributesCommand) {
        const { visible, inFlight } = (counts.length > 1 ? counts.shift() : counts[0]) as (typeof counts)[number];
        return {
          Attributes: {
            ApproximateNumberOfMessages: String(visible),
            ApproximateNumberOfMessagesNotVisible: String(inFlight),
            ApproximateNumberOfMessagesDelayed: '0',
          },
        };
      }
      if (command instanceof ReceiveMessageCommand && ++receiveCalls > receives.length && after === 'overLimit') {
        throw Object.assign(new Error('Too many messages in flight'), { name: 'OverLimit', $metadata: { httpStatusCode: 403 } });
      }
      if (command instanceof ChangeMessageVisibilityBatchCommand) {
        for (const entry of command.input.Entries ?? []) if (entry.VisibilityTimeout === 0) released.push(entry.ReceiptHandle ?? '');
      }
      return scripted.sqs.send(command as ReceiveMessageCommand);
    },
  } as unknown as SQSClient;
  return { sqs, released, receives: () => receiveCalls };
}

const run = (sqs: SQSClient, streams: DynamoDBStreamsClient, sns: FakeSns, maxMessages?: number) =>
  redriveOnFailure({ source: { sqs, queueUrl: QUEUE_URL }, sns, streams, config, topicArns, maxMessages });

describe('on-failure redrive from SQS: a queue larger than SQS keeps in flight', () => {
  it('is refused before anything is received when its counts say it does not fit, naming maxMessages, the counts and what is allowed', async () => {
    const { streams, messages } = commits(2);
    const q = queue([messages], [{ visible: 150_000, inFlight: 1_000 }], 'empty');
    const sns = new FakeSns();

    const refused = await run(q.sqs, streams, sns).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(RedriveOptionsError);
    expect(refused).toMatchObject({ field: 'maxMessages' });
    expect((refused as Error).message).toBe(
      "Invalid redrive option maxMessages: not given (the whole queue), and the queue holds about 150000 messages to receive, with 1000 in flight (SQS's approximate counts); this redrive holds every record it receives in flight until it has put them all in stream order, and SQS keeps at most about 120,000 of the queue in flight; allowed: at most 119000 (the limit less those in flight), in runs of that many or fewer; each run keeps stream order among the records it receives",
    );
    expect(q.receives()).toBe(0);
    expect(sns.requests).toEqual([]);

    // A run of at most what fits goes ahead.
    const fits = await run(q.sqs, streams, sns, 100_000);
    expect(fits).toMatchObject({ status: 'completed', moved: 2 });
  });

  it('stops on OverLimit with a typed error, publishes nothing and releases every record it received', async () => {
    const { streams, messages } = commits(3);
    const q = queue([messages.slice(0, 2), messages.slice(2)], [{ visible: 3, inFlight: 0 }], 'overLimit');
    const sns = new FakeSns();

    const stopped = await run(q.sqs, streams, sns).catch((error: unknown) => error);

    expect(stopped).toBeInstanceOf(RedriveStoppedError);
    const { summary, cause } = stopped as RedriveStoppedError;
    expect(cause).toBeInstanceOf(RedriveInFlightLimitError);
    expect(cause).toMatchObject({ code: 'IN_FLIGHT_LIMIT', held: 3, limit: 120_000, cause: { name: 'OverLimit' } });
    expect((cause as Error).message).toContain(
      '(a receive failed with OverLimit) once this run held 3 of them, with 0 more in flight before it',
    );
    expect((cause as Error).message).toContain('Nothing was published, and every record received was made visible again');
    expect((cause as Error).message).toContain('redrive the queue in runs of fewer (maxMessages, --max on the command line');
    // Received but never sent: uncounted, as after an interruption.
    expect(summary).toMatchObject({ status: 'interrupted', processed: 0, moved: 0, failed: [], skipped: [] });
    expect(sns.requests).toEqual([]);
    expect(q.released.sort()).toEqual(['r1', 'r2', 'r3']);
  });

  it('stops with a typed error, publishing nothing, when a receive near the limit comes back empty while records are still visible', async () => {
    const { streams, messages } = commits(3);
    // Others hold 119,997 in flight: the 3 fit; then 2 more arrive, and SQS's long poll answers empty at the limit.
    const q = queue(
      [messages],
      [
        { visible: 3, inFlight: 119_997 },
        { visible: 2, inFlight: 120_000 },
      ],
      'empty',
    );
    const sns = new FakeSns();

    const stopped = await run(q.sqs, streams, sns).catch((error: unknown) => error);

    expect(stopped).toBeInstanceOf(RedriveStoppedError);
    const { cause } = stopped as RedriveStoppedError;
    expect(cause).toBeInstanceOf(RedriveInFlightLimitError);
    expect((cause as Error).message).toContain('(a receive came back empty while about 2 were still visible) once this run held 3 of them');
    expect(sns.requests).toEqual([]);
    expect(q.released.sort()).toEqual(['r1', 'r2', 'r3']);
  });

  it('takes an empty receive far from the limit for the end of the queue', async () => {
    const { streams, messages } = commits(3);
    // A count that says more are visible (approximate, or just arrived) does not matter here.
    const q = queue([messages], [{ visible: 3, inFlight: 0 }], 'empty');
    const sns = new FakeSns();

    const summary = await run(q.sqs, streams, sns);

    expect(summary).toMatchObject({ status: 'completed', moved: 3, republished: 3, failed: [], skipped: [] });
    expect(sns.accepted).toEqual(['order:A:1', 'order:A:2', 'order:A:3']);
  });
});

describe('on-failure redrive from a FIFO queue near the in-flight limit', () => {
  const FIFO_URL = `${QUEUE_URL}.fifo`;
  const fifoRun = (sqs: SQSClient, streams: DynamoDBStreamsClient, sns: FakeSns) =>
    redriveOnFailure({ source: { sqs, queueUrl: FIFO_URL }, sns, streams, config, topicArns });

  it.each([19_000, 115_000])(
    'takes an empty receive with %i in flight and messages visible for messages waiting behind their groups, not for the limit',
    async (others) => {
      const { streams, messages } = commits(3);
      // Visible messages a FIFO queue does not hand out below its limit: each waits behind one in flight in its group.
      const q = queue(
        [messages],
        [
          { visible: 5, inFlight: others },
          { visible: 2, inFlight: others + 3 },
        ],
        'empty',
      );
      const sns = new FakeSns();

      const summary = await fifoRun(q.sqs, streams, sns);

      expect(summary).toMatchObject({ status: 'completed', moved: 3, republished: 3, failed: [], skipped: [] });
      expect(sns.accepted).toEqual(['order:A:1', 'order:A:2', 'order:A:3']);
    },
  );

  it('stops with a typed error when the run and others hold the whole limit and messages are still visible', async () => {
    const { streams, messages } = commits(3);
    const q = queue(
      [messages],
      [
        { visible: 3, inFlight: 119_997 },
        { visible: 2, inFlight: 120_000 },
      ],
      'empty',
    );
    const sns = new FakeSns();

    const stopped = await fifoRun(q.sqs, streams, sns).catch((error: unknown) => error);

    expect(stopped).toBeInstanceOf(RedriveStoppedError);
    const { cause } = stopped as RedriveStoppedError;
    expect(cause).toBeInstanceOf(RedriveInFlightLimitError);
    expect((cause as Error).message).toContain('a FIFO queue keeps at most about 120,000 in flight');
    expect(sns.requests).toEqual([]);
    expect(q.released.sort()).toEqual(['r1', 'r2', 'r3']);
  });
});

describe('RedriveInFlightLimitError', () => {
  it('names the kind of queue and its limit, FIFO or standard', () => {
    const facts = { what: 'OverLimit', held: 3, others: 119_999, holding: 'ordered' } as const;
    const fifo = new RedriveInFlightLimitError({ ...facts, limit: IN_FLIGHT_LIMIT.fifo, fifo: true });
    expect(fifo.message).toContain('a FIFO queue keeps at most about 120,000 in flight');
    const standard = new RedriveInFlightLimitError({ ...facts, limit: IN_FLIGHT_LIMIT.standard, fifo: false });
    expect(standard.message).toContain('a standard queue keeps at most about 120,000 in flight');
  });
});
