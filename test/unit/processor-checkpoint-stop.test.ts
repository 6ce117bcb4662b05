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
