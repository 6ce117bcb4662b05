import { afterEach, describe, expect, it, vi } from 'vitest';
import { openPublishers, sequenceOf } from '../helpers/counting-publisher.js';
import { haltWorkers, workerOnFlakyLeases } from '../helpers/processor-worker.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  vi.restoreAllMocks();
  openPublishers();
  await haltWorkers();
});

describe('a checkpoint waiting to be retried when the worker stops', () => {
  it('is retried at once, not after its back-off, and the lease is released', async () => {
    // No back-off for the first failures; after the eighth, the longest: the next attempt is 12.8 s away.
    let random = 0;
    vi.spyOn(Math, 'random').mockImplementation(() => random);
    const { stream, shard, leases, publisher, seen, w } = await workerOnFlakyLeases({
      observer: ({ seen, observer }) => ({
        ...observer,
        error: (message: string, error: unknown) => {
          observer.error(message, error);
          if (seen.errors.length === 8) random = 0.999;
        },
      }),
      settings: { retryMaxDelayMs: 60_000 },
    });
    leases.checkpointFailures = 8;
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    await waitFor(() => seen.errors.length === 8, { what: 'eight failed checkpoints' });
    expect(leases.checkpointFailures).toBe(0);

    let stopped = false;
    void w.stop().then(() => {
      stopped = true;
    });
    await waitFor(() => stopped, { timeoutMs: 2000, what: 'stop() to resolve, well before the back-off ends' });

    expect(leases.rows.get(shard)!.checkpoint).toBe(sequenceOf(stream.shards[0]!.records[0]!));
    expect(seen.released).toEqual([shard]);
    expect(seen.lost).toEqual([]);
    expect(seen.errors.map((e) => e.message)).toEqual(Array(8).fill(`shard ${shard}: checkpoint failed; retrying while the lease is held`));
    expect([...publisher.published.values()]).toEqual([1]);
  });
});

describe('a checkpoint throttled after the worker began stopping', () => {
  const messages = (seen: { errors: { message: string }[] }) => seen.errors.map((e) => e.message);
  const failedCheckpoint = (shard: string) => `shard ${shard}: checkpoint failed; retrying while the lease is held`;

  /** Worker A with its one record's publish held until `open()`, and the table throttling the next `failures` checkpoints. */
  async function stopWithThrottledCheckpoint(failures: number, settings?: object) {
    const started = await workerOnFlakyLeases(settings === undefined ? {} : { settings });
    const { stream, leases, publisher, w } = started;
    publisher.hold();
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    await waitFor(() => publisher.inFlight === 1, { what: 'the publish to start' });
    leases.checkpointFailures = failures;
    const stopped = w.stop();
    return { ...started, stopped, record: sequenceOf(stream.shards[0]!.records[0]!) };
  }

  it('is retried, and the lease released with the checkpoint written', async () => {
    const { shard, leases, publisher, seen, stopped, record } = await stopWithThrottledCheckpoint(2);
    publisher.open();
    await stopped;

    expect(leases.checkpointFailures).toBe(0);
    expect(leases.rows.get(shard)!.checkpoint).toBe(record);
    expect(leases.rows.get(shard)!.leaseOwner).toBeUndefined();
    expect(seen.released).toEqual([shard]);
    expect(seen.lost).toEqual([]);
    expect(messages(seen)).toEqual(Array(2).fill(failedCheckpoint(shard)));
  });

  it('is retried three times at most; then the lease is given up to expire for the next worker', async () => {
    const { shard, leases, publisher, seen, stopped } = await stopWithThrottledCheckpoint(Number.POSITIVE_INFINITY);
    publisher.open();
    await stopped;

    expect(messages(seen)).toEqual(Array(4).fill(failedCheckpoint(shard)));
    expect(seen.lost).toEqual([shard]);
    expect(seen.released).toEqual([]);
    expect(leases.rows.get(shard)).toMatchObject({ checkpoint: 'TRIM_HORIZON', leaseOwner: 'A' });
  });

  it('is not retried once the worker has been stopping for handOffTimeoutMs', async () => {
    const { shard, leases, publisher, seen, stopped } = await stopWithThrottledCheckpoint(Number.POSITIVE_INFINITY, {
      handOffTimeoutMs: 50,
    });
    // Renewed every 50 ms: two more renewals after the stop's hand-over mark (itself a counter step),
    // and the stop has gone on for longer than handOffTimeoutMs.
    await waitFor(() => leases.rows.get(shard)!.handingOver === true, { what: 'the hand-over mark' });
    const counter = leases.rows.get(shard)!.leaseCounter;
    await waitFor(() => leases.rows.get(shard)!.leaseCounter >= counter + 2, { what: 'two more renewals' });
    publisher.open();
    await stopped;

    expect(messages(seen)).toEqual([failedCheckpoint(shard)]);
    expect(seen.lost).toEqual([shard]);
  });
});
