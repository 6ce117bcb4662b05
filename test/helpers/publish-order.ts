import { expect } from 'vitest';
import type { SimulatedStream } from './simulated-stream.js';

/**
 * Asserts the order of `accepted` (event ids `type:aggregateId:seq` in the order SNS accepted them,
 * copies included) over `stream`: each aggregate's first copies in sequence order, and each child
 * shard's first copies of `expected` after all of its parent's.
 */
export function expectLineageOrder(accepted: readonly string[], expected: readonly string[], stream: SimulatedStream): void {
  const first = new Map<string, number>();
  accepted.forEach((id, index) => {
    if (!first.has(id)) first.set(id, index);
  });
  // Each item's records in order: first publications increase with the sequence.
  const lastSeq = new Map<string, number>();
  for (const id of first.keys()) {
    const [type, aggregateId, seq] = id.split(':');
    const key = `${type}:${aggregateId}`;
    expect(Number(seq), `${key} out of order`).toBeGreaterThan(lastSeq.get(key) ?? 0);
    lastSeq.set(key, Number(seq));
  }
  // Parents before children: a child's first publication comes after all of its parent's.
  for (const shard of stream.shards) {
    if (shard.parent === undefined) continue;
    const positions = (shardId: string) => expected.filter((id) => stream.shardOfEvent.get(id) === shardId).map((id) => first.get(id)!);
    const parent = positions(shard.parent);
    const child = positions(shard.id);
    if (parent.length > 0 && child.length > 0) expect(Math.min(...child)).toBeGreaterThan(Math.max(...parent));
  }
}
