import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { MAX_VISIBILITY_TIMEOUT_SECONDS } from '../../shared/consumer/poll-options.js';
import { summarizeDlq } from '../../shared/redrive/dlq-summary.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { visibilityTimeoutOf } from '../../shared/redrive/option-checks.js';

/** A queue that records what was asked of it and holds nothing. */
function emptyQueue() {
  const calls: string[] = [];
  const sqs = {
    send: async (command: { constructor: { name: string } }): Promise<unknown> => {
      calls.push(command.constructor.name);
      if (command.constructor.name === 'GetQueueAttributesCommand') return { Attributes: {} };
      if (command.constructor.name === 'ReceiveMessageCommand') return { Messages: [] };
      throw new Error(`unexpected ${command.constructor.name}`);
    },
  } as unknown as SQSClient;
  return { sqs, calls };
}

const allowed = 'allowed: a whole number of seconds from 1 to 43200';

describe("redrive's visibility timeouts are bounded by SQS's 12 hours", () => {
  it('takes the longest SQS allows, and the default of 120 s', () => {
    expect(MAX_VISIBILITY_TIMEOUT_SECONDS).toBe(43_200);
    expect(visibilityTimeoutOf(43_200)).toBe(43_200);
    expect(visibilityTimeoutOf()).toBe(120);
  });

  it.each([
    [0, 'got 0'],
    [43_201, 'got 43201'],
    [1.5, 'got 1.5'],
    ['60', 'got "60"'],
  ])('summarizeDlq refuses %j before asking the queue anything: %s', async (seconds, given) => {
    const queue = emptyQueue();
    const run = summarizeDlq({
      sqs: queue.sqs,
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
      visibilityTimeoutSeconds: seconds as number,
    });
    await expect(run).rejects.toThrow(RedriveOptionsError);
    await expect(run).rejects.toThrow(`Invalid redrive option visibilityTimeoutSeconds: ${given}; ${allowed}`);
    expect(queue.calls).toEqual([]);
  });

  it('summarizeDlq reads with a visibility timeout of 12 hours', async () => {
    const queue = emptyQueue();
    const summary = await summarizeDlq({
      sqs: queue.sqs,
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
      visibilityTimeoutSeconds: 43_200,
      waitTimeSeconds: 0,
    });
    expect(summary).toMatchObject({ status: 'completed', read: 0 });
    expect(queue.calls).toContain('ReceiveMessageCommand');
  });
});
