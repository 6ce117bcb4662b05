import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type DeleteMessageBatchCommandInput,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { type SqsBatchReport, SqsPoller, type SqsPollerClient } from '../../shared/local/event-source/sqs-event-source.js';
import { emulatorForFile } from '../helpers/local.js';

const { server, clients } = await emulatorForFile();

let poller: SqsPoller | undefined;
afterEach(async () => {
  await poller?.stop();
});

/**
 * A queue stub holding `count` messages, handing out at most what each receive asks for; it records every request.
 * Once empty, a long poll waits until the test ends it (`endWaits`) and answers nothing, as SQS does when its wait has passed.
 */
function stubQueue(count: number) {
  const waiting: Message[] = Array.from({ length: count }, (_, i) => ({ MessageId: `m${i}`, ReceiptHandle: `rh-${i}`, Body: `b${i}` }));
  const receives: { max: number; wait: number }[] = [];
  const deletes: DeleteMessageBatchCommandInput[] = [];
  const visibilityChanges: number[] = [];
  const waits = new Set<() => void>();
  const sqs = {
    send: (async (command: unknown, options?: { abortSignal?: AbortSignal }) => {
      if (command instanceof DeleteMessageBatchCommand) {
        deletes.push(command.input);
        return { Successful: (command.input.Entries ?? []).map((e) => ({ Id: e.Id })) };
      }
      if (command instanceof ChangeMessageVisibilityBatchCommand) {
        visibilityChanges.push(command.input.Entries?.length ?? 0);
        return { Successful: [] };
      }
      const { MaxNumberOfMessages = 1, WaitTimeSeconds = 0 } = (command as ReceiveMessageCommand).input;
      receives.push({ max: MaxNumberOfMessages, wait: WaitTimeSeconds });
      if (waiting.length > 0) return { Messages: waiting.splice(0, MaxNumberOfMessages) };
      if (WaitTimeSeconds === 0) return { Messages: [] };
      // A long poll on an empty queue: answered empty when the test ends the waits, as SQS does once its
      // WaitTimeSeconds have passed, or at once when the poller stops.
      return new Promise((resolve) => {
        const answer = () => {
          waits.delete(answer);
          options?.abortSignal?.removeEventListener('abort', answer);
          resolve({ Messages: [] });
        };
        waits.add(answer);
        options?.abortSignal?.addEventListener('abort', answer, { once: true });
      });
    }) as unknown as SqsPollerClient['send'],
  };
  /** Ends every long poll waiting on the empty queue, as the passing of its WaitTimeSeconds would. */
  const endWaits = () => {
    for (const answer of [...waits]) answer();
  };
  return { sqs, receives, deletes, visibilityChanges, endWaits };
}

const queue = { url: 'http://127.0.0.1:1/000000000000/q', arn: 'arn:aws:sqs:us-east-1:000000000000:q' };

describe('local SQS event source, batching window', () => {
  it('gathers more than 10 messages into one invocation within the window, and deletes them 10 at a time', async () => {
    const stub = stubQueue(25);
    const batches: number[] = [];
    const reports: SqsBatchReport[] = [];
    poller = new SqsPoller({
      sqs: stub.sqs,
      queue,
      batchSize: 1_000,
      // More than a second: the queue, empty after three receives, is long-polled for a second of the window left (with
      // one second, whether it is depends on the receives taking a millisecond or not), each poll ended by the test
      // as by its wait passing, until less than a second is left; then the batch is handed over.
      maxBatchingWindowMs: 1_500,
      visibilityTimeoutSeconds: 30,
      handler: async (event) => {
        batches.push(event.Records.length);
        return { batchItemFailures: [{ itemIdentifier: 'm3' }] };
      },
      onBatch: (report) => reports.push(report),
    });
    poller.start();
    await expect
      .poll(
        () => {
          stub.endWaits();
          return reports.length;
        },
        { timeout: 10_000 },
      )
      .toBe(1);

    expect(batches).toEqual([25]);
    expect(stub.receives.slice(0, 3).map((r) => r.max)).toEqual([10, 10, 10]);
    expect(stub.deletes.map((d) => d.Entries?.length)).toEqual([10, 10, 4]);
    expect(reports[0]!.acknowledged).toHaveLength(24);
    expect(reports[0]!.failed.map((r) => r.messageId)).toEqual(['m3']);
  });

  it('hands over what it has when the window ends before the batch is full', async () => {
    // The emulator's own long polling (a receive on an empty queue waits its WaitTimeSeconds), with every receive recorded.
    const { queueUrl } = server.createQueue('poller-window');
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: ['a', 'b', 'c'].map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );
    const waits: number[] = [];
    const sqs = {
      send: ((command: ReceiveMessageCommand, options?: { abortSignal?: AbortSignal }) => {
        if (command instanceof ReceiveMessageCommand) waits.push(command.input.WaitTimeSeconds ?? 0);
        return clients.sqs.send(command, options);
      }) as SqsPollerClient['send'],
    };
    const batches: number[] = [];
    const startedAt = Date.now();
    let handedAt = 0;
    poller = new SqsPoller({
      sqs,
      queue: { url: queueUrl, arn: 'arn:aws:sqs:us-east-1:000000000000:poller-window' },
      batchSize: 100,
      maxBatchingWindowMs: 1_500,
      visibilityTimeoutSeconds: 30,
      handler: async (event) => {
        handedAt = Date.now();
        batches.push(event.Records.length);
        return { batchItemFailures: [] };
      },
    });
    poller.start();
    await expect.poll(() => batches.length, { timeout: 10_000 }).toBe(1);

    expect(batches).toEqual([3]);
    // One long poll of the window's whole second, then a short one for the rest of it.
    expect(waits.slice(1, 3)).toEqual([1, 0]);
    expect(handedAt - startedAt).toBeLessThan(3_000);
  });

  it('long-polls at most 20 s at a time, as SQS allows, in a longer window', async () => {
    const stub = stubQueue(12);
    poller = new SqsPoller({
      sqs: stub.sqs,
      queue,
      batchSize: 1_000,
      // Lambda's longest MaximumBatchingWindowInSeconds: 300.
      maxBatchingWindowMs: 300_000,
      visibilityTimeoutSeconds: 30,
      handler: async () => ({ batchItemFailures: [] }),
    });
    poller.start();
    // The first receive brings 10, the second the last 2, and the third waits on the empty queue (until the stop).
    await expect.poll(() => stub.receives.length, { timeout: 10_000 }).toBe(3);

    expect(stub.receives.slice(1).map((r) => r.wait)).toEqual([20, 20]);
  });

  it('receives once per batch without a window, as before', async () => {
    const stub = stubQueue(15);
    const batches: number[] = [];
    poller = new SqsPoller({
      sqs: stub.sqs,
      queue,
      visibilityTimeoutSeconds: 30,
      handler: async (event) => {
        batches.push(event.Records.length);
        return { batchItemFailures: [] };
      },
    });
    poller.start();
    await expect.poll(() => batches.length, { timeout: 10_000 }).toBe(2);

    expect(batches).toEqual([10, 5]);
  });
});
