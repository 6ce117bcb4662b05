import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { summarizeDlq } from '../../shared/redrive/dlq-summary.js';
import { HeldMessages } from '../../shared/redrive/held-messages.js';
import { fifoNotes } from '../../shared/redrive/queue-counts.js';
import { anEnvelope } from '../helpers/envelopes.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq';

const messages = (n: number): Message[] =>
  Array.from({ length: n }, (_, i) => ({ MessageId: `m-${i}`, ReceiptHandle: `rh-${i}`, Body: anEnvelope().body }));

/**
 * A queue that hands out `first`, then nothing once `later` resolves; it refuses every renewal
 * (InternalError) and, with `refuseReleases`, every release, entry by entry as SQS does.
 */
function refusingQueue(first: Message[], options: { refuseReleases?: boolean; later?: Promise<void> } = {}): SQSClient {
  let receives = 0;
  const send = async (command: unknown): Promise<unknown> => {
    if (command instanceof GetQueueAttributesCommand) return { Attributes: {} };
    if (command instanceof ReceiveMessageCommand) {
      receives += 1;
      if (receives === 1) return { Messages: first };
      await options.later;
      return { Messages: [] };
    }
    if (command instanceof ChangeMessageVisibilityBatchCommand) {
      const entries = command.input.Entries ?? [];
      const release = entries.every((e) => e.VisibilityTimeout === 0);
      if (release && options.refuseReleases !== true) return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
      return {
        Successful: [],
        Failed: entries.map((e) => ({ Id: e.Id, Code: 'InternalError', Message: 'try again', SenderFault: false })),
      };
    }
    throw new Error(`unexpected command ${(command as object).constructor.name}`);
  };
  return { send } as unknown as SQSClient;
}

/** Runs `summarizeDlq` (visibility 60 s) with its second receive held until the fake clock has passed 100 s. */
async function summaryAfterLapse(n: number) {
  let open: () => void = () => {};
  const later = new Promise<void>((resolve) => {
    open = resolve;
  });
  const run = summarizeDlq({ sqs: refusingQueue(messages(n), { later }), queueUrl: DLQ, visibilityTimeoutSeconds: 60 });
  // Renewals are tried at 45 s (refused); at 60 s the messages are visible again: lapsed.
  await vi.advanceTimersByTimeAsync(100_000);
  open();
  return run;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('redrive notes count their messages in words', () => {
  it.each([
    [1, '1 message'],
    [2, '2 messages'],
  ])('summarizeDlq notes %i not released as %j', async (n, words) => {
    const summary = await summarizeDlq({ sqs: refusingQueue(messages(n), { refuseReleases: true }), queueUrl: DLQ });

    expect(summary.notes).toEqual([`${words} could not be made visible again, and will be within 120 s`]);
  });

  it.each([
    [1, '1 message'],
    [2, '2 messages'],
  ])('summarizeDlq notes %i lapsed as %j', async (n, words) => {
    vi.useFakeTimers();

    const summary = await summaryAfterLapse(n);

    expect(summary.notes).toEqual([
      `${words} became visible during the run (renewal failed: InternalError: try again) and may have been received by another reader`,
    ]);
  });

  it('summarizeDlq on a FIFO queue: only the first messages of each group', async () => {
    const summary = await summarizeDlq({ sqs: refusingQueue(messages(2)), queueUrl: `${DLQ}.fifo` });

    expect(summary.notes).toEqual([
      expect.stringMatching(/^FIFO queue: only the first messages of each message group were read \(2 of about 0\): SQS hands out/),
    ]);
  });

  it.each([
    [1, 1, '1 held message', '1 kept message'],
    [2, 2, '2 held messages', '2 kept messages'],
  ])('HeldMessages notes %i lapsed and %i not released as %j and %j', async (n, _, held, kept) => {
    vi.useFakeTimers();
    const messagesHeld = new HeldMessages(refusingQueue([], { refuseReleases: true }), DLQ, 60);
    messagesHeld.track(messages(n), Date.now());
    await vi.advanceTimersByTimeAsync(100_000);
    // Lapsed ones are no longer held: the next ones are held afresh and then not released.
    messagesHeld.track(messages(n), Date.now());

    const unreleased = await messagesHeld.releaseAll();

    expect(messagesHeld.notes(unreleased)).toEqual([
      `${held} became visible during the run, as the visibility timeout could not be renewed (InternalError: try again), and may have been received by another reader`,
      `${kept} could not be made visible again, and will be within 60 s`,
    ]);
  });

  it.each([
    [1, 'FIFO queue: 1 message seen, as many as the queue held before the run (about 1; ApproximateNumberOfMessages was 1)'],
    [2, 'FIFO queue: 2 messages seen, as many as the queue held before the run (about 2; ApproximateNumberOfMessages was 2)'],
  ])('fifoNotes of a dry run that saw all %i: %j', (n, words) => {
    const notes = fifoNotes({ visible: n, inFlight: 0, delayed: 0 }, true, n, 0);

    expect(notes).toEqual([expect.stringMatching(new RegExp(`^${words.replace(/[()]/g, '\\$&')}; messages behind the first`))]);
  });

  it('fifoNotes of a real run that read as many as the queue held says none was behind the kept ones, where it said some were not seen', () => {
    const notes = fifoNotes({ visible: 4, inFlight: 0, delayed: 0 }, false, 4, 3);

    expect(notes).toEqual([
      'FIFO queue: the 3 messages it leaves in the queue stay first in their message groups; the run read as many messages as the queue held before it (about 4), so none was behind them then (SQS hands out no further message of a group while one is in flight: one that arrived since waits behind them).',
    ]);
  });

  it('fifoNotes of a real run that read fewer than the queue held says how many it did not see', () => {
    const notes = fifoNotes({ visible: 6, inFlight: 0, delayed: 0 }, false, 4, 1);

    expect(notes).toEqual([
      'FIFO queue: the run read 4 of about 6 messages; those behind the 1 message it leaves in the queue, in its message group, were not seen (SQS hands out no further message of a group while one is in flight); they stay in the queue, in order behind it.',
    ]);
  });
});
