import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { BackoffOptions } from '../backoff.js';
import { isTransientReadError, retried } from '../read-retry.js';
import type { PublishBatchClient } from '../relay/types.js';
import { KeptRepublished, trimmedReason } from './kept-records.js';
import { parseRecord, publishAll, type ResolveOptions, resolveRecord } from './on-failure-events.js';
import type { BlockedAggregates } from './publish-events.js';
import { rateLimiter } from './rate-limit.js';
import { ShardHolds } from './shard-holds.js';
import { type LineageListing, ShardLineage } from './shard-lineage.js';
import { type PlacedRecord, streamOrder } from './shard-order.js';
import type { RedriveCommonOptions, RedriveProblem, RedriveSummary } from './types.js';

export interface S3RedriveOptions extends RedriveCommonOptions, ResolveOptions {
  readonly s3: S3Client;
  readonly bucket: string;
  readonly prefix: string | undefined;
  readonly sns: PublishBatchClient;
  readonly target: string;
}

/**
 * The key of an on-failure object names its shard: Lambda's `[prefix]aws/lambda/<mapping id>/<shard id>/YYYY/MM/DD/<time>-<uuid>`,
 * the stream processor's `[prefix]outbox-processor/<shard id>/YYYY/MM/DD/<time>-<uuid>`.
 */
const AWS_KEY = /(?:^|\/)(?:aws\/lambda\/[^/]+|outbox-processor)\/([^/]+)\/\d{4}\/\d{2}\/\d{2}\/[^/]+$/;

async function listKeys(s3: S3Client, bucket: string, prefix: string | undefined): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return keys;
}

/** The object's text, fetched with retries; a result, never thrown. */
async function fetchText(s3: S3Client, bucket: string, key: string, retry: BackoffOptions) {
  return retried(async () => {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await object.Body?.transformToString()) ?? '';
  }, retry);
}

/**
 * The object's on-failure record, or why not. `transient`: the object could not be fetched for a
 * passing reason still there after the retries, which a later run may get past.
 */
async function readRecord(options: S3RedriveOptions, key: string) {
  const text = await fetchText(options.s3, options.bucket, key, options.retry);
  if (text.ok) return { ...parseRecord(text.value), transient: false };
  return { ok: false as const, reason: `could not read the object: ${text.reason}`, transient: isTransientReadError(text.error) };
}

/** One entry of the run, in the order it is handled. */
type Step =
  | { readonly kind: 'placed'; readonly record: PlacedRecord }
  | { readonly kind: 'unplaced'; readonly problem: RedriveProblem; readonly transient: boolean };

/** What became of one record; `events` counts those published. */
type Outcome =
  | { readonly kind: 'moved'; readonly events: number }
  | { readonly kind: 'failed'; readonly reason: string; readonly events: number }
  /** `events`: of a record whose first records the stream trimmed, those of the rest, republished before it was kept. */
  | { readonly kind: 'skipped'; readonly reason: string; readonly events?: number }
  /** The caller's signal aborted before the record was published: it is left as it was, uncounted. */
  | { readonly kind: 'stopped' };

/**
 * Redrives on-failure records kept as S3 objects. Keys end in a random UUID, so their order says
 * nothing about the stream's: every object is read once for its batch info (the payloads are not
 * kept), the records are put in stream order (per shard by sequence number, parents before their
 * children), and only then each is read again and published in turn.
 */
