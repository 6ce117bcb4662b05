import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { rateLimiter } from '../rate-limit.js';
import {
  CheckpointWriter,
  checkpointState,
  type LoadedCheckpoint,
  parameterDifferences,
  positionOf,
  readCheckpoint,
} from './checkpoint.js';
import { type EventFilter, readObjects } from './reader.js';
import type { ArchivedEvent } from './reader-decode.js';
import { type DayListing, hoursOf, listDay, typePartitions } from './reader-list.js';
import { ReplayCheckpointError, ReplayOptionsError, ReplayStoppedError } from './replay-errors.js';
import { describeSelection, planReplay, type ReplayPlan } from './replay-options.js';
import { afterPositions, aggregateKeyOf, comparePositions, splitWindow } from './replay-order.js';
import { SendHaltedError, sendWindow, withoutRefused } from './replay-send.js';
import type { CorruptArchiveEntry, RefusedEvent, ReplayArchiveOptions, ReplaySummary } from './replay-types.js';

const HOUR_MS = 3_600_000;

/** The counts of a run, kept as it goes. */
class Tally {
  objectsRead = 0;
  sent = 0;
  duplicates = 0;
  retried = 0;
  readonly sentByType: Record<string, number> = {};
  readonly corrupt: CorruptArchiveEntry[] = [];
  readonly refused: RefusedEvent[] = [];
  /** Per aggregate the queue refused an event of, that event's id: its later events are held back too. */
  readonly refusedAggregates = new Map<string, string>();

  count(events: readonly ArchivedEvent[]): void {
    this.sent += events.length;
    for (const event of events) this.sentByType[event.type] = (this.sentByType[event.type] ?? 0) + 1;
  }
}

interface Run {
  readonly options: ReplayArchiveOptions;
  readonly plan: ReplayPlan;
  readonly replayId: string;
  readonly toMs: number;
  readonly hours: readonly string[];
  readonly tally: Tally;
  readonly filter: EventFilter;
  readonly checkpointPath: string | undefined;
  readonly resumedFrom: string | undefined;
}

function summaryOf(run: Run, status: ReplaySummary['status'], notes: string[] = []): ReplaySummary {
  const { tally, plan } = run;
  return {
    replayId: run.replayId,
    status,
    dryRun: run.options.dryRun === true,
    bucket: plan.parameters.bucket,
    queueUrl: plan.parameters.queueUrl,
    from: plan.parameters.from,
    to: new Date(run.toMs).toISOString(),
    filter: describeSelection(plan.parameters),
    ...(run.resumedFrom === undefined ? {} : { resumedFrom: run.resumedFrom }),
    objectsRead: tally.objectsRead,
    sent: tally.sent,
    sentByType: { ...tally.sentByType },
    duplicates: tally.duplicates,
    corrupt: [...tally.corrupt],
    refused: [...tally.refused],
    retried: tally.retried,
    ...(run.checkpointPath === undefined ? {} : { checkpointPath: run.checkpointPath }),
    ...(notes.length === 0 ? {} : { notes }),
  };
}

/** The checkpoint of a run that goes on, refused when it belongs to another selection. */
function resumable(path: string | undefined, plan: ReplayPlan, restart: boolean): LoadedCheckpoint | undefined {
  if (path === undefined || restart) return undefined;
  const loaded = readCheckpoint(path);
  if (loaded === undefined) return undefined;
  const differences = parameterDifferences(loaded.state.parameters, plan.parameters);
  if (differences.length > 0) {
    throw new ReplayCheckpointError(
      'REPLAY_CHECKPOINT_MISMATCH',
      path,
      `replay checkpoint ${path} is of another replay (${differences.join('; ')}); allowed: the same selection to go on, another --checkpoint file, or --restart to replace it`,
      differences,
    );
  }
  return loaded;
}

/** Keys of the given hours, listed a day at a time; the day's listing is kept for the next hour. */
class HourKeys {
  #day: string | undefined;
  #listing: DayListing | undefined;

  constructor(
    private readonly run: Run,
    private readonly partitions: Parameters<typeof listDay>[2],
  ) {}

