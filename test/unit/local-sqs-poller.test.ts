import { DeleteMessageBatchCommand, type Message, type ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { type SqsBatchReport, type SqsHandler, SqsPoller, type SqsPollerClient } from '../../shared/local/event-source/sqs-event-source.js';

let poller: SqsPoller | undefined;
afterEach(async () => {
  await poller?.stop();
});

/** An SQS stub: one receive returns `messages`, later ones wait until the poller stops; deletes answer `deleteOutput`. */
function stubQueue(messages: Message[], deleteOutput: object): SqsPollerClient {
  let received = false;
  return {
    send: (async (command: ReceiveMessageCommand | DeleteMessageBatchCommand, options?: { abortSignal?: AbortSignal }) => {
      if (command instanceof DeleteMessageBatchCommand) return deleteOutput;
      if (!received) {
        received = true;
        return { Messages: messages };
      }
      return new Promise((resolve) => options?.abortSignal?.addEventListener('abort', () => resolve({ Messages: [] }), { once: true }));
    }) as unknown as SqsPollerClient['send'],
  };
}

/** Starts a poller on `sqs` feeding `handler`, and resolves with what it reported once it handled one batch. */
async function firstBatch(
  sqs: SqsPollerClient,
  handler: SqsHandler,
  visibilityTimeoutSeconds = 30,
): Promise<{ report: SqsBatchReport; errors: unknown[] }> {
  const reports: SqsBatchReport[] = [];
  const errors: unknown[] = [];
  poller = new SqsPoller({
    sqs,
    queue: { url: 'http://127.0.0.1:1/000000000000/q', arn: 'arn:aws:sqs:us-east-1:000000000000:q' },
    handler,
    visibilityTimeoutSeconds,
    onBatch: (report) => reports.push(report),
    onError: (error) => errors.push(error),
  });
  poller.start();
  await expect.poll(() => reports.length, { timeout: 10_000 }).toBe(1);
  return { report: reports[0]!, errors };
}

describe('local SQS event source, deletes', () => {
  it('counts as acknowledged only the messages DeleteMessageBatch lists as Successful, and reports the others', async () => {
    const messages = ['a', 'b', 'c'].map((id) => ({ MessageId: id, ReceiptHandle: `rh-${id}`, Body: id }));
    const sqs = stubQueue(messages, {
      Successful: [{ Id: '0' }, { Id: '2' }],
      Failed: [{ Id: '1', Code: 'ReceiptHandleIsInvalid', SenderFault: true }],
    });
    const { report, errors } = await firstBatch(sqs, async () => ({ batchItemFailures: [] }));

    expect(report.acknowledged.map((r) => r.body)).toEqual(['a', 'c']);
    expect(report.undeleted.map((r) => r.body)).toEqual(['b']);
    expect(report.failed).toEqual([]);
    expect(String(errors[0])).toMatch(/deleted 2 of 3 handled messages \(ReceiptHandleIsInvalid\)/);
  });
});

describe('local SQS event source, the invocation context', () => {
  const messages = [{ MessageId: 'a', ReceiptHandle: 'rh-a', Body: 'a' }];

  it.each([
    [10, 10_000],
    [undefined, 30_000],
  ])(
    'counts down to 2 s before a visibility timeout of %s s ends, so claims lapse before the batch comes back',
    async (visibility, visibilityMs) => {
      const contexts: { functionName: string; awsRequestId: string; remainingMs: number }[] = [];
      const receivedBefore = Date.now();
      await firstBatch(
        stubQueue(messages, { Successful: [{ Id: '0' }] }),
        async (_, context) => {
          contexts.push({ ...context, remainingMs: context.getRemainingTimeInMillis() });
          return { batchItemFailures: [] };
        },
        visibility,
      );
      const elapsed = Date.now() - receivedBefore;

      expect(contexts).toHaveLength(1);
      expect(contexts[0]).toMatchObject({ functionName: 'q-consumer-local', awsRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(contexts[0]!.remainingMs).toBeLessThanOrEqual(visibilityMs - 2_000);
      expect(contexts[0]!.remainingMs).toBeGreaterThanOrEqual(visibilityMs - 2_000 - elapsed);
    },
  );
});

describe('local SQS event source, answers that mean success', () => {
  it.each([
    ['no answer', async () => undefined],
    ['an answer without batchItemFailures', async () => ({})],
    ['a null batchItemFailures', async () => ({ batchItemFailures: null })],
  ])('deletes the whole batch for %s, as Lambda does', async (_, handler) => {
    const messages = ['a', 'b'].map((id) => ({ MessageId: id, ReceiptHandle: `rh-${id}`, Body: id }));
    const { report, errors } = await firstBatch(stubQueue(messages, { Successful: [{ Id: '0' }, { Id: '1' }] }), handler as SqsHandler);

    expect(report.acknowledged.map((r) => r.body)).toEqual(['a', 'b']);
    expect(report.failed).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe('local SQS event source, handler failures', () => {
  const messages = ['a', 'b'].map((id) => ({ MessageId: id, ReceiptHandle: `rh-${id}`, Body: id }));

  it.each([
    ['throws', async () => Promise.reject(new Error('projection down')), /^Error: projection down$/],
    [
      'answers ids not in its batch',
      async () => ({ batchItemFailures: [{ itemIdentifier: 'zz' }] }),
      /answered batchItemFailures with ids not in its batch \(\["zz"\]\); as Lambda does, the whole batch counts as failed/,
    ],
  ])('reports a handler that %s, and counts the whole batch as failed', async (_, handler, reported) => {
    const { report, errors } = await firstBatch(stubQueue(messages, { Successful: [] }), handler);

    expect(report.failed.map((r) => r.body)).toEqual(['a', 'b']);
    expect(report.acknowledged).toEqual([]);
    expect(errors.map(String)).toEqual([expect.stringMatching(reported)]);
  });
});

describe('local SQS event source, a visibility extension in flight when the handler answers', () => {
  it('deletes the batch only once that extension has ended, so the extension cannot come after the delete', async () => {
    const steps: string[] = [];
    let endExtension = (): void => {};
    let answer = (): void => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let received = false;
    const sqs = {
      send: (async (command: { constructor: { name: string } }, options?: { abortSignal?: AbortSignal }) => {
        const name = command.constructor.name;
        if (name === 'DeleteMessageBatchCommand') {
          steps.push('delete');
          return { Successful: [{ Id: '0' }] };
        }
        if (name === 'ChangeMessageVisibilityBatchCommand') {
          steps.push('extension sent');
          return new Promise((resolve) => {
            endExtension = () => {
              steps.push('extension ended');
              resolve({ Successful: [{ Id: '0' }] });
            };
          });
        }
        if (!received) {
          received = true;
          return { Messages: [{ MessageId: 'a', ReceiptHandle: 'rh-a', Body: 'a' }] };
        }
        return new Promise((resolve) => options?.abortSignal?.addEventListener('abort', () => resolve({ Messages: [] }), { once: true }));
      }) as unknown as SqsPollerClient['send'],
    };
    const reports: SqsBatchReport[] = [];
    // A 1 s visibility: the first extension goes out after half a second, while the handler still runs.
    poller = new SqsPoller({
      sqs,
      queue: { url: 'http://127.0.0.1:1/000000000000/q', arn: 'arn:aws:sqs:us-east-1:000000000000:q' },
      visibilityTimeoutSeconds: 1,
      handler: async () => {
        await answered;
        return { batchItemFailures: [] };
      },
      onBatch: (report) => reports.push(report),
    });
    poller.start();
    await expect.poll(() => steps.includes('extension sent'), { timeout: 10_000 }).toBe(true);

    answer();
    // Everything the answer sets off without waiting has run by the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    endExtension();
    await expect.poll(() => reports.length, { timeout: 10_000 }).toBe(1);

    expect(steps.slice(0, 3)).toEqual(['extension sent', 'extension ended', 'delete']);
  });
});
