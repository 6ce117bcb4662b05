import { DeleteMessageBatchCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { isFifoQueueUrl } from '../aws/sqs-queue-url.js';
import { RedriveStoppedError } from './errors.js';
import { HeldMessages } from './held-messages.js';
import { InFlightRoom, partialReadNotes } from './in-flight-room.js';
import { KeptRepublished } from './kept-records.js';
import { checkCommonOptions, checkQueueUrl, checkWaitTimeSeconds, visibilityTimeoutOf } from './option-checks.js';
import { approximateCount, fifoNotes, queueCounts } from './queue-counts.js';
import { rateLimiter } from './rate-limit.js';
import type { RedriveCommonOptions, RedriveProblem, RedriveSummary } from './types.js';

/** What to do with one source message. `units` counts the events it republishes (for the rate limit). */
export type DrainPlan<T> =
  | { readonly status: 'republish'; readonly item: T; readonly units: number }
  | { readonly status: 'skip'; readonly reason: string }
  /** Not republished for a passing reason (a read that still failed after its retries): counted failed and kept, as a rerun may move it. */
  | { readonly status: 'fail'; readonly reason: string }
  /** Not asked for (it does not match the run's filter): kept and released untouched, counted in `unmatched` only. */
  | { readonly status: 'leave' };

/** How a batch of planned messages was republished, by message id. */
export interface RepublishResult {
  readonly succeeded: readonly string[];
  readonly failed: readonly RedriveProblem[];
  /** Planned messages that turned out not republishable after all (e.g. held back behind another): counted skipped and kept, like failed ones. */
  readonly skipped?: readonly RedriveProblem[];
  /** Anything the summary must tell beyond the counts (see {@link RedriveSummary.notes}). */
  readonly notes?: readonly string[];
  /**
   * Events published in all, of succeeded and failed messages alike (an on-failure record some of
   * whose events went out, or were dead-lettered instead): counted as republished. @default the
   * planned `units` of the succeeded messages
   */
  readonly published?: number;
  /** Events published of each succeeded message, where not its planned `units` (some were dead-lettered instead). */
  readonly publishedOf?: ReadonlyMap<string, number>;
}

export interface DrainOptions<T> extends RedriveCommonOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly target: string;
  plan(message: Message): Promise<DrainPlan<T>> | DrainPlan<T>;
  republish(items: readonly { readonly messageId: string; readonly item: T }[]): Promise<RepublishResult>;
  /**
   * In a dry run, the planned messages that `republish` would still keep back (e.g. held behind
   * another of the same batch), counted skipped instead of moved, and the events that would be
   * published, as `republish` counts them: of those kept back too when some of theirs would still
   * go out (an on-failure record whose first records the stream trimmed). @default none kept back,
   * and the planned `units` of those that would move
   */
  preview?(items: readonly { readonly messageId: string; readonly item: T }[]): {
    readonly skipped: readonly RedriveProblem[];
    readonly published?: number;
  };
  /**
   * How long a received message stays hidden from other readers while it is moved; the batch in
   * hand and the messages kept back (skipped, failed, or all in a dry run) are hidden again before
   * half of it has passed, for as long as the run lasts, whatever it waits on. @default 120
   */
  readonly visibilityTimeoutSeconds?: number;
  /** Long-poll wait per receive; the run ends at the first empty receive. @default 1 */
  readonly waitTimeSeconds?: number;
  /**
   * Counts the messages that stay though events of theirs went out (here: republished, but not
   * deleted), for the summary's `keptRepublished`; the caller may count its own in it too. @default a new one
   */
  readonly republishedKept?: KeptRepublished;
  /** The run's filter in words, for the summary. @default none */
  readonly filterText?: string;
  /**
   * Puts the planned messages in the order they must go out in. When given, the queue is received
   * (up to `maxMessages`) and planned whole before anything is republished, and then republished a
   * batch at a time in this order: a queue gives its messages in no set order, so one receive at a
   * time could send a later message before an earlier one that comes in a later receive.
   * @default receive by receive, each batch as it comes
   */
  order?(items: readonly { readonly messageId: string; readonly item: T }[]): readonly { readonly messageId: string; readonly item: T }[];
}

/**
 * Moves messages off a queue until a receive comes back empty (so messages added while it runs
 * are moved too), `maxMessages` is reached or `signal` aborts. A message is deleted only after
 * its republish succeeded. Messages that failed or were skipped are counted once and kept: hidden
 * again while the run lasts (so they neither come back to be counted twice nor keep a receive from
 * coming back empty), and made visible again at the end, also after an abort or an error.
 *
 * An abort ends the run after the batch in hand (status `interrupted`); an error ends it with a
 * {@link RedriveStoppedError} that carries the partial summary.
 *
 * @example
 * ```ts
 * const summary = await drainQueue<string>({
 *   sqs, queueUrl, target: 'elsewhere', signal: controller.signal,
 *   plan: (message) => ({ status: 'republish', item: message.Body ?? '', units: 1 }),
 *   republish: async (items) => ({ succeeded: items.map((i) => i.messageId), failed: [] }),
 * });
 * ```
 */
