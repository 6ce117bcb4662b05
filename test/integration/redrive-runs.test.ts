import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../shared/envelope.js';
import { RedriveStoppedError } from '../../shared/redrive/errors.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';
import type { PublishBatchClient } from '../../shared/relay/types.js';
import { aMalformedSlotDeadLetter, aRelayDeadLetter } from '../helpers/dead-letters.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';

const { server, clients } = await emulatorForFile();

async function sendAll(queueUrl: string, bodies: readonly string[], extra: (i: number) => Record<string, unknown> = () => ({})) {
  for (let i = 0; i < bodies.length; i += 10) {
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies.slice(i, i + 10).map((body, j) => ({ Id: String(j), MessageBody: body, ...extra(i + j) })),
      }),
    );
  }
}

/** A FIFO topic with a FIFO queue subscribed (raw delivery), and a standard relay DLQ. */
function fifoTopic(name: string) {
  const { topicArn } = server.createTopic(`${name}.fifo`, { attributes: { FifoTopic: 'true' } });
  server.createQueue(`${name}-view.fifo`, { attributes: { FifoQueue: 'true' } });
  server.subscribe({ topic: `${name}.fifo`, queue: `${name}-view.fifo`, attributes: { RawMessageDelivery: 'true' } });
  const { queueUrl } = server.createQueue(`${name}-relay-dlq`);
  return { topicArn, queueUrl, delivered: () => queueBodies(server, `${name}-view.fifo`).map((b) => parseEnvelope(b)) };
}

const inFlight = (name: string) => server.inspectQueue(name)?.messages.inflight.length;

describe('relay DLQ order', () => {
  it('publishes the dead letters of one receive in each aggregate’s sequence order, whatever order the queue gave', async () => {
    const { topicArn, queueUrl, delivered } = fifoTopic('orders-order');
    const letter = (aggregateId: string, sequence: number) =>
      aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId, sequence }).body;
    // A standard queue keeps no order: here each aggregate's later event comes first.
    await sendAll(queueUrl, [letter('A', 3), letter('B', 2), letter('A', 2), letter('B', 1), letter('A', 1)]);

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: { 'orders.fifo': topicArn } });

    expect(summary).toMatchObject({ moved: 5, failed: [] });
    const sequencesOf = (id: string) =>
      delivered()
        .filter((e) => e.subject === id)
        .map((e) => e.aggregatesequence);
    expect(sequencesOf('A')).toEqual([1, 2, 3]);
    expect(sequencesOf('B')).toEqual([1, 2]);
    expect(summary.notes).toBeUndefined();
  });

  it('republishes envelopes of an earlier relay (numeric sequence) and of this one unchanged, in their aggregate’s order', async () => {
    const { topicArn, queueUrl } = fifoTopic('orders-forms');
    const letter = (sequence: number, legacy: boolean) =>
      aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: 'F', sequence, legacy });
    const [first, second, third] = [letter(1, true), letter(2, true), letter(3, false)];
    await sendAll(queueUrl, [third!.body, first!.body, second!.body]);

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: { 'orders.fifo': topicArn } });

    expect(summary).toMatchObject({ moved: 3, failed: [], skipped: [] });
    expect(queueBodies(server, 'orders-forms-view.fifo')).toEqual([first!.envelope, second!.envelope, third!.envelope]);
    expect(JSON.parse(first!.envelope)).toMatchObject({ sequence: 1 });
    expect(JSON.parse(third!.envelope)).toMatchObject({ aggregatesequence: 3 });
  });

  it('notes an event that came in a later receive than a later event of its aggregate', async () => {
    const { topicArn, queueUrl } = fifoTopic('orders-late');
    const a2 = aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: 'A', sequence: 2 });
    const a1 = aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: 'A', sequence: 1 });
    const others = Array.from(
      { length: 9 },
      (_, i) => aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: `o${i}` }).body,
    );
    // The first receive takes ten: A's second event and nine others; A's first comes in the next.
    await sendAll(queueUrl, [a2.body, ...others, a1.body]);

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: { 'orders.fifo': topicArn } });

    expect(summary.moved).toBe(11);
    expect(summary.notes).toEqual([
      `event ${a1.eventId} (sequence 1) of aggregate order#A was republished after its later event ${a2.eventId} (sequence 2), which came in an earlier receive: consumers may see them out of order`,
    ]);
  });
});