  async keys(hour: string, hoursWanted: readonly string[]): Promise<readonly string[]> {
    const day = hour.slice(0, 10);
    if (day !== this.#day || this.#listing === undefined) {
      const { options, plan } = this.run;
      const wanted = new Set(hoursWanted.filter((h) => h.startsWith(day)));
      this.#listing = await listDay(options.s3, plan.parameters.bucket, this.partitions, day, wanted, plan.readConcurrency);
      this.#day = day;
      this.run.tally.corrupt.push(...this.#listing.problems);
    }
    return this.#listing.byHour.get(hour) ?? [];
  }
}

/** The events a stopped run had held back for its next hour, read again from the hours they sit in. */
async function carriedAgain(run: Run, loaded: LoadedCheckpoint, partitions: Parameters<typeof listDay>[2]): Promise<ArchivedEvent[]> {
  if (loaded.state.carry.length === 0) return [];
  const from = new Map(loaded.state.carry.map(([type, id, epoch, sequence]) => [aggregateKeyOf(type, id), { epoch, sequence }]));
  const hours = [...loaded.state.carryHours].sort();
  const lister = new HourKeys({ ...run, tally: new Tally() }, partitions);
  const events: ArchivedEvent[] = [];
  const seen = new Set<string>();
  for (const hour of hours) {
    const keys = await lister.keys(hour, hours);
    const read = await readObjects(run.options.s3, run.plan.parameters.bucket, keys, run.filter, seen, run.plan.readConcurrency);
    for (const event of read.events) {
      const first = from.get(aggregateKeyOf(event.aggregateType, event.aggregateId));
      if (first !== undefined && comparePositions(event, first) >= 0) events.push(event);
    }
  }
  return events;
}

/**
 * Replays archived events to one SQS queue: lists the archive's partitions for the selection
 * (time range, event types, aggregate type, aggregate), reads them hour by hour, drops repeats
 * and what the selection leaves out, and sends each envelope unchanged, with the relay's `type`
 * and `aggregatetype` attributes and `outbox-replay` = the replay's id. Each aggregate's events go
 * in sequence order, one request at a time per aggregate (on a FIFO queue in the relay's message
 * group, deduplicated by event id). A corrupt object or line is reported and skipped; an event the
 * queue refuses for good is reported with the later events of its aggregate, which are held back.
 * With `checkpointPath`, a stopped run started again with the same selection goes on where it
 * stopped. The other subscribers of the topics see nothing.
 *
 * @throws {ReplayOptionsError} an option is invalid (nothing read)
 * @throws {ReplayCheckpointError} the checkpoint is of another selection, or unreadable (nothing sent)
 * @throws {ReplayStoppedError} the queue or the archive failed for good mid-run; its `summary` counts what went
 *
 * @example
 * ```ts
 * import { replayArchive, formatReplaySummary } from 'dynamodb-outbox/redrive';
 *
 * const summary = await replayArchive({
 *   s3: new S3Client({}), sqs: new SQSClient({}),
 *   bucket: 'orders-outbox-archive', from: '2026-03-01', types: ['order.placed'],
 *   queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/billing-backfill.fifo',
 *   checkpointPath: 'billing-backfill.checkpoint',
 * });
 * console.log(formatReplaySummary(summary));
 * ```
 */
export async function replayArchive(options: ReplayArchiveOptions): Promise<ReplaySummary> {
  const plan = planReplay(options);
  const dryRun = options.dryRun === true;
  // A dry run changes nothing, its checkpoint included.
  const checkpointPath = dryRun || options.checkpointPath === undefined ? undefined : resolve(options.checkpointPath);
  const loaded = resumable(checkpointPath, plan, options.restart === true);
  const toMs = loaded !== undefined ? Date.parse(loaded.state.to) : (plan.toMs ?? Date.now());
  if (toMs <= plan.fromMs) {
    throw new ReplayOptionsError(
      'from',
      `got ${plan.parameters.from}, which is not before the end ${new Date(toMs).toISOString()}; allowed: an instant before to (or before now, without to)`,
    );
  }
  const hours = hoursOf(plan.fromMs, toMs);
  const run: Run = {
    options,
    plan,
    replayId: loaded?.state.replayId ?? randomUUID(),
    toMs,
    hours,
    tally: new Tally(),
    filter: {
      fromMs: plan.fromMs,
      toMs,
      types: plan.parameters.types === undefined ? undefined : new Set(plan.parameters.types),
      aggregateType: plan.parameters.aggregateType,
      aggregateId: plan.parameters.aggregate?.id,
    },
    checkpointPath,
    resumedFrom: loaded?.state.nextHour ?? undefined,
  };
  for (const [type, id, eventId] of loaded?.state.refused ?? []) run.tally.refusedAggregates.set(aggregateKeyOf(type, id), eventId);
  if (loaded !== undefined && loaded.state.nextHour === null) {
    return summaryOf(run, 'completed', [
      `the checkpoint ${checkpointPath} says this replay completed (${loaded.state.updatedAt}); nothing was sent (--restart sends it all again)`,
    ]);
  }
  const start = loaded === undefined ? 0 : hours.indexOf(loaded.state.nextHour as string);
  if (start === -1)
    throw new ReplayCheckpointError(
      'REPLAY_CHECKPOINT_UNREADABLE',
      checkpointPath as string,
      `replay checkpoint ${checkpointPath} names hour ${loaded?.state.nextHour}, outside the range; allowed: a checkpoint of this replay (or --restart)`,
    );
  const writer = checkpointPath === undefined ? undefined : new CheckpointWriter(checkpointPath);
  const replay = { replayId: run.replayId, parameters: plan.parameters, to: new Date(toMs).toISOString() };
  const state = (nextHour: string | null, carry: readonly ArchivedEvent[][]) =>
    checkpointState(replay, nextHour, carry, run.tally.refusedAggregates);
  writer?.start(loaded === undefined ? state(hours[0] as string, []) : loaded.state);
  try {
    writer?.sent([...(loaded?.sent ?? [])].map(([key, p]) => [...(JSON.parse(key) as [string, string]), p.epoch, p.sequence] as const));
    const partitions = await typePartitions(options.s3, plan.parameters, plan.readConcurrency);
    let carried = loaded === undefined ? [] : await carriedAgain(run, loaded, partitions);
    const lister = new HourKeys(run, partitions);
    const limiter = rateLimiter(plan.ratePerSecond);
    const progress = (hour: string, hoursDone: number) =>
      options.onProgress?.({
        hour,
        hoursDone,
        hours: hours.length,
        sent: run.tally.sent,
        duplicates: run.tally.duplicates,
        corrupt: run.tally.corrupt.length,
        refused: run.tally.refused.length,
      });
    // The next hour is read while this one is sent: two hours in memory, the queue never waits for S3.
    const readHour = async (hour: string) => {
      const keys = await lister.keys(hour, hours);
      return { keys, read: await readObjects(options.s3, plan.parameters.bucket, keys, run.filter, new Set(), plan.readConcurrency) };
    };
    let reading: ReturnType<typeof readHour> | undefined = readHour(hours[start] as string);
    for (let i = start; i < hours.length; i++) {
      const { keys, read } = await (reading as ReturnType<typeof readHour>);
      reading = i + 1 < hours.length ? readHour(hours[i + 1] as string) : undefined;
      // A run that stops here leaves the next hour unread: its failure is no one's to report.
      reading?.catch(() => {});
      if (options.signal?.aborted === true) return summaryOf(run, 'interrupted');
      const hour = hours[i] as string;
      run.tally.objectsRead += keys.length;
      run.tally.duplicates += read.duplicates;
      run.tally.corrupt.push(...read.problems);
      // An event carried from the hour before is in that hour's objects, not this one's; an id seen twice is counted all the same.
      const carriedIds = new Set(carried.map((event) => event.id));
      const fresh = read.events.filter((event) => !carriedIds.has(event.id));
      run.tally.duplicates += read.events.length - fresh.length;
      let events = carried.concat(fresh);
      if (i === start && loaded !== undefined) events = afterPositions(events, loaded.sent);
      const last = i === hours.length - 1;
      const split = splitWindow(events, last ? undefined : Date.parse(`${hour}:00:00.000Z`) + HOUR_MS - plan.holdBackMs);
      run.tally.refused.push(...withoutRefused(split.send, run.tally.refusedAggregates));
      if (dryRun) run.tally.count([...split.send.values()].flat());
      else {
        const target = {
          sqs: options.sqs,
          queueUrl: plan.parameters.queueUrl,
          fifo: plan.fifo,
          replayId: run.replayId,
          concurrency: plan.concurrency,
          limiter,
          signal: options.signal,
        };
        let sent: Awaited<ReturnType<typeof sendWindow>>;
        try {
          sent = await sendWindow(target, split.send, (acknowledged) => {
            run.tally.count(acknowledged);
            writer?.sent(acknowledged.map(positionOf));
            progress(hour, i);
          });
        } catch (error) {
          if (!(error instanceof SendHaltedError)) throw error;
          throw new ReplayStoppedError(summaryOf(run, 'interrupted'), error);
        }
        run.tally.refused.push(...sent.refused);
        for (const r of sent.refused) {
          const key = aggregateKeyOf(r.aggregateType, r.aggregateId);
          if (!run.tally.refusedAggregates.has(key)) run.tally.refusedAggregates.set(key, r.eventId);
        }
        run.tally.retried += sent.retried;
        if (sent.stopped) return summaryOf(run, 'interrupted');
      }
      carried = [...split.carry.values()].flat();
      writer?.write(state(last ? null : (hours[i + 1] as string), [...split.carry.values()]));
      progress(hour, i + 1);
    }
    return summaryOf(run, dryRun ? 'dry-run' : 'completed');
  } catch (error) {
    // A listing or read that failed for good: what was sent before is counted, and the checkpoint keeps the position.
    if (error instanceof ReplayStoppedError) throw error;
    throw new ReplayStoppedError(summaryOf(run, 'interrupted'), error);
  } finally {
    writer?.close();
  }
}
