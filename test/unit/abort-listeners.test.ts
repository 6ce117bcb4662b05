import { afterEach, describe, expect, it } from 'vitest';
import { followSignal, sharedAbortController } from '../../shared/abort.js';
import { sleep } from '../../shared/backoff.js';
import { defineConfig } from '../../shared/config.js';
import { relayEventSourceSettings } from '../../shared/event-source.js';
import { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { WorkerClock } from '../../shared/processor/worker-clock.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { captureWarnings } from '../helpers/warnings.js';

let capture: ReturnType<typeof captureWarnings> | undefined;
afterEach(() => {
  capture?.stop();
  capture = undefined;
});

/** `count` waits on `signal` at once, all ended by aborting it. */
async function waitsOn(signal: AbortSignal, abort: () => void, count: number): Promise<void> {
  const waits = Array.from({ length: count }, () => sleep(60_000, signal));
  abort();
  await Promise.all(waits);
}

describe('abort signals many waits listen to', () => {
  it('a plain AbortController draws Node’s leak warning past 10 listeners (what the shared ones avoid)', async () => {
    capture = captureWarnings();
    const controller = new AbortController();
    await waitsOn(controller.signal, () => controller.abort(), 11);
    expect(capture.warnings.map((w) => w.message)).toEqual([expect.stringContaining('11 abort listeners added to [AbortSignal]')]);
  });

  it('sharedAbortController takes any number of listeners without a warning', async () => {
    capture = captureWarnings();
    const controller = sharedAbortController();
    await waitsOn(controller.signal, () => controller.abort(), 50);
    expect(capture.warnings).toEqual([]);
  });

  it('followSignal aborts with its parent and its reason, takes any number of listeners, and leaves the parent as it was', async () => {
    capture = captureWarnings();
    const parent = new AbortController();
    const followed = followSignal(parent.signal);
    const reason = new Error('the invocation ends');
    await waitsOn(followed.signal, () => parent.abort(reason), 50);
    expect(followed.signal.aborted).toBe(true);
    expect(followed.signal.reason).toBe(reason);
    expect(capture.warnings).toEqual([]);
  });

  it('followSignal of an aborted parent is aborted; once detached, it no longer follows', () => {
    const aborted = new AbortController();
    aborted.abort('gone');
    expect(followSignal(aborted.signal).signal.reason).toBe('gone');

    const parent = new AbortController();
    const followed = followSignal(parent.signal);
    followed.detach();
    parent.abort();
    expect(followed.signal.aborted).toBe(false);
  });

  it('a processor worker’s clock has its sleeps, one per shard held, listen without a warning', async () => {
    capture = captureWarnings();
    const clock = new WorkerClock();
    // Sleeps that only listen: stopping the clock ends them all at once, nothing waits them out.
    const sleeps = Array.from({ length: 40 }, () => clock.sleep(60_000));
    clock.stop();
    await Promise.all(sleeps);
    expect(capture.warnings).toEqual([]);
  });

  it('the local runner reads ten lanes of a shard without a warning', async () => {
    capture = captureWarnings();
    const stream = new SimulatedStream();
    for (let i = 0; i < 40; i++) stream.commit({ type: 'order', id: `o-${i}` }, 1, 1);
    const config = defineConfig({ source: 'urn:test:lanes', topics: [{ name: 'orders' }], routes: { order: 'orders' } });
    let handed = 0;
    const runner = new StreamRunner({
      streams: stream,
      streamArn: stream.streamArn,
      settings: { ...relayEventSourceSettings(config), parallelizationFactor: 10, batchSize: 1 },
      handler: async ({ Records }) => {
        handed += Records.length;
        return { batchItemFailures: [] };
      },
      pollIntervalMs: 10,
    });
    runner.start();
    try {
      await expect.poll(() => handed, { timeout: 10_000 }).toBe(40);
      await runner.idle();
    } finally {
      await runner.stop();
    }
    expect(capture.warnings).toEqual([]);
  });
});
