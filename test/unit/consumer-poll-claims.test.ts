import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { PollError } from '../../shared/consumer/poll-errors.js';
import { createPoller } from '../../shared/consumer/poller.js';
import { claimsLapseAt, HAND_OUT_MARGIN_MS, pollOnce } from '../../shared/consumer/sqs-poller.js';

const base = Date.parse('2026-06-01T12:00:00.000Z');

describe('claimsLapseAt: the claims of a batch received by pollOnce or createPoller', () => {
  it('never outlast the visibility timeout, and are cut by less than 2 s, for any hand-out within the margin of the answer', () => {
    for (const [sentAt, answeredAt] of [
      [base + 900, base + 1_200], // a quick receive across a second
      [base, base + 15_500], // a long poll that waited 15 s
      [base + 999, base + 4_001], // a receive the SDK retried
    ] as const) {
      const lapse = claimsLapseAt(sentAt, answeredAt, 30) * 1000;
      for (let handOut = Math.max(sentAt, answeredAt - HAND_OUT_MARGIN_MS); handOut <= answeredAt; handOut += 7) {
        expect(lapse).toBeLessThanOrEqual(handOut + 30_000);
        expect(lapse).toBeGreaterThan(handOut + 30_000 - 2_000);
      }
    }
  });

  it('count from the moment the receive was sent when the answer came within the margin', () => {
    expect(claimsLapseAt(base + 900, base + 1_200, 30)).toBe(base / 1000 + 30);
  });

  it("do not lose a long poll's wait: they count from the answer less the margin", () => {
    expect(claimsLapseAt(base, base + 15_500, 30)).toBe(base / 1000 + 14 + 30);
  });
});

describe('the visibility timeout a poll takes: claims must have time to run', () => {
  const document = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' }));
  const consumer = createConsumer({
    name: 'mailer',
    sources: ['urn:test:shop'],
    handlers: { 'order.placed': { idempotency: 'claim', handle: () => {} } },
    inbox: { document, tableName: 'inbox' },
  });
  const queueUrl = 'https://sqs.us-east-1.amazonaws.com/000000000000/q';
  const allowed =
    "allowed: a whole number of seconds from 3 to 43200 (a batch's claims lapse up to 2 s before its visibility timeout ends, so 2 s or less leaves them no time)";

  /** An SQS client that records the commands sent and answers `answer` to a GetQueueAttributes. */
  const recordingSqs = (answer: Record<string, string> = {}) => {
    const commands: string[] = [];
    const sqs = {
      send: async (command: object) => {
        commands.push(command.constructor.name);
        return command instanceof GetQueueAttributesCommand ? { Attributes: answer } : {};
      },
    } as unknown as SQSClient;
    return { sqs, commands };
  };

  it('at 2 s or less a claim lapses within 1 s of the answer, or before it: at once after a long poll', () => {
    const answeredAt = base + 15_500; // a long poll that waited 15 s
    const timeLeft = (seconds: number) => claimsLapseAt(base, answeredAt, seconds) * 1000 - answeredAt;
    expect(timeLeft(0)).toBeLessThan(0);
    expect(timeLeft(1)).toBeLessThanOrEqual(0);
    expect(timeLeft(2)).toBeLessThanOrEqual(1_000);
    expect(timeLeft(3)).toBeGreaterThan(1_000);
    // The worst answer time for 3 s: still more than 1 s left.
    expect(claimsLapseAt(base, base + 1_999, 3) * 1000 - (base + 1_999)).toBeGreaterThan(1_000);
  });

  it('pollOnce and createPoller refuse visibilityTimeoutSeconds 0, 1 and 2 before anything is sent, naming the value and what is allowed', async () => {
    for (const seconds of [0, 1, 2]) {
      const { sqs, commands } = recordingSqs();
      const once = await pollOnce({ sqs, queueUrl, consumer, visibilityTimeoutSeconds: seconds }).catch((e: unknown) => e);
      expect(once).toBeInstanceOf(ConsumerOptionsError);
      expect(once).toMatchObject({
        field: 'pollOnce.visibilityTimeoutSeconds',
        message: `Invalid consumer option pollOnce.visibilityTimeoutSeconds: got ${seconds}; ${allowed}`,
      });
      expect(() => createPoller({ sqs, queueUrl, consumer, visibilityTimeoutSeconds: seconds })).toThrow(
        `Invalid consumer option createPoller.visibilityTimeoutSeconds: got ${seconds}; ${allowed}`,
      );
      expect(commands).toEqual([]);
    }
    const { sqs, commands } = recordingSqs();
    await expect(pollOnce({ sqs, queueUrl, consumer, visibilityTimeoutSeconds: 3 })).resolves.toMatchObject({ received: 0 });
    expect(commands).toEqual(['ReceiveMessageCommand']);
  });

  it('refuses a queue whose own visibility timeout is 2 s or less: nothing is received, and the error says what to do', async () => {
    const { sqs, commands } = recordingSqs({ VisibilityTimeout: '2' });
    const error = await pollOnce({ sqs, queueUrl: `${queueUrl}-short`, consumer }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PollError);
    expect(error).toMatchObject({ phase: 'queue-attributes', queueUrl: `${queueUrl}-short` });
    expect((error as Error).message).toBe(
      `Polling ${queueUrl}-short failed at queue-attributes: the queue's VisibilityTimeout is 2 s; ${allowed}; nothing was received; raise the queue's visibility timeout, or pass visibilityTimeoutSeconds to poll with another`,
    );
    expect(commands).toEqual(['GetQueueAttributesCommand']);
    const three = recordingSqs({ VisibilityTimeout: '3' });
    await expect(pollOnce({ sqs: three.sqs, queueUrl: `${queueUrl}-three`, consumer })).resolves.toMatchObject({ received: 0 });
    expect(three.commands).toEqual(['GetQueueAttributesCommand', 'ReceiveMessageCommand']);
  });
});
