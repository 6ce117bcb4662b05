import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { LocalStackError } from '../../shared/local/errors.js';
import { HandlerActivity } from '../../shared/local/stack/handler-activity.js';
import { type IdleWatch, waitUntilIdle } from '../../shared/local/stack/wait-for-idle.js';

/*
 * waitUntilIdle's ends that the stack cannot be steered into: a wait that times out after its only
 * idle look, and a queue whose attributes cannot be read (a real SQS client on a closed port).
 */

/** A relay that lists its shards and reads its one shard to its end, with nothing pending, on every look. */
const idleRelay = () => ({
  refreshedAt: Date.now() + 1,
  recordsRead: 0,
  invocations: 0,
  shards: [{ shardId: 'shard-1', status: 'reading' as const, pending: 0, drainedSince: Date.now() + 1 }],
});

function watchOf(handledQueues: IdleWatch['handledQueues'], sqs = new SQSClient({})): IdleWatch {
  return {
    activity: { relay: idleRelay, processor: () => undefined, handlers: new HandlerActivity() },
    sqs,
    handledQueues,
    signal: new AbortController().signal,
    stopped: () => new LocalStackError('STACK_STOPPED', 'stopped'),
  };
}

describe('waitUntilIdle', () => {
  it('says, when it times out after its only look found all idle, that a second idle look was needed', async () => {
    await expect(waitUntilIdle(watchOf([]), 0)).rejects.toThrow(
      new LocalStackError(
        'NOT_IDLE',
        'waitForIdle() timed out after 0 ms; nothing was busy at its only look, but idle takes two idle looks in a row with nothing moved between them, and the timeout came before the second; allowed: a longer timeoutMs, once what is busy can end (a handler that fails until its messages reach the DLQ takes maxReceiveCount × the visibility timeout)',
      ),
    );
  });

  it('ends with NOT_IDLE naming the queue, the SDK error as its cause, when a queue cannot be read', async () => {
    const sqs = new SQSClient({
      endpoint: 'http://127.0.0.1:1',
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    const url = 'http://127.0.0.1:1/000000000000/billing';
    const error = await waitUntilIdle(watchOf([{ subscriber: 'billing', url }], sqs), 5_000).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    sqs.destroy();
    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({
      code: 'NOT_IDLE',
      message: expect.stringMatching(
        /^waitForIdle\(\) could not read the messages on queue "billing" \(http:\/\/127\.0\.0\.1:1\/000000000000\/billing\): .+; allowed: a queue the stack's SQS client can read \(GetQueueAttributes\), as it can while the stack runs$/,
      ),
    });
    expect((error as LocalStackError).cause).toBeInstanceOf(Error);
    expect((error as LocalStackError).cause).not.toBeInstanceOf(LocalStackError);
  });
});
