import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, it } from 'vitest';
import type { StreamBatchInfo } from '../../shared/on-failure/batch-record.js';
import { StreamRangeIncompleteError } from '../../shared/redrive/errors.js';
import { readRangeLeft } from '../../shared/redrive/stream-reader.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

/** One shard with order A's commits 1 to `count`, a record each. */
function shardOf(count: number) {
  const stream = new SimulatedStream();
  for (let seq = 1; seq <= count; seq++) stream.commit({ type: 'order', id: 'A' }, seq, 1);
  const shard = stream.shards[0]!;
  const sequences = shard.records.map((r) => r.dynamodb?.SequenceNumber ?? '');
  return { stream, shard, sequences, streams: stream as unknown as DynamoDBStreamsClient };
}

const batch = (stream: SimulatedStream, shardId: string, start: string, end: string): StreamBatchInfo => ({
  shardId,
  streamArn: stream.streamArn,
  startSequenceNumber: start,
  endSequenceNumber: end,
  approximateArrivalOfFirstRecord: '2025-01-01T00:00:00.000Z',
  approximateArrivalOfLastRecord: '2025-01-01T00:00:00.000Z',
  batchSize: 2,
});

const sequencesOf = (records: readonly Pick<_Record, 'dynamodb'>[]) => records.map((r) => r.dynamodb?.SequenceNumber);

describe('readRangeLeft: what a shard still holds of a batch, read from the oldest record left', () => {
  it('passes over the older records before the batch; a start still there is no trimmed part', async () => {
    const { stream, shard, sequences, streams } = shardOf(1200);
    const [start, end] = [sequences[1100]!, sequences[1101]!];

    const left = await readRangeLeft(streams, batch(stream, shard.id, start, end));

    expect(sequencesOf(left.records)).toEqual([start, end]);
    expect(left.firstLeft).toBeUndefined();
  });

  it('gives the records after the trimmed start, and the first of them', async () => {
    const { stream, shard, sequences, streams } = shardOf(4);
    stream.trimRecords(shard.id, 2);

    const left = await readRangeLeft(streams, batch(stream, shard.id, sequences[1]!, sequences[2]!));

    expect(sequencesOf(left.records)).toEqual([sequences[2]]);
    expect(left.firstLeft).toBe(sequences[2]);
  });

  it('finds no records when the batch end was trimmed too', async () => {
    const { stream, shard, sequences, streams } = shardOf(4);
    stream.trimRecords(shard.id, 3);

    const left = await readRangeLeft(streams, batch(stream, shard.id, sequences[1]!, sequences[2]!));

    expect(left).toEqual({ records: [] });
  });

  it('throws StreamRangeIncompleteError when a closed shard ends before the batch does', async () => {
    const { stream, shard, sequences, streams } = shardOf(3);
    stream.split(shard.id);
    stream.trimRecords(shard.id, 1);
    const pastEnd = (BigInt(sequences[2]!) + 5n).toString();

    await expect(readRangeLeft(streams, batch(stream, shard.id, sequences[0]!, pastEnd))).rejects.toThrow(StreamRangeIncompleteError);
  });

  it('says the read started at the oldest record left, not at the trimmed batch start', async () => {
    const { stream, shard, sequences, streams } = shardOf(3);
    stream.split(shard.id);
    stream.trimRecords(shard.id, 1);
    const pastEnd = (BigInt(sequences[2]!) + 5n).toString();

    const error = await readRangeLeft(streams, batch(stream, shard.id, sequences[0]!, pastEnd)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StreamRangeIncompleteError);
    expect((error as Error).message).toBe(
      `read shard ${shard.id} from the oldest record left (${sequences[1]}) up to ${sequences[2]}, but the batch ends at ${pastEnd}: the shard is closed and has no more records`,
    );
  });

  it('lets ResourceNotFoundException through when the shard is gone', async () => {
    const { stream, shard, sequences, streams } = shardOf(2);
    stream.split(shard.id);
    stream.trim(shard.id);

    await expect(readRangeLeft(streams, batch(stream, shard.id, sequences[0]!, sequences[1]!))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});
