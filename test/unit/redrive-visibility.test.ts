import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { drainQueue } from '../../shared/redrive/drain-queue.js';
import { RedriveStoppedError } from '../../shared/redrive/errors.js';
import { formatSummary } from '../../shared/redrive/summary.js';

/**
 * An SQS queue that hands out the given receives in turn and keeps each receipt handle's visibility
 * deadline as SQS does, on the (fake) clock. Touching a handle whose deadline has passed is a lapse:
 * SQS would have made the message visible to other readers by then (and refuse to hide it again).
 */
function visibilityQueue(
  receives: (() => Message[])[],
  options: { failReceive?: number; refuseRenewals?: boolean; failDelete?: boolean } = {},
) {
  const deadlines = new Map<string, number>();
  const lapses: string[] = [];
  let receiveCount = 0;
  const touch = (handle: string, what: string) => {
    const deadline = deadlines.get(handle) ?? 0;
    if (Date.now() >= deadline) lapses.push(`${what} ${handle} at ${Date.now()} ms, visible since ${deadline} ms`);
    return Date.now() < deadline;
  };
  const sqs = {
    send: async (command: unknown): Promise<unknown> => {
      if (command instanceof GetQueueAttributesCommand) return { Attributes: {} };
      if (command instanceof ReceiveMessageCommand) {
        if (++receiveCount === options.failReceive) throw new Error('socket hang up');
        const messages = receives.shift()?.() ?? [];
        for (const m of messages) deadlines.set(m.ReceiptHandle ?? '', Date.now() + (command.input.VisibilityTimeout ?? 30) * 1000);
        return { Messages: messages };
      }
      if (command instanceof DeleteMessageBatchCommand) {
        if (options.failDelete === true) throw new Error('socket hang up');
        for (const e of command.input.Entries ?? []) touch(e.ReceiptHandle ?? '', 'deleted');
        return { Successful: command.input.Entries?.map((e) => ({ Id: e.Id })), Failed: [] };
      }
      if (command instanceof ChangeMessageVisibilityBatchCommand) {
        const failed: { Id: string; Code: string; Message: string; SenderFault: boolean }[] = [];
        for (const e of command.input.Entries ?? []) {
          const handle = e.ReceiptHandle ?? '';
          const release = e.VisibilityTimeout === 0;
          if (options.refuseRenewals === true && !release) {
            failed.push({ Id: e.Id ?? '', Code: 'InternalError', Message: 'try again', SenderFault: false });
          } else if (touch(handle, release ? 'released' : 'renewed')) {
            deadlines.set(handle, Date.now() + (e.VisibilityTimeout ?? 0) * 1000);
          } else failed.push({ Id: e.Id ?? '', Code: 'MessageNotInflight', Message: 'not in flight', SenderFault: true });
        }
        return { Successful: [], Failed: failed };
      }
      throw new Error(`unexpected command ${(command as object).constructor.name}`);
    },
  };
  return { sqs: sqs as unknown as SQSClient, lapses };
}

const message = (id: string, body = id): Message => ({ MessageId: id, ReceiptHandle: `r-${id}`, Body: body });

afterEach(() => {
  vi.useRealTimers();
});

