import { DeleteMessageBatchCommand, type Message, type MessageAttributeValue, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { fromSqsMessage } from '../../shared/consumer/messages.js';
import { LocalStackError } from '../../shared/local/errors.js';
import { type SqsBatchReport, SqsPoller, type SqsPollerClient } from '../../shared/local/event-source/sqs-event-source.js';

const QUEUE = { url: 'http://127.0.0.1:1/000000000000/q', arn: 'arn:aws:sqs:us-east-1:000000000000:q' };

let poller: SqsPoller | undefined;
afterEach(async () => {
  await poller?.stop();
});

/** An SQS stub: one receive returns `messages`, later ones wait until the poller stops; the receipt handles of each delete are kept. */
function stubQueue(messages: Message[]): { sqs: SqsPollerClient; deleted: string[] } {
  const deleted: string[] = [];
  let received = false;
  const send = async (command: unknown, options?: { abortSignal?: AbortSignal }) => {
    if (command instanceof DeleteMessageBatchCommand) {
      const entries = command.input.Entries ?? [];
      deleted.push(...entries.map((entry) => entry.ReceiptHandle ?? ''));
      return { Successful: entries.map((entry) => ({ Id: entry.Id })) };
    }
    if (command instanceof ReceiveMessageCommand && !received) {
      received = true;
      return { Messages: messages };
    }
    return new Promise((resolve) => options?.abortSignal?.addEventListener('abort', () => resolve({ Messages: [] }), { once: true }));
  };
  return { sqs: { send: send as unknown as SqsPollerClient['send'] }, deleted };
}

/** Starts a poller on `sqs`, keeping the events its handler got, its batch reports and its errors. */
function run(sqs: SqsPollerClient, queue = QUEUE): { events: SQSEvent[]; reports: SqsBatchReport[]; errors: unknown[] } {
  const seen = { events: [] as SQSEvent[], reports: [] as SqsBatchReport[], errors: [] as unknown[] };
  poller = new SqsPoller({
    sqs,
    queue,
    handler: async (event) => {
      seen.events.push(event);
      return { batchItemFailures: [] };
    },
    visibilityTimeoutSeconds: 30,
    onBatch: (report) => seen.reports.push(report),
    onError: (error) => seen.errors.push(error),
  });
  poller.start();
  return seen;
}

const malformed: Message[] = [
  { MessageId: 'no-body', ReceiptHandle: 'rh-no-body' },
  // The SDK's type has DataType required; a plain JS client or an emulator can still leave it out.
  {
    MessageId: 'no-type',
    ReceiptHandle: 'rh-no-type',
    Body: 'x',
    MessageAttributes: { type: { StringValue: 'order.placed' } as MessageAttributeValue },
  },
  { ReceiptHandle: 'rh-no-id', Body: 'y' },
];

describe('local SQS event source, a message SQS would not send', () => {
  it('hands the handler the others, and leaves each such message in its queue with a LocalStackError naming the queue and the message', async () => {
    const { sqs, deleted } = stubQueue([{ MessageId: 'a', ReceiptHandle: 'rh-a', Body: 'a' }, ...malformed]);
    const { events, reports, errors } = run(sqs);
    await expect.poll(() => reports.length, { timeout: 10_000 }).toBe(1);

    expect(events.flatMap((event) => event.Records.map((record) => record.messageId))).toEqual(['a']);
    expect(reports[0]!.acknowledged.map((record) => record.messageId)).toEqual(['a']);
    expect(deleted).toEqual(['rh-a']);
    expect(errors).toHaveLength(3);
    for (const error of errors) expect(error).toBeInstanceOf(LocalStackError);
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'MALFORMED_MESSAGE',
        message: expect.stringContaining(
          `the queue ${QUEUE.arn} returned message "no-body", which SQS would not send: its Body is undefined; allowed: a string`,
        ),
      }),
      expect.objectContaining({
        message: expect.stringContaining(
          'message "no-type", which SQS would not send: its MessageAttributes.type.DataType is undefined; allowed: a string such as "String"',
        ),
      }),
      expect.objectContaining({
        message: expect.stringContaining('a message (ReceiptHandle "rh-no-id"), which SQS would not send: its MessageId is undefined'),
      }),
    ]);
    expect(String(errors[0])).toContain("nor deleted: it comes back after its visibility timeout, and moves to the queue's DLQ");
  });

  it('invokes no handler and deletes nothing when the whole batch is such messages', async () => {
    const { sqs, deleted } = stubQueue(malformed);
    const { events, reports, errors } = run(sqs);
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(3);

    expect(events).toEqual([]);
    expect(reports).toEqual([]);
    expect(deleted).toEqual([]);
  });

  it('on a FIFO queue, leaves the later messages of its message group with it, so they keep their order, and hands the handler the rest', async () => {
    const fifo = { url: 'http://127.0.0.1:1/000000000000/q.fifo', arn: 'arn:aws:sqs:us-east-1:000000000000:q.fifo' };
    const inGroup = (id: string, group: string, body?: string): Message => ({
      MessageId: id,
      ReceiptHandle: `rh-${id}`,
      ...(body === undefined ? {} : { Body: body }),
      Attributes: { MessageGroupId: group },
    });
    const { sqs, deleted } = stubQueue([
      inGroup('a1', 'a', 'a1'),
      inGroup('a2', 'a'), // no Body: refused
      inGroup('a3', 'a', 'a3'),
      inGroup('b1', 'b', 'b1'),
    ]);
    const { events, reports, errors } = run(sqs, fifo);
    await expect.poll(() => reports.length, { timeout: 10_000 }).toBe(1);

    // a3 handled before a2 would break the group's order: it stays in the queue with a2.
    expect(events.flatMap((event) => event.Records.map((record) => record.messageId))).toEqual(['a1', 'b1']);
    expect(deleted).toEqual(['rh-a1', 'rh-b1']);
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'MALFORMED_MESSAGE',
        message: expect.stringContaining('the later messages of its message group in this batch (1: "a3") are left with it'),
      }),
    ]);
  });

  it('on a FIFO queue, leaves every later message with one whose message group is not known', async () => {
    const fifo = { url: 'http://127.0.0.1:1/000000000000/q.fifo', arn: 'arn:aws:sqs:us-east-1:000000000000:q.fifo' };
    const { sqs, deleted } = stubQueue([
      { MessageId: 'a1', ReceiptHandle: 'rh-a1', Body: 'a1', Attributes: { MessageGroupId: 'a' } },
      { ReceiptHandle: 'rh-lost', Body: 'x' },
      { MessageId: 'b1', ReceiptHandle: 'rh-b1', Body: 'b1', Attributes: { MessageGroupId: 'b' } },
    ]);
    const { events, reports, errors } = run(sqs, fifo);
    await expect.poll(() => reports.length, { timeout: 10_000 }).toBe(1);

    expect(events.flatMap((event) => event.Records.map((record) => record.messageId))).toEqual(['a1']);
    expect(deleted).toEqual(['rh-a1']);
    expect(errors).toEqual([
      expect.objectContaining({ message: expect.stringContaining('the later messages of this batch (1: "b1") are left with it') }),
    ]);
  });

  it('refuses a message by the rule fromSqsMessage reads it by, naming the same field', async () => {
    const wrong = [
      { MessageId: 'bad-value', Body: 'x', MessageAttributes: { type: { DataType: 'String', StringValue: 5 } } },
      { MessageId: 'bad-system', Body: 'x', Attributes: 'FIFO' },
      { MessageId: 'bad-group', Body: 'x', Attributes: { MessageGroupId: 7 } },
      { MessageId: 'bad-attributes', Body: 'x', MessageAttributes: 'type=order.placed' },
    ].map((message) => ({ ...message, ReceiptHandle: `rh-${message.MessageId}` }) as unknown as Message);
    const { sqs, deleted } = stubQueue([{ MessageId: 'a', ReceiptHandle: 'rh-a', Body: 'a' }, ...wrong]);
    const { events, reports, errors } = run(sqs);
    await expect.poll(() => reports.length, { timeout: 10_000 }).toBe(1);

    expect(events.flatMap((event) => event.Records.map((record) => record.messageId))).toEqual(['a']);
    expect(deleted).toEqual(['rh-a']);
    expect(errors).toHaveLength(wrong.length);
    wrong.forEach((message, i) => {
      let refusal: unknown;
      try {
        fromSqsMessage(message);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ConsumerOptionsError);
      const { field, message: text } = refusal as ConsumerOptionsError;
      const path = field.slice('fromSqsMessage.message.'.length);
      const said = text.slice(text.indexOf(': got ') + ': got '.length);
      expect(errors[i]).toMatchObject({ code: 'MALFORMED_MESSAGE' });
      expect(String((errors[i] as Error).message)).toContain(
        `message "${message.MessageId}", which SQS would not send: its ${path} is ${said}`,
      );
    });
  });

  it('says what is allowed of the field once, without claiming SQS always sends a field it may leave out', async () => {
    const wrong = [
      { MessageId: 'bad-value', Body: 'x', MessageAttributes: { type: { DataType: 'String', StringValue: 5 } } },
      { MessageId: 'bad-group', Body: 'x', Attributes: { MessageGroupId: 7 } },
      { MessageId: 'no-body' },
    ].map((message) => ({ ...message, ReceiptHandle: `rh-${message.MessageId}` }) as unknown as Message);
    const { sqs } = stubQueue(wrong);
    const { errors } = run(sqs);
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(wrong.length);

    const faults = errors.map((error) => {
      const text = String((error as Error).message);
      return text.slice(text.indexOf('which SQS would not send: '), text.indexOf(' It is not handed'));
    });
    expect(faults).toEqual([
      'which SQS would not send: its MessageAttributes.type.StringValue is 5; allowed: a string, or none (a binary attribute).',
      'which SQS would not send: its Attributes.MessageGroupId is 7; allowed: a string, as SQS writes it.',
      'which SQS would not send: its Body is undefined; allowed: a string (the message body as text: JSON.stringify an envelope object).',
    ]);
  });
});
