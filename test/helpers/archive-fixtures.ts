import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { archiveObjectKey, archivePartitionOf, archivePartitionPrefix, encodeArchiveObject } from '../../shared/archive/layout.js';
import { envelopeJson } from '../../shared/envelope.js';

/** One archived event of a fixture, with its envelope text. */
export interface HistoryEvent {
  readonly id: string;
  readonly type: string;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly epoch: string;
  readonly sequence: number;
  readonly time: string;
  readonly body: string;
}

/** A small seeded generator, so a failing history can be made again. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

export interface HistorySpec {
  readonly events: number;
  readonly aggregates: number;
  readonly types: readonly string[];
  readonly startMs: number;
  readonly spanMs: number;
  /** Consecutive events of an aggregate whose times are this far in the wrong order, at times. @default 0 */
  readonly skewMs?: number;
  readonly aggregateType?: string;
  readonly seed?: number;
}

/**
 * A history as the relay publishes it: each aggregate's events with sequences 1, 2, 3, … at
 * growing times spread over the span; with `skewMs`, one pair in ten has its times the other way
 * round by up to that much (two overlapping writes: the later one started first).
 */
export function aHistory(spec: HistorySpec): HistoryEvent[] {
  const random = seeded(spec.seed ?? 1);
  const aggregateType = spec.aggregateType ?? 'order';
  const perAggregate = Math.ceil(spec.events / spec.aggregates);
  const events: HistoryEvent[] = [];
  for (let a = 0; a < spec.aggregates && events.length < spec.events; a++) {
    const count = Math.min(perAggregate, spec.events - events.length);
    const times = Array.from({ length: count }, () => spec.startMs + Math.floor(random() * spec.spanMs)).sort((x, y) => x - y);
    if (spec.skewMs !== undefined) {
      for (let i = 0; i + 1 < count; i++) {
        if (random() < 0.1) times[i] = (times[i + 1] as number) + Math.floor(random() * spec.skewMs);
      }
    }
    const aggregateId = `${aggregateType.slice(0, 1)}-${a}`;
    const epoch = '2026-01-01T00:00:00.000Z';
    for (let i = 0; i < count; i++) {
      const id = `${aggregateId}-e${i + 1}`;
      const type = spec.types[Math.floor(random() * spec.types.length)] as string;
      const time = new Date(times[i] as number).toISOString();
      const body = envelopeJson(
        { source: 'urn:test', aggregateType, aggregateId, sequenceEpoch: epoch },
        { id, type, time, data: JSON.stringify({ n: i + 1 }) },
        i + 1,
      );
      events.push({ id, type, aggregateType, aggregateId, epoch, sequence: i + 1, time, body });
    }
  }
  return events;
}

/**
 * Puts a history into an archive bucket as the archiver lays it out: per partition, the events
 * spread over `objectsPerPartition` objects in no particular order, and `duplicateRatio` of them
 * written twice (a retried archiver batch).
 */
export async function putArchive(
  s3: S3Client,
  bucket: string,
  events: readonly HistoryEvent[],
  { objectsPerPartition = 3, duplicateRatio = 0, seed = 2 }: { objectsPerPartition?: number; duplicateRatio?: number; seed?: number } = {},
): Promise<string[]> {
  const random = seeded(seed);
  const partitions = new Map<string, { partition: NonNullable<ReturnType<typeof archivePartitionOf>>; lines: string[][] }>();
  for (const event of events) {
    const partition = archivePartitionOf({ aggregatetype: event.aggregateType, type: event.type, time: event.time });
    if (partition === undefined) throw new Error(`fixture event ${event.id} has no partition`);
    const prefix = archivePartitionPrefix(partition);
    let entry = partitions.get(prefix);
    if (entry === undefined) {
      entry = { partition, lines: Array.from({ length: objectsPerPartition }, () => []) };
      partitions.set(prefix, entry);
    }
    const copies = random() < duplicateRatio ? 2 : 1;
    for (let c = 0; c < copies; c++) entry.lines[Math.floor(random() * objectsPerPartition)]?.push(event.body);
  }
  const keys: string[] = [];
  for (const { partition, lines } of partitions.values()) {
    for (const [i, texts] of lines.entries()) {
      if (texts.length === 0) continue;
      const key = archiveObjectKey(partition, `part-${i}`);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: encodeArchiveObject(texts) }));
      keys.push(key);
    }
  }
  return keys;
}
