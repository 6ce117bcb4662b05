import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { errorName } from '../aws/error-name.js';
import { REDRIVE_READ_RETRY, retried } from '../read-retry.js';
import { describeError } from '../relay/failure-kind.js';
import { ArchiveObjectError } from './layout.js';
import { type ArchivedEvent, archiveObjectEvents } from './reader-decode.js';
import { mapLimit } from './reader-list.js';
import type { CorruptArchiveEntry } from './replay-types.js';

/** Which archived events a replay keeps. */
export interface EventFilter {
  readonly fromMs: number;
  readonly toMs: number;
  readonly types?: ReadonlySet<string> | undefined;
  readonly aggregateType?: string | undefined;
  readonly aggregateId?: string | undefined;
}

/**
 * Whether an event is selected: its own `time` within [from, to) (the partition hour only narrows
 * the listing), its type, aggregate type and `subject`.
 */
export const selects = (filter: EventFilter, event: ArchivedEvent): boolean =>
  event.timeMs >= filter.fromMs &&
  event.timeMs < filter.toMs &&
  (filter.types === undefined || filter.types.has(event.type)) &&
  (filter.aggregateType === undefined || filter.aggregateType === event.aggregateType) &&
  (filter.aggregateId === undefined || filter.aggregateId === event.aggregateId);

/** What the objects of one hour gave. */
export interface ObjectsRead {
  /** Selected events, each id once. */
  readonly events: ArchivedEvent[];
  readonly problems: CorruptArchiveEntry[];
  readonly duplicates: number;
}

/** An S3 error that says the object is gone (a lifecycle rule removed it after the listing): reported, not fatal. */
const isGone = (error: unknown): boolean => ['NoSuchKey', 'NotFound'].includes(errorName(error));

/**
 * Reads archive objects (at most `concurrency` at once), keeps the selected envelopes and drops
 * an id already in `seen` (the archive is at-least-once; a repeat sits in the same partition hour,
 * its `time` being the same). An object that is not gzip, a line that is not an envelope, or an
 * object gone since the listing is a problem naming its key; the run goes on. A read that keeps
 * failing otherwise (access denied, throttled past the retries) throws: skipping it would miss
 * events without a word.
 */
export async function readObjects(
  s3: Pick<S3Client, 'send'>,
  bucket: string,
  keys: readonly string[],
  filter: EventFilter,
  seen: Set<string>,
  concurrency: number,
): Promise<ObjectsRead> {
  const bodies = await mapLimit(keys, concurrency, async (key) => {
    const read = await retried(async () => {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return (await object.Body?.transformToByteArray()) ?? new Uint8Array();
    }, REDRIVE_READ_RETRY);
    if (read.ok) return { key, body: read.value };
    if (isGone(read.error)) return { key, problem: `gone since it was listed: ${describeError(read.error)}` };
    throw new Error(`reading archive object ${JSON.stringify(key)} from bucket ${bucket} failed: ${read.reason}`, { cause: read.error });
  });
  const events: ArchivedEvent[] = [];
  const problems: CorruptArchiveEntry[] = [];
  let duplicates = 0;
  for (const read of bodies) {
    if (read.body === undefined) {
      problems.push({ key: read.key, reason: read.problem });
      continue;
    }
    let decoded: ReturnType<typeof archiveObjectEvents>;
    try {
      decoded = archiveObjectEvents(read.key, read.body);
    } catch (error) {
      if (!(error instanceof ArchiveObjectError)) throw error;
      problems.push({ key: read.key, reason: error.message });
      continue;
    }
    problems.push(...decoded.problems);
    for (const event of decoded.events) {
      if (!selects(filter, event)) continue;
      if (seen.has(event.id)) {
        duplicates++;
        continue;
      }
      seen.add(event.id);
      events.push(event);
    }
  }
  return { events, problems, duplicates };
}
