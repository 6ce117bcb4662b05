import { DescribeStreamCommand, LimitExceededException, ResourceNotFoundException } from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, it } from 'vitest';
import type { StreamBatchInfo } from '../../shared/on-failure/batch-record.js';
import type { StreamsApi } from '../../shared/processor/stream-source.js';
import { type Ancestry, ShardHolds } from '../../shared/redrive/shard-holds.js';
import { ShardLineage } from '../../shared/redrive/shard-lineage.js';
import { streamOrder } from '../../shared/redrive/shard-order.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

const STREAM = 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2025-01-01T00:00:00.000';
const retry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 };

const batch = (shardId: string, start: string, arrival = '2025-01-01T00:00:10Z', end = start): StreamBatchInfo => ({
  shardId,
  startSequenceNumber: start,
  endSequenceNumber: end,
  approximateArrivalOfFirstRecord: arrival,
  approximateArrivalOfLastRecord: arrival,
  batchSize: 1,
  streamArn: STREAM,
});

const unknownLineage: Ancestry = { known: false };
const lineage = (ancestors: string[], listed: string[] = ancestors): Ancestry => ({
  known: true,
  ancestors,
  complete: true,
  listed: (shardId) => listed.includes(shardId),
});

describe('ShardHolds', () => {
  it('holds its shard from the held record on, not the records before it', () => {
    const holds = new ShardHolds();
    holds.hold('s1', '200', 'unreadable', batch('s1', '200'));

    expect(holds.reason(batch('s1', '100'), lineage([]))).toBeUndefined();
    expect(holds.reason(batch('s1', '200'), lineage([]))).toMatch(/^held back: an earlier record of shard s1 .*\(unreadable\)/);
    // Compared as numbers, not as text ('1000' < '200' as text).
    expect(holds.reason(batch('s1', '1000'), lineage([]))).toMatch(/^held back/);
  });

  it('keeps the earliest hold of a shard, whichever order the holds come in', () => {
    const later = new ShardHolds();
    later.hold('s1', '300', 'second', batch('s1', '300'));
    later.hold('s1', '200', 'first', batch('s1', '200'));
    const earlier = new ShardHolds();
    earlier.hold('s1', '200', 'first', batch('s1', '200'));
    earlier.hold('s1', '300', 'second', batch('s1', '300'));

    for (const holds of [later, earlier]) expect(holds.reason(batch('s1', '250'), lineage([]))).toMatch(/\(first\)/);
  });

  it('a hold of the whole shard (its record unplaced) is not narrowed by a later hold from a sequence number', () => {
    const holds = new ShardHolds();
    holds.hold('s1', undefined, 'object unreadable');
    holds.hold('s1', '500', 'unrouted', batch('s1', '500'));

    expect(holds.reason(batch('s1', '1'), lineage([]))).toMatch(/\(object unreadable\)/);
  });

  it('reaches descendants through the lineage, and no shard of another branch', () => {
    const holds = new ShardHolds();
    holds.hold('root', '100', 'unreadable', batch('root', '100', '2025-01-01T00:00:00Z'));

    expect(holds.reason(batch('grandchild', '900'), lineage(['child', 'root']))).toMatch(/^held back: a record of parent shard root/);
    // Another root shard, its lineage complete: it arrived later, but is not a descendant.
    expect(holds.reason(batch('other', '900'), lineage([], ['other', 'root']))).toBeUndefined();
  });

  it('without the lineage, holds every shard of the stream whose records arrived no earlier than the held one', () => {
    const holds = new ShardHolds();
    holds.hold('p', '100', 'unreadable', batch('p', '100', '2025-01-01T00:00:10Z'));

    expect(holds.reason(batch('c', '900', '2025-01-01T00:00:10Z'), unknownLineage)).toMatch(/which arrived no later/);
    expect(holds.reason(batch('c', '900', '2025-01-01T00:00:20Z'), unknownLineage)).toMatch(/which arrived no later/);
    expect(holds.reason(batch('c', '900', '2025-01-01T00:00:05Z'), unknownLineage)).toBeUndefined();
    // Another stream is not held.
    expect(holds.reason({ ...batch('c', '900', '2025-01-01T00:00:20Z'), streamArn: `${STREAM}x` }, unknownLineage)).toBeUndefined();
  });

  it('errs on the side of holding when an arrival cannot be read', () => {
    const unreadableHold = new ShardHolds();
    unreadableHold.hold('p', '100', 'unreadable', batch('p', '100', 'not a time'));
    expect(unreadableHold.reason(batch('c', '900', '2020-01-01T00:00:00Z'), unknownLineage)).toMatch(/which arrived no later/);

    const unreadableRecord = new ShardHolds();
    unreadableRecord.hold('p', '100', 'unreadable', batch('p', '100'));
    expect(unreadableRecord.reason(batch('c', '900', ''), unknownLineage)).toMatch(/which arrived no later/);
  });

  it('with a chain cut short by a shard gone from the listing, holds by arrival only behind shards gone from it too', () => {
    const holds = new ShardHolds();
    holds.hold('listed', '100', 'listed hold', batch('listed', '100', '2025-01-01T00:00:00Z'));
    const cut: Ancestry = { known: true, ancestors: ['gone-parent'], complete: false, listed: (s) => s === 'listed' || s === 'c' };

    // A held shard still listed closed less than 24 h ago: it cannot lie beyond the gone parent.
    expect(holds.reason(batch('c', '900'), cut)).toBeUndefined();

    holds.hold('gone-other', '50', 'gone hold', batch('gone-other', '50', '2025-01-01T00:00:00Z'));
    expect(holds.reason(batch('c', '900'), cut)).toMatch(/shard gone-other, which arrived no later.*\(gone hold\)/);
  });
});

