import { describe, expect, it } from 'vitest';
import { SHARD_END, TRIM_HORIZON } from '../../shared/processor/lease.js';
import { syncShards } from '../../shared/processor/shard-sync.js';
import { StreamSource } from '../../shared/processor/stream-source.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

async function setCheckpoint(store: MemoryLeaseStore, key: string, checkpoint: string): Promise<void> {
  const row = store.rows.get(key)!;
  const taken = (await store.take(row, 'w1'))!;
  await store.checkpoint(taken, 'w1', checkpoint);
}

describe('shard sync', () => {
  it('creates a lease per shard with its parent, parents first', async () => {
    const stream = new SimulatedStream({ initialShards: 1, pageSize: 1 });
    stream.split(stream.shards[0]!.id);
    const store = new MemoryLeaseStore();
    const result = await syncShards(new StreamSource(stream, stream.streamArn), store);
    expect(result).toEqual({ shards: 3, created: 3, removed: 0 });
    const [root, a, b] = stream.shards.map((s) => s.id) as [string, string, string];
    expect([...store.rows.keys()]).toEqual([root, a, b]);
    expect(store.rows.get(a)).toMatchObject({ parentShardIds: [root], checkpoint: TRIM_HORIZON });
  });

  it('never recreates a removed parent from a listing older than the lease read (a slow scan meanwhile)', async () => {
    const stream = new SimulatedStream();
    const root = stream.shards[0]!.id;
    // The listing as a slow sync got it: the parent still open, no children yet.
    const stale = await new StreamSource(stream, stream.streamArn).listShards();
    stream.split(root);
    const [, a, b] = stream.shards.map((s) => s.id) as [string, string, string];
    const store = new MemoryLeaseStore();
    await syncShards(new StreamSource(stream, stream.streamArn), store);
    await setCheckpoint(store, root, SHARD_END);
    await setCheckpoint(store, a, '100');
    await setCheckpoint(store, b, '200');
    await syncShards(new StreamSource(stream, stream.streamArn), store);
    expect(store.rows.has(root)).toBe(false);

    const slow = { streamArn: stream.streamArn, listShards: async () => stale } as unknown as StreamSource;
    expect((await syncShards(slow, store)).created).toBe(0);
    expect(store.rows.has(root)).toBe(false);
  });

  it('never recreates a removed grandparent from a stale listing whose children were removed too', async () => {
    const stream = new SimulatedStream();
    const root = stream.shards[0]!.id;
    stream.split(root);
    const [, a, b] = stream.shards.map((s) => s.id) as [string, string, string];
    // The listing as a slow sync got it: the root and its children, the children not yet split.
    const stale = await new StreamSource(stream, stream.streamArn).listShards();
    stream.split(a);
    stream.split(b);
    const grandchildren = stream.shards.slice(3).map((s) => s.id);
    const source = new StreamSource(stream, stream.streamArn);
    const store = new MemoryLeaseStore();
    await syncShards(source, store);
    await setCheckpoint(store, root, SHARD_END);
    await setCheckpoint(store, a, '100');
    await setCheckpoint(store, b, '200');
    await syncShards(source, store);
    await setCheckpoint(store, a, SHARD_END);
    await setCheckpoint(store, b, SHARD_END);
    for (const [i, shard] of grandchildren.entries()) await setCheckpoint(store, shard, String(300 + i));
    await syncShards(source, store);
    expect([...store.rows.keys()].toSorted()).toEqual(grandchildren.toSorted());

    // Only the grandchildren's leases are left, naming a and b: nothing names the root.
    const slow = { streamArn: stream.streamArn, listShards: async () => stale } as unknown as StreamSource;
    expect(await syncShards(slow, store)).toEqual({ shards: 3, created: 0, removed: 0 });
    expect([...store.rows.keys()].toSorted()).toEqual(grandchildren.toSorted());
  });

  it('removes a finished lease only once every child has started, and never recreates it', async () => {
    const stream = new SimulatedStream();
    stream.split(stream.shards[0]!.id);
    const [root, a, b] = stream.shards.map((s) => s.id) as [string, string, string];
    const source = new StreamSource(stream, stream.streamArn);
    const store = new MemoryLeaseStore();
    await syncShards(source, store);
    await setCheckpoint(store, root, SHARD_END);
    await setCheckpoint(store, a, '100');
    expect((await syncShards(source, store)).removed).toBe(0);
    expect(store.rows.has(root)).toBe(true);
    await setCheckpoint(store, b, '200');
    expect(await syncShards(source, store)).toEqual({ shards: 3, created: 0, removed: 1 });
    expect(store.rows.has(root)).toBe(false);
    expect((await syncShards(source, store)).created).toBe(0);
    expect(store.rows.has(root)).toBe(false);
  });
});
