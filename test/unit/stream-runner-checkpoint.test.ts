import { type GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { type RelayEventSourceSettings, relayEventSourceSettings } from '../../shared/event-source.js';
import { laneIndex } from '../../shared/local/event-source/batch-lanes.js';
import { MemoryCheckpointStore } from '../../shared/local/event-source/checkpoints.js';
import { type StreamHandler, StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { toLambdaRecord } from '../../shared/on-failure/lambda-record.js';
import { SimulatedStream } from '../helpers/simulated-stream.js';

const config = defineConfig({ source: 'urn:test:checkpoint', topics: [{ name: 'orders' }], routes: { order: 'orders' } });

let runner: StreamRunner | undefined;
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
});

const idOf = (record: DynamoDBRecord) => record.dynamodb?.NewImage?.aggregateId?.S;

function streamOf(ids: readonly string[]): { stream: SimulatedStream; shardId: string; sequence: (id: string) => string } {
  const stream = new SimulatedStream();
  for (const id of ids) stream.commit({ type: 'order', id }, 1, 1);
  const shard = stream.shards[0]!;
  const sequence = (id: string) => {
    const record = shard.records.find((r) => toLambdaRecord(r, stream.streamArn).dynamodb?.NewImage?.aggregateId?.S === id);
    return record!.dynamodb!.SequenceNumber!;
  };
  return { stream, shardId: shard.id, sequence };
}

function start(
  stream: SimulatedStream,
  handler: StreamHandler,
  checkpoints: MemoryCheckpointStore,
  settings: Partial<RelayEventSourceSettings> = {},
  onError?: (error: unknown) => void,
): StreamRunner {
  runner = new StreamRunner({
    streams: stream,
    streamArn: stream.streamArn,
    settings: { ...relayEventSourceSettings(config), ...settings },
    handler,
    checkpoints,
    pollIntervalMs: 10,
    ...(onError === undefined ? {} : { onError }),
  });
  runner.start();
  return runner;
}

/** Runs the stream with a handler that keeps every record it is handed; errors the runner reports are kept too. */
function collect(stream: SimulatedStream, checkpoints = new MemoryCheckpointStore()): { seen: DynamoDBRecord[]; errors: unknown[] } {
  const seen: DynamoDBRecord[] = [];
  const errors: unknown[] = [];
  start(
    stream,
    async ({ Records }) => {
      seen.push(...Records);
      return { batchItemFailures: [] };
    },
    checkpoints,
    {},
    (error) => errors.push(error),
  );
  return { seen, errors };
}