describe('drainQueue keeps what it holds hidden', () => {
  // Fake timers: the rate-limit wait below lasts 200 s of the clock, longer than the messages'
  // 120 s visibility; waiting that long for real is out of the question, and the queue above reads
  // its deadlines from the same fake clock.
  const run = (queue: ReturnType<typeof visibilityQueue>) =>
    drainQueue<string>({
      sqs: queue.sqs,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q-dlq',
      target: 'elsewhere',
      ratePerSecond: 5,
      // Each message republishes 1,000 events (an on-failure record can hold that many): at 5 per second, 200 s.
      plan: (m) => (m.Body === 'kept' ? { status: 'skip', reason: 'kept back' } : { status: 'republish', item: m.Body ?? '', units: 1000 }),
      republish: async (items) => ({ succeeded: items.map((i) => i.messageId), failed: [] }),
    });

  it('through a rate-limit wait longer than their visibility: the kept messages and the batch in hand', async () => {
    vi.useFakeTimers();
    const queue = visibilityQueue([() => [message('k1', 'kept'), message('a1')], () => [message('a2')], () => [message('a3')]]);

    const done = run(queue);
    await vi.advanceTimersByTimeAsync(450_000);
    const summary = await done;

    // a2 and a3 waited 200 s each in hand, k1 was kept for 400 s: none of them ever became visible.
    expect(queue.lapses).toEqual([]);
    expect(summary).toMatchObject({ processed: 4, moved: 3, failed: [] });
    expect(summary.notes).toBeUndefined();
    // The renewal stopped with the run: no timer is left behind.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('and stops renewing when an error ends the run', async () => {
    vi.useFakeTimers();
    const queue = visibilityQueue([() => [message('k1', 'kept')]], { failReceive: 2 });

    const stopped = await run(queue).catch((error: unknown) => error);

    expect(stopped).toBeInstanceOf(RedriveStoppedError);
    expect(queue.lapses).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails a run whose delete went unanswered naming the republished messages, which stay and go back', async () => {
    const queue = visibilityQueue([() => [message('a1'), message('k1', 'kept')]], { failDelete: true });

    const stopped = await drainQueue<string>({
      sqs: queue.sqs,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q-dlq',
      target: 'elsewhere',
      plan: (m) => (m.Body === 'kept' ? { status: 'skip', reason: 'kept back' } : { status: 'republish', item: m.Body ?? '', units: 2 }),
      republish: async (items) => ({ succeeded: items.map((i) => i.messageId), failed: [] }),
    }).catch((error: unknown) => error);

    expect(stopped).toBeInstanceOf(RedriveStoppedError);
    const { summary } = stopped as RedriveStoppedError;
    // a1 went out: the summary says so, and that it is still in the source for a next run to publish again.
    expect(summary).toMatchObject({ status: 'interrupted', processed: 2, moved: 0, republished: 2 });
    expect(summary.failed).toEqual([
      { id: 'a1', reason: expect.stringMatching(/^republished, but not deleted from the source \(.*socket hang up/) },
    ]);
    // Its events went out with a message that stays, not with one moved.
    expect(summary.keptRepublished).toEqual({ failed: { records: 1, events: 2 } });
    expect(formatSummary(summary)).toContain(
      '  moved        0 (0 events)\n  failed:      1 (1 kept after 2 events of it were republished)\n',
    );
    expect(queue.lapses).toEqual([]);
  });

  it('notes held messages whose visibility could not be renewed', async () => {
    vi.useFakeTimers();
    const queue = visibilityQueue([() => [message('k1', 'kept'), message('a1')], () => [message('a2')]], { refuseRenewals: true });

    const done = run(queue);
    await vi.advanceTimersByTimeAsync(250_000);
    const summary = await done;

    expect(summary.notes).toEqual([
      '2 held messages became visible during the run, as the visibility timeout could not be renewed (InternalError: try again), and may have been received by another reader',
    ]);
  });
});

describe('drainQueue memory', () => {
  it('keeps no received message (body, attributes) once its batch is done, also in a dry run', async () => {
    // Exposes V8's gc to this test only: whether an object is still referenced shows only once a
    // collection has run.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const firstBatch: WeakRef<Message>[] = [];
    let alive = -1;
    const { sqs } = visibilityQueue([
      () => {
        // Built here and not kept by the queue: only the drain can keep them alive.
        const messages = Array.from({ length: 10 }, (_, i) => message(`m${i}`, `${i}${'x'.repeat(100_000)}`));
        for (const m of messages) firstBatch.push(new WeakRef(m));
        return messages;
      },
      () => [message('n1')],
      () => [],
    ]);
    // Checked in a later macrotask, at the third receive: V8 keeps a WeakRef's target alive until the
    // job that made it ends, and this queue answers without one in between.
    const receive = sqs.send.bind(sqs);
    let receives = 0;
    sqs.send = (async (command: unknown) => {
      if (command instanceof ReceiveMessageCommand && ++receives === 3) {
        await new Promise((resolve) => setImmediate(resolve));
        gc();
        alive = firstBatch.filter((ref) => ref.deref() !== undefined).length;
      }
      return receive(command as never);
    }) as SQSClient['send'];

    const summary = await drainQueue<string>({
      sqs,
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q-dlq',
      target: 'elsewhere',
      dryRun: true,
      plan: () => ({ status: 'republish', item: 'small', units: 1 }),
      republish: async () => ({ succeeded: [], failed: [] }),
    });

    expect(summary).toMatchObject({ status: 'dry-run', processed: 11, moved: 11 });
    // All 11 are still held (a dry run keeps every message hidden to the end), but by id and receipt handle only.
    expect(alive).toBe(0);
  });
});