describe('a FIFO dry run', () => {
  it('says it saw only the first messages of each group, with the queue’s own count', async () => {
    const dlq = server.createQueue('dry-groups-dlq.fifo', { attributes: { FifoQueue: 'true' } });
    const target = server.createQueue('dry-groups.fifo', { attributes: { FifoQueue: 'true' } });
    await sendAll(
      dlq.queueUrl,
      Array.from({ length: 25 }, (_, i) => `m${i}`),
      (i) => ({ MessageGroupId: i < 20 ? 'g' : 'h', MessageDeduplicationId: `d${i}` }),
    );

    const summary = await redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: target.queueUrl, dryRun: true });

    expect(summary).toMatchObject({ status: 'dry-run', before: 25, after: 25 });
    expect(summary.processed).toBeLessThan(25);
    expect(summary.notes).toEqual([
      expect.stringMatching(
        new RegExp(
          `^FIFO queue: only the first messages of each message group were seen \\(${summary.processed} of about 25; ApproximateNumberOfMessages was 25 before the run\\)`,
        ),
      ),
    ]);
    expect(queueDepth(server, 'dry-groups-dlq.fifo')).toBe(25);
    expect(inFlight('dry-groups-dlq.fifo')).toBe(0);
  });

  it('does not claim it missed messages when it saw them all (one message per group)', async () => {
    const dlq = server.createQueue('dry-singles-dlq.fifo', { attributes: { FifoQueue: 'true' } });
    const target = server.createQueue('dry-singles.fifo', { attributes: { FifoQueue: 'true' } });
    await sendAll(
      dlq.queueUrl,
      Array.from({ length: 5 }, (_, i) => `m${i}`),
      (i) => ({ MessageGroupId: `g${i}`, MessageDeduplicationId: `d${i}` }),
    );

    const summary = await redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: target.queueUrl, dryRun: true });

    expect(summary).toMatchObject({ status: 'dry-run', before: 5, processed: 5, after: 5 });
    expect(summary.notes).toEqual([
      expect.stringMatching(
        /^FIFO queue: 5 messages seen, as many as the queue held before the run \(about 5; ApproximateNumberOfMessages was 5\); messages behind the first of a message group may still have been missed/,
      ),
    ]);
    expect(summary.notes?.[0]).not.toContain('only the first messages');
  });
});

describe('a run stopped part way', () => {
  it('stops after the batch in hand when its signal aborts, releases what it kept, and says it was interrupted', async () => {
    const { topicArn, queueUrl, delivered } = fifoTopic('orders-abort');
    const letters = Array.from(
      { length: 30 },
      (_, i) => aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: `x${i}` }).body,
    );
    await sendAll(queueUrl, [aMalformedSlotDeadLetter(), ...letters]);
    const controller = new AbortController();
    // Ctrl-C while the first batch is being published.
    const abortingSns: PublishBatchClient = {
      send: (command: PublishBatchCommand) => {
        controller.abort();
        return clients.sns.send(command);
      },
    };

    const summary = await redriveRelayDlq({
      sqs: clients.sqs,
      sns: abortingSns,
      queueUrl,
      topicArns: { 'orders.fifo': topicArn },
      signal: controller.signal,
    });

    expect(summary).toMatchObject({ status: 'interrupted', processed: 10, moved: 9, failed: [], after: 22 });
    expect(summary.skipped).toHaveLength(1);
    expect(delivered()).toHaveLength(9);
    // The skipped one is visible again at once, not hidden for the rest of its timeout.
    expect(inFlight('orders-abort-relay-dlq')).toBe(0);
    expect(queueDepth(server, 'orders-abort-relay-dlq')).toBe(22);
  });

  it('carries the partial summary on the error that stopped it, after releasing what it kept', async () => {
    const { topicArn, queueUrl } = fifoTopic('orders-error');
    const letters = Array.from(
      { length: 15 },
      (_, i) => aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: `y${i}` }).body,
    );
    await sendAll(queueUrl, [aMalformedSlotDeadLetter(), ...letters]);
    let receives = 0;
    // The second receive fails as a network would.
    const failingSqs = {
      send: (command: unknown) =>
        command instanceof ReceiveMessageCommand && ++receives === 2
          ? Promise.reject(new Error('socket hang up'))
          : clients.sqs.send(command as ReceiveMessageCommand),
    } as unknown as SQSClient;

    const stopped = await redriveRelayDlq({ sqs: failingSqs, sns: clients.sns, queueUrl, topicArns: { 'orders.fifo': topicArn } }).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(stopped).toBeInstanceOf(RedriveStoppedError);
    const { summary, code, message } = stopped as RedriveStoppedError;
    expect(code).toBe('REDRIVE_STOPPED');
    expect(message).toBe('stopped after 10 messages: socket hang up');
    expect(summary).toMatchObject({ status: 'interrupted', processed: 10, moved: 9, after: 7 });
    expect(summary.skipped).toHaveLength(1);
    expect(inFlight('orders-error-relay-dlq')).toBe(0);
  });
});
