import {
  type _Record,
  DescribeStreamCommand,
  type DescribeStreamCommandOutput,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type GetShardIteratorCommandOutput,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { StreamsApi } from '../../shared/processor/stream-source.js';
import { SLOT_KIND, slotKey } from '../../shared/slot.js';

interface SimShard {
  readonly id: string;
  readonly parent?: string;
  readonly records: _Record[];
  closed: boolean;
  /** Where in the parent's hash range this shard sits: the bits chosen by splits so far. */
  readonly path: string;
  /** Left the stream (past its retention): no longer listed, read or given iterators. */
  gone: boolean;
  /** The newest sequence number trimmed from the start of the shard, if any. */
  trimmedThrough?: bigint;
}

export interface SimulatedStreamOptions {
  readonly initialShards?: number;
  /** Shards per DescribeStream page, so callers must follow LastEvaluatedShardId. @default 2 */
  readonly pageSize?: number;
  /** Share of GetRecords calls that fail with ExpiredIteratorException. @default 0 */
  readonly expiryRate?: number;
  /** Share of GetRecords calls that fail with TrimmedDataAccessException, as DynamoDB Local sometimes does. @default 0 */
  readonly trimmedRate?: number;
  readonly random?: () => number;
}

const hash = (key: string): number => {
  let h = 2166136261;
  for (const char of key) h = Math.imul(h ^ char.charCodeAt(0), 16777619) >>> 0;
  return h;
};

/**
 * An in-memory DynamoDB stream that splits shards, which DynamoDB Local never does. It answers
 * the same three Streams API commands as DynamoDB Local (with `DescribeStream` pagination,
 * iterators, `SHARD_END` on closed shards and expired iterators), so the processor runs on it
 * unchanged. It can also age data out as the 24-hour retention does: the oldest records of a
 * shard, or a whole closed shard. Items are routed by key hash: a split closes a shard and sends each item to one of
 * two children, so every item's records stay on one lineage, in order.
 */
export class SimulatedStream implements StreamsApi {
  readonly streamArn = 'arn:aws:dynamodb:us-east-1:000000000000:table/sim/stream/2025-01-01T00:00:00.000';
  readonly shards: SimShard[] = [];
  /** Event id → the shard its record went to. */
  readonly shardOfEvent = new Map<string, string>();
  private sequence = 100_000_000_000n;
  private shardCounter = 0;
  private readonly pageSize: number;
  private readonly expiryRate: number;
  private readonly trimmedRate: number;
  private readonly random: () => number;

  constructor(options: SimulatedStreamOptions = {}) {
    this.pageSize = options.pageSize ?? 2;
    this.expiryRate = options.expiryRate ?? 0;
    this.trimmedRate = options.trimmedRate ?? 0;
    this.random = options.random ?? Math.random;
    for (let i = 0; i < (options.initialShards ?? 1); i++) this.addShard(undefined, String(i));
  }

  get openShards(): SimShard[] {
    return this.shards.filter((shard) => !shard.closed);
  }

  /** Closes an open shard and opens two children that share its items. */
  split(shardId: string): void {
    const shard = this.shards.find((s) => s.id === shardId);
    if (shard === undefined || shard.closed) throw new Error(`cannot split ${shardId}: not an open shard`);
    shard.closed = true;
    this.addShard(shard.id, `${shard.path}0`);
    this.addShard(shard.id, `${shard.path}1`);
  }

  /**
   * Removes the oldest `count` records of a shard, as retention does: an iterator after one of
   * them fails with `TrimmedDataAccessException`. Before any reader has an iterator on the shard.
   */
  trimRecords(shardId: string, count: number): void {
    const shard = this.shardById(shardId);
    const trimmed = shard.records.splice(0, count);
    const newest = trimmed.at(-1)?.dynamodb?.SequenceNumber;
    if (newest !== undefined) shard.trimmedThrough = BigInt(newest);
  }

  /** Removes a closed shard from the stream, as retention does 24 hours after it closed. */
  trim(shardId: string): void {
    const shard = this.shardById(shardId);
    if (!shard.closed) throw new Error(`cannot trim ${shardId}: an open shard stays in the stream`);
    shard.gone = true;
  }

  /** Appends one commit of an outbox slot (event ids `<type>:<id>:<seq>`) to the item's open shard. */
  commit(aggregate: { type: string; id: string }, seq: number, events: number): string[] {
    const key = `${aggregate.type}#${aggregate.id}`;
    const shard = this.shardFor(key);
    const ids = Array.from({ length: events }, (_, i) => `${aggregate.type}:${aggregate.id}:${seq - events + 1 + i}`);
    const image = {
      ...slotKey(aggregate),
      kind: SLOT_KIND,
      aggregateType: aggregate.type,
      aggregateId: aggregate.id,
      source: 'urn:test:sim',
      seq,
      createdAt: '2025-01-01T00:00:00.000Z',
      expiresAt: 1_900_000_000,
      events: ids.map((id) => ({ id, type: `${aggregate.type}.changed`, time: '2025-01-01T00:00:00.000Z', data: '{}' })),
    };
    this.sequence += 10n;
    shard.records.push({
      eventID: `ev-${this.sequence}`,
      eventName: seq === events ? 'INSERT' : 'MODIFY',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      dynamodb: {
        ApproximateCreationDateTime: new Date(),
        Keys: marshall(slotKey(aggregate)),
        NewImage: marshall(image),
        SequenceNumber: String(this.sequence),
        SizeBytes: 200,
        StreamViewType: 'NEW_IMAGE',
      },
    });
    for (const id of ids) this.shardOfEvent.set(id, shard.id);
    return ids;
  }

  send(command: DescribeStreamCommand): Promise<DescribeStreamCommandOutput>;
  send(command: GetShardIteratorCommand): Promise<GetShardIteratorCommandOutput>;
  send(command: GetRecordsCommand): Promise<GetRecordsCommandOutput>;
  async send(command: DescribeStreamCommand | GetShardIteratorCommand | GetRecordsCommand): Promise<unknown> {
    await Promise.resolve();
    if (command instanceof DescribeStreamCommand) return this.describe(command.input.ExclusiveStartShardId);
    if (command instanceof GetShardIteratorCommand) return this.iterator(command.input);
    if (command instanceof GetRecordsCommand) return this.records(command.input.ShardIterator ?? '', command.input.Limit ?? 1000);
    throw new Error('unsupported command');
  }

  private addShard(parent: string | undefined, path: string): void {
    const id = `shardId-${String(++this.shardCounter).padStart(8, '0')}`;
    this.shards.push({ id, ...(parent === undefined ? {} : { parent }), records: [], closed: false, path, gone: false });
  }

  private shardById(shardId: string): SimShard {
    const shard = this.shards.find((s) => s.id === shardId);
    if (shard === undefined) throw new Error(`no shard ${shardId}`);
    return shard;
  }

  /** A shard the stream still has, or ResourceNotFoundException as DynamoDB Streams answers. */
  private listedShard(shardId: string | undefined): SimShard {
    const shard = this.shards.find((s) => s.id === shardId && !s.gone);
    if (shard === undefined) throw Object.assign(new Error(`no shard ${shardId}`), { name: 'ResourceNotFoundException' });
    return shard;
  }

  private shardFor(key: string): SimShard {
    const h = hash(key);
    const roots = this.shards.filter((s) => s.parent === undefined);
    let shard = roots[h % roots.length]!;
    for (let depth = 0; shard.closed; depth++) {
      const bit = (h >>> (depth % 32)) & 1;
      shard = this.shards.find((s) => s.parent === shard.id && s.path.endsWith(String(bit)))!;
    }
    return shard;
  }

  private describe(exclusiveStart: string | undefined): DescribeStreamCommandOutput {
    const listed = this.shards.filter((s) => !s.gone);
    // Shard ids sort in creation order: a page starts after the given id, listed or not.
    const start = exclusiveStart === undefined ? 0 : listed.filter((s) => s.id <= exclusiveStart).length;
    const page = listed.slice(start, start + this.pageSize);
    const more = start + this.pageSize < listed.length;
    return {
      $metadata: {},
      StreamDescription: {
        StreamArn: this.streamArn,
        StreamStatus: 'ENABLED',
        Shards: page.map((shard) => ({
          ShardId: shard.id,
          ...(shard.parent === undefined ? {} : { ParentShardId: shard.parent }),
          SequenceNumberRange: {
            StartingSequenceNumber: shard.records[0]?.dynamodb?.SequenceNumber ?? '0',
            ...(shard.closed ? { EndingSequenceNumber: shard.records.at(-1)?.dynamodb?.SequenceNumber ?? '0' } : {}),
          },
        })),
        ...(more ? { LastEvaluatedShardId: page.at(-1)!.id } : {}),
      },
    };
  }

  private iterator(input: GetShardIteratorCommand['input']): GetShardIteratorCommandOutput {
    const shard = this.listedShard(input.ShardId);
    let position = 0;
    if (input.ShardIteratorType === 'AFTER_SEQUENCE_NUMBER') {
      const index = shard.records.findIndex((r) => r.dynamodb?.SequenceNumber === input.SequenceNumber);
      if (index < 0 && shard.trimmedThrough !== undefined && BigInt(input.SequenceNumber ?? '0') <= shard.trimmedThrough) {
        throw new TrimmedDataAccessException({ message: `sequence ${input.SequenceNumber} was trimmed from ${shard.id}`, $metadata: {} });
      }
      if (index < 0) throw Object.assign(new Error(`sequence ${input.SequenceNumber} not in ${shard.id}`), { name: 'ValidationException' });
      position = index + 1;
    } else if (input.ShardIteratorType !== 'TRIM_HORIZON') {
      throw new Error(`unsupported iterator type ${input.ShardIteratorType}`);
    }
    return { $metadata: {}, ShardIterator: JSON.stringify({ shard: shard.id, position }) };
  }

  private records(iterator: string, limit: number): GetRecordsCommandOutput {
    const roll = this.random();
    if (roll < this.expiryRate) throw new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} });
    if (roll < this.expiryRate + this.trimmedRate) {
      throw new TrimmedDataAccessException({
        message: 'The operation attempted to read past the oldest stream record in a shard.',
        $metadata: {},
      });
    }
    const { shard: shardId, position } = JSON.parse(iterator) as { shard: string; position: number };
    const shard = this.listedShard(shardId);
    const records = shard.records.slice(position, position + limit);
    const next = position + records.length;
    const atEnd = shard.closed && next >= shard.records.length;
    return {
      $metadata: {},
      Records: records,
      ...(atEnd ? {} : { NextShardIterator: JSON.stringify({ shard: shard.id, position: next }) }),
    };
  }
}
