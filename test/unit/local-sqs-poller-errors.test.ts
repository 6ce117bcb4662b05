import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SqsPoller, type SqsPollerClient } from '../../shared/local/event-source/sqs-event-source.js';

describe('local SQS event source after failing receives', () => {
  it('keeps no stop listener of a back-off that has passed, so a queue that keeps failing leaks nothing', async () => {
    const sqs: SqsPollerClient = { send: (async () => Promise.reject(new Error('queue gone'))) as unknown as SqsPollerClient['send'] };
    const errors: unknown[] = [];
    const poller = new SqsPoller({
      sqs,
      queue: { url: 'http://127.0.0.1:1/000000000000/q', arn: 'arn:aws:sqs:us-east-1:000000000000:q' },
      handler: async () => undefined,
      visibilityTimeoutSeconds: 30,
      onError: (error) => errors.push(error),
    });
    poller.start();
    try {
      await expect.poll(() => errors.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      const stopping = (poller as unknown as { abort: AbortController }).abort.signal;
      // At most the back-off under way listens for the stop.
      expect(getEventListeners(stopping, 'abort').length).toBeLessThanOrEqual(1);
    } finally {
      await poller.stop();
    }
  });
});