export async function redriveFromS3(options: S3RedriveOptions): Promise<RedriveSummary> {
  const { s3, bucket, prefix } = options;
  const limiter = rateLimiter(options.ratePerSecond);
  const blocked: BlockedAggregates = new Map();
  const holds = new ShardHolds();
  const lineage = new ShardLineage(options.streams, options.retry);
  const keys = await listKeys(s3, bucket, prefix);

  // First pass: where each record sits in the stream.
  const unplaced: Step[] = [];
  const placed: PlacedRecord[] = [];
  for (const key of keys) {
    // An abort here leaves every record as it was; the loop below then ends the run at once.
    if (options.signal?.aborted === true) break;
    const parsed = await readRecord(options, key);
    if (parsed.ok) placed.push({ id: key, info: parsed.record.DDBStreamBatchInfo });
    else {
      // Its place in the stream is unknown; when its key names the shard, nothing of that shard goes ahead of it.
      const shardId = AWS_KEY.exec(key)?.[1];
      if (shardId !== undefined) holds.hold(shardId, undefined, `object ${key}: ${parsed.reason}`);
      unplaced.push({ kind: 'unplaced', problem: { id: key, reason: parsed.reason }, transient: parsed.transient });
    }
  }
  // Shards of one stream are put in order by their lineage; a stream met in one shard only needs none.
  const shardsOf = new Map<string, Set<string>>();
  for (const { info } of placed) shardsOf.set(info.streamArn, (shardsOf.get(info.streamArn) ?? new Set()).add(info.shardId));
  const listings = new Map<string, LineageListing>();
  for (const [streamArn, shards] of shardsOf) if (shards.size > 1) listings.set(streamArn, await lineage.load(streamArn));
  const steps: Step[] = [
    ...unplaced,
    ...streamOrder(placed, (shardId) => lineage.parentOf(shardId)).map((record) => ({ kind: 'placed' as const, record })),
  ];
  // A prefix of the stream order never takes a record without the ones before it.
  const todo = options.maxMessages === undefined ? steps : steps.slice(0, options.maxMessages);

  const notes = [...listings.values()].flatMap((l) =>
    l.status === 'gone' ? [`${l.reason}; its shards were put in order by the arrival of their first record`] : [],
  );

  /** One record, in its turn: held back, or read again, republished and deleted. */
  const handle = async ({ id: key, info }: PlacedRecord): Promise<Outcome> => {
    const listing = listings.get(info.streamArn);
    if (listing?.status === 'failed') {
      const reason = `${listing.reason}; without it, records cannot be put in stream order`;
      return listing.transient ? { kind: 'failed', reason, events: 0 } : { kind: 'skipped', reason };
    }
    // A hold reaches into child shards too, so their parents (or that they cannot be known) must be known by now.
    if (holds.size > 0) await lineage.load(info.streamArn, info.shardId);
    const heldBack = holds.reason(info, lineage.ancestry(info.streamArn, info.shardId));
    if (heldBack !== undefined) return { kind: 'skipped', reason: heldBack };
    const parsed = await readRecord(options, key);
    const resolved = parsed.ok
      ? await resolveRecord(parsed.record, options)
      : { status: 'unknown' as const, reason: parsed.reason, transient: parsed.transient };
    // Past the stream's retention without a payload: never readable again, so holding its shard would block it for ever.
    if (resolved.status === 'expired') return { kind: 'skipped', reason: resolved.reason };
    if (resolved.status !== 'events') {
      // Any event left behind here may be the earlier one of an aggregate in a later record.
      holds.hold(info.shardId, info.startSequenceNumber, `object ${key}: ${resolved.reason}`, info);
      // A read that failed for a passing reason is failed, not skipped: a later run may move it.
      return resolved.status === 'unknown' && resolved.transient === true
        ? { kind: 'failed', reason: resolved.reason, events: 0 }
        : { kind: 'skipped', reason: resolved.reason };
    }
    const events = resolved.events.length;
    const { trimmed } = resolved;
    if (options.dryRun) {
      if (trimmed === undefined) return { kind: 'moved', events };
      const would = { events, published: events, deadLettered: 0, letters: resolved.letters.length };
      return { kind: 'skipped', reason: trimmedReason(trimmed, would, true), events };
    }
    if (!(await limiter.take(events, options.signal))) return { kind: 'stopped' };
    const outcome = await publishAll(options.sns, resolved, blocked, options);
    const { published, problem } = outcome;
    // A failed record whose first records were trimmed says so too: a later run republishes the rest again.
    if (problem !== undefined)
      return { kind: 'failed', reason: trimmed === undefined ? problem : trimmedReason(trimmed, outcome, false), events: published };
    // Its trimmed part can never be read again: it stays, as an expired record does, and holds nothing back.
    if (trimmed !== undefined) return { kind: 'skipped', reason: trimmedReason(trimmed, outcome, false), events: published };
    // Published but still there: a later run publishes it again, which the event ids make harmless.
    const deleted = await retried(() => s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })), options.retry);
    // Events dead-lettered instead (SNS refused them for good) are not published: the summary counts them apart.
    return deleted.ok
      ? { kind: 'moved', events: published }
      : { kind: 'failed', reason: `republished, but not deleted from the source (${deleted.reason})`, events: published };
  };

  const failed: RedriveProblem[] = [];
  const skipped: RedriveProblem[] = [];
  const kept = new KeptRepublished();
  let moved = 0;
  let republished = 0;
  let processed = 0;
  let stopped = false;
  for (const step of todo) {
    if (options.signal?.aborted === true) {
      stopped = true;
      break;
    }
    const outcome: Outcome =
      step.kind === 'placed'
        ? await handle(step.record)
        : step.transient
          ? { kind: 'failed', reason: step.problem.reason, events: 0 }
          : { kind: 'skipped', reason: step.problem.reason };
    const id = step.kind === 'unplaced' ? step.problem.id : step.record.id;
    if (outcome.kind === 'stopped') {
      stopped = true;
      break;
    }
    processed++;
    // A record that stays after events of it went out (its first records trimmed, or some events failed) is told apart.
    if (outcome.kind === 'skipped') {
      skipped.push({ id, reason: outcome.reason });
      kept.add('trimmed', outcome.events ?? 0);
    } else if (outcome.kind === 'failed') {
      failed.push({ id, reason: outcome.reason });
      kept.add('failed', outcome.events);
    } else moved++;
    republished += outcome.events ?? 0;
    options.onProgress?.({ processed, total: keys.length, moved, failed: failed.length, skipped: skipped.length });
  }
  // The count after is for the reader only: when it cannot be had, the run still reports what it did.
  const after = await listKeys(s3, bucket, prefix).then(
    (left) => left.length,
    () => undefined,
  );
  const { note: dead, ...deadLettered } = options.deadLetters?.summary(options.dryRun) ?? {};
  return {
    status: stopped ? 'interrupted' : options.dryRun ? 'dry-run' : 'completed',
    dryRun: options.dryRun === true,
    source: `s3://${bucket}/${prefix ?? ''}`,
    target: options.target,
    before: keys.length,
    after,
    processed,
    moved,
    republished,
    ...kept.summary(),
    ...deadLettered,
    failed,
    skipped,
    ...(notes.length > 0 || dead !== undefined ? { notes: [...notes, ...(dead === undefined ? [] : [dead])] } : {}),
  };
}
