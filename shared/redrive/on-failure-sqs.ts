import type { SQSClient } from '@aws-sdk/client-sqs';
import type { StreamBatchInfo } from '../on-failure/batch-record.js';
import type { PublishBatchClient } from '../relay/types.js';
import { drainQueue } from './drain-queue.js';
import { RedriveStoppedError } from './errors.js';
import { KeptRepublished, trimmedReason } from './kept-records.js';
import type { RecordDeadLetter } from './on-failure-dead-letters.js';
import { parseRecord, publishAll, type ResolveOptions, resolveRecord, type TopicEvent } from './on-failure-events.js';
import type { BlockedAggregates } from './publish-events.js';
import { ShardHolds } from './shard-holds.js';
import { ShardLineage } from './shard-lineage.js';
import { streamOrder } from './shard-order.js';
import type { RedriveCommonOptions, RedriveProblem, RedriveSummary } from './types.js';

export interface QueueRedriveOptions extends RedriveCommonOptions, ResolveOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly sns: PublishBatchClient;
  readonly target: string;
}

/** A record planned for republishing: where it sits in the stream, and its events. */
interface Planned {
  readonly info: StreamBatchInfo;
  readonly events: TopicEvent[];
  readonly letters: RecordDeadLetter[];
  /** Which first records of the batch the stream trimmed: once the rest is republished, the record stays. */
  readonly trimmed: string | undefined;
}

/**
 * Redrives on-failure records from an SQS destination (coordinates only: the stream is read
 * again). A queue gives records in no set order, so the run receives the queue whole (up to
 * `maxMessages`), holding every message, before it publishes any, and then publishes them in
 * stream order; once a record's events cannot be republished, the records of its shard from
 * there on (and of its child shards) are held. When the stream's shards cannot be listed, its
 * records are skipped, as the S3 redrive does: without the lineage they cannot be put in stream order.
 */
export async function redriveFromQueue(options: QueueRedriveOptions): Promise<RedriveSummary> {
  const blocked: BlockedAggregates = new Map();
  /** Records that stay though events of theirs went out (in a dry run: would). */
  const kept = new KeptRepublished();
  const holds = new ShardHolds();
  const lineage = new ShardLineage(options.streams, options.retry);
  /** Why a record must wait behind one that was not republished, or `undefined`. */
  const heldBack = (info: StreamBatchInfo): string | undefined =>
    holds.size === 0 ? undefined : holds.reason(info, lineage.ancestry(info.streamArn, info.shardId));
  /** Records in stream order, by message id. */
  const ordered = (items: readonly { readonly messageId: string; readonly item: Planned }[]) =>
    streamOrder(
      items.map((i) => ({ id: i.messageId, info: i.item.info })),
      (shardId) => lineage.parentOf(shardId),
    );
  /** Records in stream order, each with why it must wait, if it must. */
  const inOrder = (items: readonly { readonly messageId: string; readonly item: Planned }[]) =>
    ordered(items).map(({ id, info }) => ({ id, held: heldBack(info) }));
  /** The summary with the count and the note of what went to the relay DLQ, when one was given. */
  const noted = (summary: RedriveSummary): RedriveSummary => {
    const { note, ...dead } = options.deadLetters?.summary(options.dryRun) ?? {};
    return { ...summary, ...dead, ...(note === undefined ? {} : { notes: [...(summary.notes ?? []), note] }) };
  };
  const run = drainQueue<Planned>({
    ...options,
    republishedKept: kept,
    order: (items) => {
      const byId = new Map(items.map((i) => [i.messageId, i]));
      return ordered(items).map(({ id }) => byId.get(id) as (typeof items)[number]);
    },
    plan: async (message) => {
      const parsed = parseRecord(message.Body ?? '');
      if (!parsed.ok) return { status: 'skip', reason: parsed.reason };
      const info = parsed.record.DDBStreamBatchInfo;
      // Loaded for every record (once per stream, again for a shard opened since): each receive is put in order by it.
      const listing = await lineage.load(info.streamArn, info.shardId);
      if (listing.status === 'failed') {
        const reason = `${listing.reason}; without it, records cannot be put in stream order`;
        return { status: listing.transient ? 'fail' : 'skip', reason };
      }
      const held = heldBack(info);
      if (held !== undefined) return { status: 'skip', reason: held };
      const resolved = await resolveRecord(parsed.record, options);
      if (resolved.status === 'events')
        return {
          status: 'republish',
          item: { info, events: resolved.events, letters: resolved.letters, trimmed: resolved.trimmed },
          units: resolved.events.length,
        };
      // Past the stream's retention: never readable again, so holding its shard would block it for ever.
      if (resolved.status !== 'expired')
        holds.hold(info.shardId, info.startSequenceNumber, `message ${message.MessageId}: ${resolved.reason}`, info);
      // A read that failed for a passing reason is failed, not skipped: a later run may move it.
      return { status: resolved.status === 'unknown' && resolved.transient === true ? 'fail' : 'skip', reason: resolved.reason };
    },
    republish: async (items) => {
      const succeeded: string[] = [];
      const failed: RedriveProblem[] = [];
      const skipped: RedriveProblem[] = [];
      let published = 0;
      const publishedOf = new Map<string, number>();
      const byId = new Map(items.map((i) => [i.messageId, i.item]));
      for (const { id, held } of inOrder(items)) {
        // A record planned before a hold was found on an earlier one must wait as well.
        if (held !== undefined) {
          skipped.push({ id, reason: held });
          continue;
        }
        const planned = byId.get(id) ?? { events: [], letters: [], trimmed: undefined };
        const result = await publishAll(options.sns, planned, blocked, options);
        // Events dead-lettered instead (SNS refused them for good) are not published: the summary counts them apart.
        published += result.published;
        if (result.problem !== undefined) {
          // A failed record whose first records were trimmed says so too: a later run republishes the rest again.
          const reason = planned.trimmed === undefined ? result.problem : trimmedReason(planned.trimmed, result, false);
          failed.push({ id, reason });
          kept.add('failed', result.published);
        }
        // Its trimmed part can never be read again: it stays, as an expired record does, and holds nothing back.
        else if (planned.trimmed !== undefined) {
          skipped.push({ id, reason: trimmedReason(planned.trimmed, result, false) });
          kept.add('trimmed', result.published);
        } else {
          succeeded.push(id);
          publishedOf.set(id, result.published);
        }
      }
      return { succeeded, failed, skipped, published, publishedOf };
    },
    // What republish would keep back, without publishing: a dry run counts it skipped, as the real run would,
    // and the events it would publish, those of a record whose first records the stream trimmed included.
    preview: (items) => {
      const byId = new Map(items.map((i) => [i.messageId, i.item]));
      const skipped: RedriveProblem[] = [];
      let published = 0;
      for (const { id, held } of inOrder(items)) {
        if (held !== undefined) {
          skipped.push({ id, reason: held });
          continue;
        }
        const item = byId.get(id);
        const events = item?.events.length ?? 0;
        published += events;
        if (item?.trimmed === undefined) continue;
        const would = { events, published: events, deadLettered: 0, letters: item.letters.length };
        skipped.push({ id, reason: trimmedReason(item.trimmed, would, true) });
        kept.add('trimmed', events);
      }
      return { skipped, published };
    },
  });
  return run.then(noted, (error: unknown) => {
    throw error instanceof RedriveStoppedError ? new RedriveStoppedError(noted(error.summary), error.cause) : error;
  });
}
