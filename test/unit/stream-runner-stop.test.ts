import { defineConfig } from 'dynamodb-outbox';
import { relayEventSourceSettings } from 'dynamodb-outbox/relay';
import { describe, expect, it } from 'vitest';
import { type StreamHandler, StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

const config = defineConfig({ source: 'urn:test:stop', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

describe('stream runner stop', () => {
  it('ends once a hung invocation in flight times out, without waiting out one more timeout for it', async () => {
    const stream = new SimulatedStream();
    stream.commit({ type: 'order', id: 'o1' }, 1, 1);
    let invoked = false;
    // Never answers: only the function's timeout ends it.
    const handler: StreamHandler = () => {
      invoked = true;
      return new Promise(() => {});
    };
    const errors: unknown[] = [];
    const runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      settings: { ...relayEventSourceSettings(config), functionTimeoutSeconds: 2 },
      handler,
      onError: (error) => errors.push(error),
      pollIntervalMs: 10,
    });
    runner.start();
    await expect.poll(() => invoked, { timeout: 10_000 }).toBe(true);

    let stoppedAt: number | undefined;
    const stopping = runner.stop().then(() => {
      stoppedAt = Date.now();
    });
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(1);
    const timedOutAt = Date.now();
    await stopping;

    expect(String(errors[0])).toMatch(/^Error: Task timed out after 2\.00 seconds/);
    // Stopped, it gives the late call no second timeout (2 s) before it ends: it ends at once.
    expect(stoppedAt! - timedOutAt).toBeLessThan(1_000);
  });
});