describe('stream runner checkpoints', () => {
  it('keeps the last record done with, just before the first failed record after a partial failure', async () => {
    const { stream, shardId, sequence } = streamOf(['o1', 'o2', 'o3', 'o4']);
    const checkpoints = new MemoryCheckpointStore();
    const atRetry: (string | undefined)[] = [];
    let calls = 0;
    const handler: StreamHandler = async ({ Records }) => {
      calls++;
      if (calls === 1) return { batchItemFailures: [{ itemIdentifier: Records[2]!.dynamodb!.SequenceNumber! }] };
      atRetry.push(checkpoints.get(shardId));
      return { batchItemFailures: [] };
    };
    start(stream, handler, checkpoints);
    await expect.poll(() => calls, { timeout: 10_000 }).toBe(2);
    await runner!.idle();

    expect(atRetry).toEqual([sequence('o2')]);
    expect(checkpoints.get(shardId)).toBe(sequence('o4'));
  });

  it('resumes each shard after its checkpoint', async () => {
    const { stream, shardId, sequence } = streamOf(['o1', 'o2', 'o3', 'o4', 'o5']);
    const checkpoints = new MemoryCheckpointStore();
    checkpoints.set(shardId, sequence('o3'));
    const { seen } = collect(stream, checkpoints);
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(2);
    await runner!.idle();

    expect(seen.map(idOf)).toEqual(['o4', 'o5']);
    expect(checkpoints.get(shardId)).toBe(sequence('o5'));
  });

  it('moves the checkpoint past records filtered out, though the handler never sees them', async () => {
    const { stream, shardId, sequence } = streamOf(['o1', 'o2']);
    const checkpoints = new MemoryCheckpointStore();
    let calls = 0;
    start(
      stream,
      async () => {
        calls++;
        return { batchItemFailures: [] };
      },
      checkpoints,
      { filterPatterns: [{ eventName: ['REMOVE'] }] },
    );
    await runner!.idle();
    await expect.poll(() => checkpoints.get(shardId), { timeout: 10_000 }).toBe(sequence('o2'));
    expect(calls).toBe(0);
  });

  it('with several lanes, keeps the checkpoint before a record another lane has not done yet', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `o${i}`);
    const { stream, shardId, sequence } = streamOf(ids);
    const lanes = 2;
    const records = stream.shards[0]!.records.map((r) => toLambdaRecord(r, stream.streamArn));
    const heldLane = laneIndex(records[0]!, lanes);
    const otherLane = records.filter((r) => laneIndex(r, lanes) !== heldLane).map(idOf);
    expect(otherLane.length).toBeGreaterThan(0);
    const checkpoints = new MemoryCheckpointStore();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done: (string | undefined)[] = [];
    start(
      stream,
      async ({ Records }) => {
        if (laneIndex(Records[0]!, lanes) === heldLane) await held;
        done.push(...Records.map(idOf));
        return { batchItemFailures: [] };
      },
      checkpoints,
      { parallelizationFactor: lanes, batchSize: 100 },
    );
    // The other lane finishes everything while the first record's lane is still held: the
    // checkpoint cannot pass that record, the oldest not done.
    await expect.poll(() => done.length, { timeout: 10_000 }).toBe(otherLane.length);
    expect(checkpoints.get(shardId)).toBeUndefined();

    release();
    await expect.poll(() => done.length, { timeout: 10_000 }).toBe(ids.length);
    await expect.poll(() => checkpoints.get(shardId), { timeout: 10_000 }).toBe(sequence('o11'));
  });

  it('reads a shard from its oldest record kept when the records after its checkpoint were trimmed, and says so', async () => {
    const { stream, shardId, sequence } = streamOf(['o1', 'o2', 'o3', 'o4', 'o5']);
    const checkpoint = sequence('o1');
    const checkpoints = new MemoryCheckpointStore();
    checkpoints.set(shardId, checkpoint);
    stream.trimRecords(shardId, 3);
    const { seen, errors } = collect(stream, checkpoints);
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(2);
    await runner!.idle();

    expect(seen.map(idOf)).toEqual(['o4', 'o5']);
    expect(String(errors[0])).toContain(
      `shard ${shardId}: no records after sequence number ${checkpoint} (TrimmedDataAccessException); reading the shard from its oldest record kept (TRIM_HORIZON)`,
    );
    expect(checkpoints.get(shardId)).toBe(sequence('o5'));
  });

  it('forgets the checkpoint of a shard that has left the stream', async () => {
    const { stream, shardId } = streamOf(['o1']);
    const checkpoints = new MemoryCheckpointStore();
    checkpoints.set('shardId-gone', '100000000000');
    start(stream, async () => ({ batchItemFailures: [] }), checkpoints);
    await runner!.idle();

    expect([...checkpoints.shards.keys()]).toEqual([shardId]);
  });
});

describe('stream runner shards', () => {
  /** Makes `GetShardIterator` of `shardId` fail with ResourceNotFoundException, after `before(shardId)`, the first `times` times. */
  function iteratorNotFound(stream: SimulatedStream, shardId: string, times: number, before: () => void = () => {}): void {
    const send = stream.send.bind(stream);
    let left = times;
    stream.send = (async (command: Parameters<typeof send>[0]) => {
      if (command instanceof GetShardIteratorCommand && command.input.ShardId === shardId && left > 0) {
        left--;
        before();
        throw Object.assign(new Error(`Requested resource not found: Shard ${shardId}`), { name: 'ResourceNotFoundException' });
      }
      return send(command as GetRecordsCommand);
    }) as typeof stream.send;
  }

  it('keeps reading a shard GetShardIterator did not know for a moment while the stream still lists it', async () => {
    const { stream, shardId } = streamOf(['o1', 'o2', 'o3']);
    iteratorNotFound(stream, shardId, 2);
    const { seen, errors } = collect(stream);
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(3);

    expect(seen.map(idOf)).toEqual(['o1', 'o2', 'o3']);
    expect(errors.map((error) => (error as Error).name)).toEqual(['ResourceNotFoundException', 'ResourceNotFoundException']);
  });

  it('ends a shard that has left the stream when it was about to be read, and starts its children', async () => {
    const stream = new SimulatedStream();
    stream.commit({ type: 'order', id: 'parent' }, 1, 1);
    const parent = stream.shards[0]!.id;
    stream.split(parent);
    for (const id of ['c1', 'c2', 'c3', 'c4']) stream.commit({ type: 'order', id }, 1, 1);
    iteratorNotFound(stream, parent, 1, () => stream.trim(parent));
    const { seen, errors } = collect(stream);
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(4);

    expect(seen.map(idOf).sort()).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(errors).toEqual([]);
  });
});