describe('ShardLineage', () => {
  it('lists the stream once, and again only for a shard the last listing did not name', async () => {
    const stream = new SimulatedStream();
    const parent = stream.openShards[0]?.id ?? '';
    let describes = 0;
    const counted: StreamsApi = {
      send: ((command: Parameters<SimulatedStream['send']>[0]) => {
        // One listing, however many pages it takes.
        if (command instanceof DescribeStreamCommand && command.input.ExclusiveStartShardId === undefined) describes++;
        return stream.send(command as never);
      }) as StreamsApi['send'],
    };
    const shards = new ShardLineage(counted, retry);

    expect(await shards.load(stream.streamArn, parent)).toEqual({ status: 'listed' });
    expect(await shards.load(stream.streamArn, parent)).toEqual({ status: 'listed' });
    const listingsBefore = describes;
    stream.split(parent);
    const child = stream.openShards[0]?.id ?? '';
    await shards.load(stream.streamArn, child);
    await shards.load(stream.streamArn, child);

    expect(describes).toBe(listingsBefore + 1);
    expect(shards.ancestors(child)).toEqual([parent]);
    expect(shards.ancestry(stream.streamArn, child)).toMatchObject({ known: true, ancestors: [parent], complete: true });
  });

  it('a chain through a parent gone from the listing is not complete', async () => {
    const stream = new SimulatedStream();
    const root = stream.openShards[0]?.id ?? '';
    stream.split(root);
    const child = stream.openShards[0]?.id ?? '';
    stream.split(child);
    const grandchild = stream.shards.at(-1)?.id ?? '';
    stream.trim(root);
    const shards = new ShardLineage(stream, retry);
    await shards.load(stream.streamArn);

    expect(shards.ancestry(stream.streamArn, grandchild)).toMatchObject({ known: true, ancestors: [child, root], complete: false });
    expect(shards.ancestry(stream.streamArn, child)).toMatchObject({ complete: false });
  });

  it('tells a stream that is gone from one that could not be listed, and knows no lineage for either', async () => {
    const failing = (error: Error): StreamsApi => ({ send: (() => Promise.reject(error)) as StreamsApi['send'] });
    const gone = new ShardLineage(failing(new ResourceNotFoundException({ message: 'gone', $metadata: {} })), retry);
    const throttled = new ShardLineage(failing(new LimitExceededException({ message: 'slow down', $metadata: {} })), retry);

    expect(await gone.load(STREAM, 's1')).toMatchObject({ status: 'gone' });
    expect(await throttled.load(STREAM, 's1')).toMatchObject({ status: 'failed', reason: expect.stringContaining('slow down') });
    expect(gone.ancestry(STREAM, 's1')).toEqual({ known: false });
    expect(throttled.ancestry(STREAM, 's1')).toEqual({ known: false });
  });
});

describe('streamOrder', () => {
  const placed = (id: string, info: StreamBatchInfo) => ({ id, info });

  it('orders a shard by start sequence number as a number, then by id', () => {
    const ordered = streamOrder(
      [placed('c', batch('s', '1000')), placed('b', batch('s', '200')), placed('a2', batch('s', '200')), placed('a1', batch('s', '99'))],
      () => undefined,
    );

    expect(ordered.map((r) => r.id)).toEqual(['a1', 'a2', 'b', 'c']);
  });

  it('puts every ancestor with records before its descendants, whatever their arrival says', () => {
    const parents: Record<string, string> = { child: 'parent', grandchild: 'child' };
    const ordered = streamOrder(
      [
        placed('g', batch('grandchild', '1', '2025-01-01T00:00:00Z')),
        placed('c', batch('child', '1', '2025-01-01T00:00:01Z')),
        placed('o', batch('other', '1', '2025-01-01T00:00:02Z')),
        placed('p', batch('parent', '5', '2025-01-01T00:00:03Z')),
      ],
      (shardId) => parents[shardId],
    );

    expect(ordered.map((r) => r.id)).toEqual(['p', 'c', 'g', 'o']);
  });

  it('orders shards of no known relation by the arrival of their first record, an unreadable one last', () => {
    const ordered = streamOrder(
      [
        placed('x', batch('x', '1', 'unknown')),
        placed('late', batch('b', '1', '2025-01-01T00:00:20Z')),
        placed('early', batch('a', '1', '2025-01-01T00:00:10Z')),
      ],
      () => undefined,
    );

    expect(ordered.map((r) => r.id)).toEqual(['early', 'late', 'x']);
  });
});
