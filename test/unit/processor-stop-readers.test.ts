import { type DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamSource, type StreamsApi, type StreamsCallOptions } from '../../shared/processor/stream-source.js';
import { CountingPublisher, openPublishers } from '../helpers/counting-publisher.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, recorder, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  await haltWorkers();
});

/** One ordered log of the shard reads (`GetShardIterator`, `GetRecords`) of every worker and of the releases. */
type Event = { readonly kind: 'read' | 'released'; readonly worker: string; readonly shard: string };

/** `stream` as `worker` calls it, logging each of its reads of a shard when it is sent and when it is answered. */
function logged(stream: SimulatedStream, worker: string, log: Event[]): StreamsApi {
  const shardOf = (command: unknown): string | undefined => {
    if (command instanceof GetShardIteratorCommand) return command.input.ShardId;
    if (command instanceof GetRecordsCommand) return (JSON.parse(command.input.ShardIterator ?? '{}') as { shard?: string }).shard;
    return undefined;
  };
  return {
    send: (async (command: DescribeStreamCommand | GetShardIteratorCommand | GetRecordsCommand, _options?: StreamsCallOptions) => {
      const shard = shardOf(command);
      if (shard !== undefined) log.push({ kind: 'read', worker, shard });
      try {
        return await stream.send(command as GetRecordsCommand);
      } finally {
        if (shard !== undefined) log.push({ kind: 'read', worker, shard });
      }
    }) as StreamsApi['send'],
  };
}

describe('readers of a shard during a graceful hand-over', () => {
  it('are never two processor workers at once: the next worker reads a marked shard only after its release, and the stopping one not after it', async () => {
    const stream = new SimulatedStream({ initialShards: 3 });
    const shards = stream.shards.map((shard) => shard.id);
    const leases = new MemoryLeaseStore();
    const log: Event[] = [];
    const slow = new CountingPublisher();
    const a = recorder();
    const first = worker({
      source: new StreamSource(logged(stream, 'A', log), stream.streamArn),
      leases,
      publisher: slow,
      workerId: 'A',
      observer: { ...a.observer, leaseReleased: (shard: string) => log.push({ kind: 'released', worker: 'A', shard }) },
    });
    await first.start();
    await waitFor(() => first.status().leases.length === 3, { what: 'A to take the three leases' });
    slow.hold();
    for (let id = 0; new Set(stream.shardOfEvent.values()).size < 3; id++) stream.commit({ type: 'order', id: `o${id}` }, 1, 1);
    await waitFor(() => slow.inFlight === 3, { what: "A's pages in flight on every shard" });

    const stopping = first.stop();
    await waitFor(() => [...leases.rows.values()].every((lease) => lease.handingOver === true), { what: "A's leases marked" });
    const b = recorder();
    const second = worker({
      source: new StreamSource(logged(stream, 'B', log), stream.streamArn),
      leases,
      publisher: new CountingPublisher(),
      workerId: 'B',
      observer: b.observer,
    });
    await second.start();
    const scans = b.seen.scans;
    await waitFor(() => b.seen.scans >= scans + 10, { what: 'ten lease scans of B' });
    slow.open();
    await stopping;
    await waitFor(() => second.status().leases.length === 3, { what: 'B to take the three released leases' });
    await waitFor(() => shards.every((shard) => log.some((e) => e.worker === 'B' && e.shard === shard)), { what: 'B to read every shard' });

    for (const shard of shards) {
      const ofShard = log.filter((event) => event.shard === shard);
      const released = ofShard.findIndex((event) => event.kind === 'released');
      expect(released).toBeGreaterThan(0);
      // Every read of A, sent and answered, before the release; every read of B after it.
      expect(ofShard.slice(0, released).every((event) => event.worker === 'A')).toBe(true);
      expect(ofShard.slice(released + 1).every((event) => event.worker === 'B')).toBe(true);
    }
  });
});
