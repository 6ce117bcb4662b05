import { afterEach, describe, expect, it, vi } from 'vitest';
import { startHealthServer } from '../../shared/processor/health.js';
import { ShardConsumer } from '../../shared/processor/shard-consumer.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { CountingPublisher, openPublishers } from '../helpers/counting-publisher.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, recorder, SETTINGS, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  await haltWorkers();
  vi.restoreAllMocks();
});

describe('the health endpoint after a crash of one shard consumer', () => {
  it('stays healthy while the lease expires and is taken again, and the shard is published', async () => {
    const stream = new SimulatedStream();
    const leases = new MemoryLeaseStore();
    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    // The first consumer run fails as a bug would; the ones after run as they should.
    const run = ShardConsumer.prototype.run;
    vi.spyOn(ShardConsumer.prototype, 'run')
      .mockImplementationOnce(() => Promise.reject(new Error('a bug')))
      .mockImplementation(function (this: ShardConsumer) {
        return run.call(this);
      });
    const w = worker({ source: new StreamSource(stream, stream.streamArn), leases, publisher, workerId: 'A', observer });
    const health = await startHealthServer(() => w.status(), SETTINGS.failoverMs, 0);
    const answer = async () => {
      const response = await fetch(`http://127.0.0.1:${health.port}/health`);
      return { status: response.status, body: (await response.json()) as { leases: string[] } };
    };
    try {
      await w.start();
      await waitFor(() => seen.errors.some((e) => e.message.endsWith('consumer failed')), { what: 'the consumer to fail' });
      // The worker itself is sound: its lease table reads go on, and ECS must not replace it.
      expect((await answer()).status).toBe(200);

      stream.commit({ type: 'order', id: 'o1' }, 1, 1);
      await waitFor(() => [...publisher.published.values()].join() === '1', {
        what: 'the shard to be published once its lease is taken again',
      });
      const after = await answer();
      expect(after.status).toBe(200);
      expect(after.body.leases).toHaveLength(1);
      expect(seen.acquired).toHaveLength(2);
    } finally {
      await health.close();
    }
  });
});
