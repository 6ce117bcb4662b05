import {
  type _Record,
  type DescribeStreamCommand,
  type DescribeStreamCommandOutput,
  type GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordsTrimmedError } from '../../shared/processor/index.js';
import { syncShards } from '../../shared/processor/shard-sync.js';
import { StreamSource, type StreamsApi } from '../../shared/processor/stream-source.js';
import type { RelayResult } from '../../shared/relay/index.js';
import { coordinatesOf } from '../../shared/relay/stream-record.js';
import { CountingPublisher, openPublishers, sequenceOf } from '../helpers/counting-publisher.js';
import { MemoryLeaseStore } from '../helpers/memory-lease-store.js';
import { haltWorkers, recorder, worker } from '../helpers/processor-worker.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';
import { waitFor } from '../helpers/wait.js';

afterEach(async () => {
  openPublishers();
  await haltWorkers();
});

describe('data trimmed from the stream', () => {
  it('finishes an unfinished shard that left the stream, reporting its records lost, so its children start', async () => {
    const stream = new SimulatedStream();
    const root = stream.shards[0]!.id;
    stream.commit({ type: 'order', id: 'a' }, 1, 1);
    stream.split(root);
    const children = stream.openShards.map((s) => s.id);
    const later = [2, 3, 4].flatMap((seq) => stream.commit({ type: 'order', id: 'a' }, seq, 1));
    const leases = new MemoryLeaseStore();
    const source = new StreamSource(stream, stream.streamArn);
    // The processor had listed the shards, then was down for longer than the retention.
    await syncShards(source, leases);
    stream.trim(root);

    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    const w = worker({ source, leases, publisher, workerId: 'A', observer });
    await w.start();
    await waitFor(() => publisher.published.size === later.length, { what: "the children's records" });
    await waitFor(() => !leases.rows.has(root), { what: 'the finished lease of the trimmed shard to be removed' });
    expect(seen.trimmed).toEqual([{ shardId: root, checkpoint: 'TRIM_HORIZON', shardGone: true }]);
    expect(seen.errors).toHaveLength(1);
    expect(seen.errors[0]!.error).toBeInstanceOf(RecordsTrimmedError);
    expect(children.every((child) => leases.rows.has(child))).toBe(true);
  });

  it('does not give a shard up when only GetShardIterator says it is missing and the listing still has it', async () => {
    const stream = new SimulatedStream();
    const [id] = stream.commit({ type: 'order', id: 'a' }, 1, 1);
    let refused = 0;
    const streams = {
      send: async (command: DescribeStreamCommand | GetShardIteratorCommand | GetRecordsCommand) => {
        if (command instanceof GetShardIteratorCommand && refused++ === 0) {
          throw Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
        }
        return stream.send(command as GetRecordsCommand);
      },
    } as StreamsApi;
    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    const w = worker({
      source: new StreamSource(streams, stream.streamArn),
      leases: new MemoryLeaseStore(),
      publisher,
      workerId: 'A',
      observer,
    });
    await w.start();
    await waitFor(() => publisher.published.size === 1, { what: `${id} to be published` });
    expect(seen.trimmed).toEqual([]);
  });

  it('fails a shard listing that is incomplete instead of returning part of it', async () => {
    const streams = { send: async () => ({ $metadata: {} }) as DescribeStreamCommandOutput } as unknown as StreamsApi;
    await expect(new StreamSource(streams, 'arn:stream').listShards()).rejects.toThrow(
      /no stream description; the shard listing is incomplete/,
    );
  });

  it('reports records trimmed past the checkpoint before they were read, and reads on from the oldest left', async () => {
    const stream = new SimulatedStream();
    for (let seq = 1; seq <= 4; seq++) stream.commit({ type: 'order', id: 'a' }, seq, 1);
    const shard = stream.shards[0]!.id;
    const [firstRecord, , third, fourth] = stream.shards[0]!.records.map(sequenceOf) as [string, string, string, string];
    const leases = new MemoryLeaseStore();
    const source = new StreamSource(stream, stream.streamArn);
    await syncShards(source, leases);
    const taken = (await leases.take(leases.rows.get(shard)!, 'old'))!;
    await leases.release(await leases.checkpoint(taken, 'old', firstRecord), 'old');
    stream.trimRecords(shard, 2);

    const publisher = new CountingPublisher();
    const { seen, observer } = recorder();
    const w = worker({ source, leases, publisher, workerId: 'A', observer });
    await w.start();
    await waitFor(() => publisher.published.size === 2, { what: 'the records left' });
    expect([...publisher.published.keys()]).toEqual([third, fourth]);
    expect(seen.trimmed).toEqual([{ shardId: shard, checkpoint: firstRecord, shardGone: false }]);
    expect(seen.errors).toHaveLength(1);
    expect(seen.errors[0]!.message).toBe(`shard ${shard}: records were trimmed from the stream before they were read`);
    expect(seen.errors[0]!.error).toBeInstanceOf(RecordsTrimmedError);
  });

  it('reports a trim once, however often the first page after it fails and is read again from the checkpoint', async () => {
    const stream = new SimulatedStream();
    for (let seq = 1; seq <= 4; seq++) stream.commit({ type: 'order', id: 'a' }, seq, 1);
    const shard = stream.shards[0]!.id;
    const [firstRecord, , third, fourth] = stream.shards[0]!.records.map(sequenceOf) as [string, string, string, string];
    const leases = new MemoryLeaseStore();
    const source = new StreamSource(stream, stream.streamArn);
    await syncShards(source, leases);
    const taken = (await leases.take(leases.rows.get(shard)!, 'old'))!;
    await leases.release(await leases.checkpoint(taken, 'old', firstRecord), 'old');
    stream.trimRecords(shard, 2);
    /** Fails the whole page twice (SNS down, say), then publishes. */
    class FailingTwice extends CountingPublisher {
      attempts = 0;
      override async relay(records: readonly _Record[]): Promise<RelayResult> {
        if (++this.attempts > 2) return super.relay(records);
        const outcomes = records.map((record) => ({
          status: 'failed' as const,
          record: coordinatesOf(record),
          reason: 'PUBLISH_FAILED' as const,
          detail: 'SNS is down',
        }));
        return { outcomes, published: 0, retried: 0, deadLettered: 0, ignored: 0, failed: records.length };
      }
    }

    const publisher = new FailingTwice();
    const { seen, observer } = recorder();
    const w = worker({ source, leases, publisher, workerId: 'A', observer });
    await w.start();
    await waitFor(() => publisher.published.size === 2, { what: 'the records left' });
    expect(publisher.attempts).toBe(3);
    expect([...publisher.published.keys()]).toEqual([third, fourth]);
    // Found once: each retry reads again from the checkpoint past the retention, which is not a new trim.
    expect(seen.trimmed).toEqual([{ shardId: shard, checkpoint: firstRecord, shardGone: false }]);
    expect(seen.errors.filter(({ error }) => error instanceof RecordsTrimmedError)).toHaveLength(1);
  });
});
