import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ARCHIVE_ROOT, ArchiveObjectError, archiveTypePrefix, parseArchiveObjectKey } from './layout.js';
import { archiveSegment } from './layout-segment.js';
import type { ReplayParameters } from './replay-options.js';
import type { CorruptArchiveEntry } from './replay-types.js';

/**
 * An (aggregate type, event type) pair the archive has objects of, by its key prefix: a name too
 * long for a key is shortened there (see `archiveSegment`), so the prefix, not the name, is listed.
 */
export interface TypePartition {
  /** `events/v1/aggregatetype=<a>/type=<t>/`. */
  readonly prefix: string;
  /** The UTC days (`YYYY-MM-DD`) it has objects of; absent: any day may have some. */
  readonly days?: ReadonlySet<string>;
}

/** Runs `work` on every item, at most `limit` at once; results in the items' order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Every page of a listing: the keys, or with `/` as delimiter the next segment's prefixes. */
async function listAll(s3: Pick<S3Client, 'send'>, bucket: string, prefix: string, delimited: boolean): Promise<string[]> {
  const found: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        ContinuationToken: token,
        ...(delimited ? { Delimiter: '/' } : {}),
      }),
    );
    if (delimited) for (const p of page.CommonPrefixes ?? []) p.Prefix !== undefined && found.push(p.Prefix);
    else for (const object of page.Contents ?? []) object.Key !== undefined && found.push(object.Key);
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return found;
}

/** The prefixes of the `<name>=<value>/` segments right under `prefix`, with their values as in the key. */
async function segmentPrefixes(
  s3: Pick<S3Client, 'send'>,
  bucket: string,
  prefix: string,
  name: string,
): Promise<{ readonly prefix: string; readonly value: string }[]> {
  const found: { prefix: string; value: string }[] = [];
  for (const listed of await listAll(s3, bucket, prefix, true)) {
    const segment = listed.slice(prefix.length, -1);
    if (!segment.startsWith(`${name}=`)) continue;
    const value = segment.slice(name.length + 1);
    try {
      decodeURIComponent(value);
    } catch {
      // Not written by the archiver (its names are URI-encoded): no partition of ours.
      continue;
    }
    found.push({ prefix: listed, value });
  }
  return found;
}

/**
 * The (aggregate type, event type) partitions a replay reads: the given aggregate type, or every
 * one the archive has (one delimited listing), under each the event types it has, kept when the
 * selection names them, and under each of those the days it has objects of. Only the days that
 * exist are listed further: a range of years over a sparse archive costs a listing per partition,
 * not one per partition and day.
 */
export async function typePartitions(
  s3: Pick<S3Client, 'send'>,
  parameters: Pick<ReplayParameters, 'bucket' | 'types' | 'aggregateType'>,
  concurrency: number,
): Promise<TypePartition[]> {
  const aggregatePrefixes =
    parameters.aggregateType !== undefined
      ? [archiveTypePrefix(parameters.aggregateType)]
      : (await segmentPrefixes(s3, parameters.bucket, ARCHIVE_ROOT, 'aggregatetype')).map((found) => found.prefix);
  // Compared as the keys write them: a shortened name matches only its own shortened form.
  const wanted = parameters.types === undefined ? undefined : new Set(parameters.types.map(archiveSegment));
  const perAggregate = await mapLimit(aggregatePrefixes, concurrency, async (aggregatePrefix) => {
    const types = await segmentPrefixes(s3, parameters.bucket, aggregatePrefix, 'type');
    return types.filter((type) => wanted === undefined || wanted.has(type.value)).map((type) => type.prefix);
  });
  return mapLimit(perAggregate.flat(), concurrency, async (prefix) => ({
    prefix,
    days: new Set((await segmentPrefixes(s3, parameters.bucket, prefix, 'date')).map((found) => found.value)),
  }));
}

/** The keys of one UTC day, per partition hour (`YYYY-MM-DDTHH`), and the keys not in the layout. */
export interface DayListing {
  readonly byHour: ReadonlyMap<string, readonly string[]>;
  readonly problems: readonly CorruptArchiveEntry[];
}

/**
 * Lists one UTC day (`YYYY-MM-DD`) of every partition, one paginated listing per partition, and
 * keeps the keys of the hours wanted. A day, not an hour, per listing: 24 times fewer requests for
 * a range of days; a day's keys are small beside its objects.
 */
export async function listDay(
  s3: Pick<S3Client, 'send'>,
  bucket: string,
  partitions: readonly TypePartition[],
  day: string,
  hours: ReadonlySet<string>,
  concurrency: number,
): Promise<DayListing> {
  const byHour = new Map<string, string[]>();
  const problems: CorruptArchiveEntry[] = [];
  const present = partitions.filter((p) => p.days === undefined || p.days.has(day));
  const listed = await mapLimit(present, concurrency, (p) => listAll(s3, bucket, `${p.prefix}date=${day}/`, false));
  for (const key of listed.flat()) {
    let hour: string;
    try {
      hour = parseArchiveObjectKey(key).partition.hour;
    } catch (error) {
      if (!(error instanceof ArchiveObjectError)) throw error;
      problems.push({ key, reason: error.message });
      continue;
    }
    if (!hours.has(hour)) continue;
    const keys = byHour.get(hour);
    if (keys === undefined) byHour.set(hour, [key]);
    else keys.push(key);
  }
  return { byHour, problems };
}

/** The UTC hours (`YYYY-MM-DDTHH`) that events of [fromMs, toMs) can sit in, in order. */
export function hoursOf(fromMs: number, toMs: number): string[] {
  const hours: string[] = [];
  const hourMs = 3_600_000;
  for (let at = Math.floor(fromMs / hourMs) * hourMs; at < toMs; at += hourMs) hours.push(new Date(at).toISOString().slice(0, 13));
  return hours;
}
