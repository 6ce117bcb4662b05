import {
  type _Record,
  DescribeStreamCommand,
  type DescribeStreamCommandOutput,
  type DynamoDBStreamsClient,
  GetShardIteratorCommand,
  LimitExceededException,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { SimulatedStream } from './simulated-stream.js';

/**
 * A stream of two root shards, one of which (P) split into A and A': order L's first commit in P,
 * its next two in A; order M's in the other root shard B, a branch of its own (M's id found by
 * trying ids on a twin stream, as routing is by key hash).
 */
export function splitWithSibling() {
  const build = (m: string) => {
    const stream = new SimulatedStream({ initialShards: 2 });
    const shardOf = (id: string | undefined) => stream.shardOfEvent.get(id ?? '') ?? '';
    const [l1] = stream.commit({ type: 'order', id: 'L' }, 1, 1);
    const parent = shardOf(l1);
    stream.split(parent);
    const [l2] = stream.commit({ type: 'order', id: 'L' }, 2, 1);
    const [l3] = stream.commit({ type: 'order', id: 'L' }, 3, 1);
    const [m1] = stream.commit({ type: 'order', id: m }, 1, 1);
    return { stream, parent, a: shardOf(l2), b: shardOf(m1), ids: { l1, l2, l3, m1 } };
  };
  for (let i = 0; i < 64; i++) {
    const built = build(`M${i}`);
    if (built.stream.shards.find((s) => s.id === built.b)?.parent === undefined) return built;
  }
  throw new Error('no aggregate id routes to the other root shard');
}

export type Split = ReturnType<typeof splitWithSibling>;

/** The `index`th record of a shard of the simulated stream. */
export const recordOf = (split: Split, shardId: string, index = 0): _Record =>
  split.stream.shards.find((s) => s.id === shardId)?.records[index] as _Record;

/**
 * The simulated stream as DynamoDB Streams answers the redrive: `AT_SEQUENCE_NUMBER` iterators
 * (TrimmedDataAccessException at a trimmed sequence number) and `TRIM_HORIZON` ones, `GetShardIterator` on `throttled`
 * always throttled and on `denied` always refused, and, with `listedBeforeSplit`, a first `DescribeStream` that answers as the
 * stream was before the split (the children not opened yet).
 */
export function streamsOf(split: Split, options: { throttled?: string; denied?: string; listedBeforeSplit?: boolean } = {}) {
  const { stream } = split;
  const calls = { describe: 0, iterators: [] as string[] };
  const client = {
    async send(command: unknown) {
      if (command instanceof DescribeStreamCommand) {
        calls.describe++;
        const answer = (await stream.send(command)) as DescribeStreamCommandOutput;
        if (!options.listedBeforeSplit || calls.describe > 1 || answer.StreamDescription === undefined) return answer;
        const shards = (answer.StreamDescription.Shards ?? []).filter((s) => s.ParentShardId === undefined);
        return { ...answer, StreamDescription: { ...answer.StreamDescription, Shards: shards, LastEvaluatedShardId: undefined } };
      }
      if (command instanceof GetShardIteratorCommand) {
        const { ShardId, SequenceNumber } = command.input;
        calls.iterators.push(`${ShardId}@${SequenceNumber ?? command.input.ShardIteratorType}`);
        if (ShardId === options.throttled) throw new LimitExceededException({ message: 'Rate exceeded for shard', $metadata: {} });
        if (ShardId === options.denied)
          throw Object.assign(new Error('not authorized to GetShardIterator'), { name: 'AccessDeniedException' });
        // From the oldest record left: the simulated stream gives it as it is.
        if (command.input.ShardIteratorType === 'TRIM_HORIZON') return stream.send(command);
        const shard = stream.shards.find((s) => s.id === ShardId);
        if (shard?.trimmedThrough !== undefined && BigInt(SequenceNumber ?? '0') <= shard.trimmedThrough) {
          throw new TrimmedDataAccessException({ message: `sequence ${SequenceNumber} was trimmed`, $metadata: {} });
        }
        const index = shard?.records.findIndex((r) => r.dynamodb?.SequenceNumber === SequenceNumber) ?? -1;
        const before = shard?.records[index - 1]?.dynamodb?.SequenceNumber;
        return stream.send(
          new GetShardIteratorCommand(
            index > 0
              ? { ...command.input, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: before }
              : { ...command.input, ShardIteratorType: 'TRIM_HORIZON', SequenceNumber: undefined },
          ),
        );
      }
      return stream.send(command as DescribeStreamCommand);
    },
  };
  return { streams: client as unknown as DynamoDBStreamsClient, calls };
}