export async function drainQueue<T>(options: DrainOptions<T>): Promise<RedriveSummary> {
  checkCommonOptions(options);
  checkQueueUrl(options.queueUrl, 'queueUrl');
  const visibility = visibilityTimeoutOf(options.visibilityTimeoutSeconds);
  checkWaitTimeSeconds(options.waitTimeSeconds);
  const { sqs, queueUrl, signal } = options;
  const dryRun = options.dryRun === true;
  const limiter = rateLimiter(options.ratePerSecond);
  // A batch goes out at once: with a rate, no more messages than one second's share (and 10, SQS's most).
  const batchSize = options.ratePerSecond === undefined ? 10 : Math.max(1, Math.min(10, Math.floor(options.ratePerSecond)));
  const counts = await queueCounts(sqs, queueUrl);
  // With `order` the run holds every message it receives until the queue is received whole: it must fit in flight.
  // Without, it holds those it leaves in the queue: past SQS's limit, it cannot read the rest.
  const ordered = options.order !== undefined;
  const room = new InFlightRoom(sqs, queueUrl, counts, isFifoQueueUrl(queueUrl), ordered ? 'ordered' : 'kept');
  if (ordered) room.check(options.maxMessages);
  const before = counts.visible + counts.inFlight + counts.delayed;
  const seen = new Set<string>();
  const held = new HeldMessages(sqs, queueUrl, visibility);
  const republishedKept = options.republishedKept ?? new KeptRepublished();
  const failed: RedriveProblem[] = [];
  const skipped: RedriveProblem[] = [];
  const republishNotes: string[] = [];
  let processed = 0;
  let unmatched = 0;
  let moved = 0;
  let republished = 0;
  let interrupted = false;
  let stoppedBy: { error: unknown } | undefined;
  const progress = () => options.onProgress?.({ processed, total: before, moved, failed: failed.length, skipped: skipped.length });

  type PlannedMessage = { message: Message; item: T; units: number };
  /** Republishes planned messages and deletes those republished; `false` when aborted while waiting for the rate, before sending any. */
  const settle = async (planned: readonly PlannedMessage[]): Promise<boolean> => {
    const items = planned.map((p) => ({ messageId: p.message.MessageId ?? '', item: p.item }));
    if (dryRun) {
      const preview = options.preview?.(items);
      const kept = new Set(preview?.skipped.map((k) => k.id));
      const going = planned.filter((p) => !kept.has(p.message.MessageId ?? ''));
      skipped.push(...(preview?.skipped ?? []));
      moved += going.length;
      republished += preview?.published ?? going.reduce((sum, p) => sum + p.units, 0);
      return true;
    }
    if (planned.length === 0) return true;
    if (
      !(await limiter.take(
        planned.reduce((sum, p) => sum + p.units, 0),
        signal,
      ))
    ) {
      return false;
    }
    const result = await options.republish(items);
    const ok = new Set(result.succeeded);
    failed.push(...result.failed);
    // Published whatever becomes of the deletes below.
    republished += result.published ?? planned.reduce((sum, p) => sum + (ok.has(p.message.MessageId ?? '') ? p.units : 0), 0);
    skipped.push(...(result.skipped ?? []));
    republishNotes.push(...(result.notes ?? []));
    // Those not republished stay held; the others are let go once their delete was answered.
    const done = planned.filter((p) => ok.has(p.message.MessageId ?? ''));
    if (done.length === 0) return true;
    // Not deleted, it stays: its events went out, but not with the messages moved.
    const stays = (p: PlannedMessage) => republishedKept.add('failed', result.publishedOf?.get(p.message.MessageId ?? '') ?? p.units);
    const deleted = await sqs
      .send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: done.map((p, i) => ({ Id: String(i), ReceiptHandle: p.message.ReceiptHandle ?? '' })),
        }),
      )
      .catch((error: unknown) => {
        // They went out but are still in the source (held, released with the rest): the partial
        // summary must say so, or the events published look as if they never were.
        const reason = `republished, but not deleted from the source (DeleteMessageBatch failed: ${(error as Error).message})`;
        for (const p of done) {
          failed.push({ id: p.message.MessageId ?? '', reason });
          stays(p);
        }
        throw error;
      });
    for (const f of deleted.Failed ?? []) {
      const entry = done[Number(f.Id)];
      failed.push({ id: entry?.message.MessageId ?? '', reason: `republished, but not deleted from the source (${f.Code}: ${f.Message})` });
      if (entry !== undefined) stays(entry);
    }
    // One whose delete failed is let go too (as before): it comes back after its timeout, and a
    // receive in this run holds it again as seen.
    held.forget(done.map((p) => p.message.MessageId ?? ''));
    moved += done.length - (deleted.Failed?.length ?? 0);
    return true;
  };
  /** With `order`, everything planned waits here until the queue has been received whole. */
  const waiting: PlannedMessage[] = [];
  let receiving = true;

  try {
    for (;;) {
      // Checked between batches only: a batch once sent is seen through to its deletes.
      if (signal?.aborted) {
        interrupted = true;
        break;
      }
      const wanted = options.maxMessages === undefined ? batchSize : Math.min(batchSize, options.maxMessages - processed);
      if (wanted <= 0) break;
      // Every message received is held (kept hidden, renewed) until it is deleted or the run ends: the
      // batch in hand as much as the kept ones, which an abort or an error releases with the rest.
      const Messages = await held.receive(wanted, options.waitTimeSeconds ?? 1).catch((error: unknown) => {
        throw room.refusal(error, held.size) ?? error;
      });
      // Only an empty receive ends the run: one of only kept messages says nothing of the messages behind them.
      if (Messages.length === 0) {
        // Empty for SQS's in-flight limit, not because the queue was received whole: publishing the part held would
        // break the order, and a run that moves as it goes read only part of the queue. (A dry run's note says so.)
        const refused = dryRun && !ordered ? undefined : await room.emptyAtLimit(held.size);
        if (refused !== undefined) throw refused;
        break;
      }
      // A message seen again came back after its visibility timeout: it is already counted, and is kept hidden.
      const fresh = Messages.filter((m) => !seen.has(m.MessageId ?? ''));
      if (fresh.length === 0) continue;
      for (const message of fresh) seen.add(message.MessageId ?? '');
      processed += fresh.length;

      const planned: PlannedMessage[] = [];
      for (const message of fresh) {
        const plan = await options.plan(message);
        if (plan.status === 'leave') unmatched += 1;
        else if (plan.status === 'skip') {
          skipped.push({ id: message.MessageId ?? '', reason: plan.reason });
        } else if (plan.status === 'fail') {
          failed.push({ id: message.MessageId ?? '', reason: plan.reason });
        } else planned.push({ message, item: plan.item, units: plan.units });
      }
      if (options.order !== undefined) waiting.push(...planned);
      else if (!(await settle(planned))) {
        // Aborted while waiting for the rate: nothing of this batch was sent, so it goes back as it came, uncounted.
        processed -= planned.length;
        interrupted = true;
        break;
      }
      progress();
    }
    receiving = false;
    if (options.order !== undefined && !interrupted) {
      const byId = new Map(waiting.map((p) => [p.message.MessageId ?? '', p]));
      const ordered = options
        .order(waiting.map((p) => ({ messageId: p.message.MessageId ?? '', item: p.item })))
        .map((i) => byId.get(i.messageId) as PlannedMessage);
      for (let at = 0; at < ordered.length; at += batchSize) {
        if (signal?.aborted || !(await settle(ordered.slice(at, at + batchSize)))) {
          // Received and planned but not sent: they go back as they came, uncounted.
          processed -= ordered.length - at;
          interrupted = true;
          break;
        }
        progress();
      }
    } else processed -= waiting.length;
  } catch (error) {
    // The batch the error cut short is still held and goes back too (its deletes had not been
    // answered: nothing of it counts as moved).
    stoppedBy = { error };
    // Received and planned, but stopped before any was sent: they go back as they came, uncounted.
    if (receiving) processed -= waiting.length;
  }
  const kept = held.size;
  const unreleased = await held.releaseAll();
  const after =
    stoppedBy === undefined ? await approximateCount(sqs, queueUrl) : await approximateCount(sqs, queueUrl).catch(() => undefined);
  const fifo = isFifoQueueUrl(queueUrl);
  const notes = [
    ...republishNotes,
    ...(fifo ? fifoNotes(counts, dryRun, processed, kept) : []),
    ...partialReadNotes({ dryRun, fifo, processed, before, maxMessages: options.maxMessages, kept, interrupted, stoppedBy }),
    ...held.notes(unreleased),
  ];
  const summary: RedriveSummary = {
    status: interrupted || stoppedBy !== undefined ? 'interrupted' : dryRun ? 'dry-run' : 'completed',
    dryRun,
    source: queueUrl,
    target: options.target,
    before,
    after,
    processed,
    moved,
    republished,
    ...republishedKept.summary(),
    failed,
    skipped,
    ...(options.filterText === undefined ? {} : { filter: options.filterText, unmatched }),
    ...(notes.length > 0 ? { notes } : {}),
  };
  if (stoppedBy !== undefined) throw new RedriveStoppedError(summary, stoppedBy.error);
  return summary;
}
