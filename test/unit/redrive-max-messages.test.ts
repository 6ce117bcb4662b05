import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it, vi } from 'vitest';
import { RedriveOptionsError, redriveQueueDlq, summarizeDlq } from '../../shared/redrive/index.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing-dlq';
const SOURCE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing';

/** `maxMessages` of summarizeDlq and of a redrive: one rule, refused before SQS is asked anything. */
describe('maxMessages, one rule for summarizeDlq and the redrives', () => {
  const runs = (maxMessages: unknown) => {
    const send = vi.fn(async () => ({}));
    const sqs = { send } as unknown as SQSClient;
    return {
      send,
      summarize: () => summarizeDlq({ sqs, queueUrl: DLQ, maxMessages: maxMessages as number }),
      redrive: () => redriveQueueDlq({ sqs, queueUrl: DLQ, targetQueueUrl: SOURCE, maxMessages: maxMessages as number }),
    };
  };

  it.each([
    [0, '0'],
    [1.5, '1.5'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    // A redrive took these: a number past 2 ** 53 is not the one written.
    [2 ** 53, String(2 ** 53)],
    [1e20, '100000000000000000000'],
    // summarizeDlq said `got 5` of the string "5".
    ['5', '"5"'],
  ])('refuses %j alike', async (maxMessages, shown) => {
    const { send, summarize, redrive } = runs(maxMessages);
    const message = `Invalid redrive option maxMessages: got ${shown}; allowed: a positive whole number, at most ${Number.MAX_SAFE_INTEGER}`;
    for (const run of [summarize, redrive]) {
      const error = await run().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedriveOptionsError);
      expect((error as Error).message).toBe(message);
    }
    expect(send).not.toHaveBeenCalled();
  });
});
