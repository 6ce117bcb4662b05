import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { addEventTypeLags } from '../lag-by-event-type.js';
import type { RelayResult } from '../relay/index.js';
import type { RecordsTrimmedError } from './errors.js';
import type { GivenUpRecords } from './on-failure-writer.js';
import { monotonicNow } from './worker-clock.js';
import type { OnFailureReport, WorkerObserver } from './worker-observer.js';

/** Now − the record's `ApproximateCreationDateTime`, in ms. */
function lagOf(record: _Record | undefined): number | undefined {
  const created = record?.dynamodb?.ApproximateCreationDateTime;
  return created === undefined ? undefined : Math.max(0, Date.now() - new Date(created).getTime());
}

/** Records done with (see `BatchReport`); `declared` (the config's event types) bounds their lag per event type, measured only with them. */
export function reportBatch(
  observer: WorkerObserver | undefined,
  shardId: string,
  records: readonly _Record[],
  result: RelayResult,
  declared?: ReadonlySet<string>,
): void {
  // The page's oldest record: how long the backlog's head waited, not its tail.
  const lagMs = lagOf(records[0]);
  const lagByAggregateType: Record<string, number> = {};
  const lagByEventType: Record<string, Record<string, number>> = {};
  result.outcomes.forEach((outcome, i) => {
    // Only published records: an unrouted aggregate type is dead-lettered, so the routes bound the keys.
    if (outcome.status !== 'delivered' || outcome.published === 0) return;
    const type = records[i]?.dynamodb?.NewImage?.aggregateType?.S;
    const lag = lagOf(records[i]);
    if (type === undefined || type === '' || lag === undefined) return;
    lagByAggregateType[type] = Math.max(lagByAggregateType[type] ?? 0, lag);
    if (declared !== undefined) addEventTypeLags(lagByEventType, type, records[i]?.dynamodb?.NewImage, lag, declared);
  });
  observer?.batch?.({
    shardId,
    records: records.length,
    published: result.published,
    ignored: result.ignored,
    lagMs,
    lagByAggregateType,
    ...(declared === undefined ? {} : { lagByEventType }),
  });
}

/** A failed read or publish, which the shard retries. */
export function reportFailure(
  observer: WorkerObserver | undefined,
  shardId: string,
  error: unknown,
  stalled: { readonly unpublished: _Record } | { readonly readAt: number },
): void {
  observer?.error?.(`shard ${shardId}: read or publish failed; retrying`, error);
  // The lag keeps growing while a record fails to publish or the shard cannot be read, so it is
  // reported then too, not only once published.
  if ('unpublished' in stalled) observer?.publishFailed?.({ shardId, lagMs: lagOf(stalled.unpublished) });
  else observer?.readFailed?.({ shardId, lagMs: Math.max(0, monotonicNow() - stalled.readAt) });
}

/** A page whose publishing was cut off; `unpublished` is left to the next holder. */
export function reportCutOff(observer: WorkerObserver | undefined, shardId: string, reason: string, unpublished: readonly _Record[]): void {
  const oldest = unpublished[0];
  observer?.publishCutOff?.({
    shardId,
    reason,
    sequenceNumber: oldest?.dynamodb?.SequenceNumber,
    records: unpublished.length,
    lagMs: lagOf(oldest),
  });
}

/** Records trimmed from the stream before they were read. */
export function reportTrimmed(observer: WorkerObserver | undefined, error: RecordsTrimmedError): void {
  observer?.error?.(`shard ${error.shardId}: records were trimmed from the stream before they were read`, error);
  observer?.trimmed?.({ shardId: error.shardId, checkpoint: error.checkpoint, shardGone: error.shardGone });
}

function onFailureReport(given: GivenUpRecords): OnFailureReport {
  return {
    shardId: given.shardId,
    condition: given.condition,
    attempts: given.attempts,
    records: given.records.length,
    firstSequenceNumber: given.records[0]?.dynamodb?.SequenceNumber,
    lastSequenceNumber: given.records.at(-1)?.dynamodb?.SequenceNumber,
    lagMs: lagOf(given.records[0]),
  };
}

/** Records given up on, written to the on-failure destination under `key`. */
export function reportGivenUp(observer: WorkerObserver | undefined, given: GivenUpRecords, key: string): void {
  observer?.sentToOnFailure?.({ ...onFailureReport(given), key });
}

/** Writing records given up on failed; the shard retries the write and waits for it. */
export function reportOnFailureWriteFailed(observer: WorkerObserver | undefined, given: GivenUpRecords, error: unknown): void {
  observer?.onFailureWriteFailed?.({ ...onFailureReport(given), error });
}
