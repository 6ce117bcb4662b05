import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { lowestFailedSequenceNumber, type RelayResult } from '../relay/index.js';
import type { ConsumerContext, ConsumerExit } from './consumer-context.js';
import { LeaseLostError, RecordsTrimmedError } from './errors.js';
import type { HeldLease } from './held-lease.js';
import { SHARD_END } from './lease.js';
import { publishCutoff } from './publish-cutoff.js';
import { retryPauseMs } from './retries.js';
import { leaseExpiresAfterMs } from './settings.js';
import { ShardCheckpoints } from './shard-checkpoints.js';
import { ShardRetries } from './shard-retries.js';
import type { ReadResult } from './stream-source.js';
import { monotonicNow } from './worker-clock.js';

/**
 * Reads one shard for as long as this worker holds its lease: waits for the parents to finish,
 * then reads in a tight loop while records flow and backs off (doubling up to a cap) while the
 * shard is idle; publishes each page through the relay core and checkpoints after publishing
 * (in the background, never ahead of what was published), so a crash repeats records but never
 * skips one; stopping waits for the last checkpoint. An expired iterator is renewed from the
 * checkpoint at once (a renewed one found expired too is a failed read); a failed record is
 * retried from just before it until its bounds are spent (`failures`: attempts or age, as for the
 * Lambda path), then the records of the page not delivered are written to the on-failure
 * destination, and only then checkpointed past; a failed checkpoint write is retried until it
 * succeeds or the lease is lost, or, once the worker is stopping, retried a few times within
 * `handOffTimeoutMs` and then given up with the lease (dropped, to expire for the next worker).
 * A page read ahead is published only while the lease is still held as
 * far as this worker knows, and not once it went unwritten until another worker may take it
 * (`leaseExpiresAfterMs`), even if no write failed. Records trimmed from the stream before they
 * were read are reported (once per checkpoint found past the retention, however often the shard reads
 * from it again) and skipped; a shard gone from the stream is finished. A Streams call
 * unanswered for the failover time is abandoned and counts as a failed read.
 *
 * @example
 * ```ts
 * const exit = await new ShardConsumer(held, context).run();
 * ```
 */
export class ShardConsumer {
  private failures = 0;
  private readonly checkpoints: ShardCheckpoints;
  /** Where reading resumes: the last record published (ahead of the lease's checkpoint while it is written). */
  private position: string;
  /** When a read last succeeded (or reading began): while reads fail, records written since wait unread. */
  private readAt = monotonicNow();
  /** Failed attempts at the record the shard retries from, and the records given up on. */
  private readonly retries: ShardRetries;
  /** The checkpoint last found past the stream's retention: reading from it again (a retry) is no new trim. */
  private trimReportedFor: string | undefined;

  constructor(
    private readonly held: HeldLease,
    private readonly context: ConsumerContext,
  ) {
    this.position = held.lease.checkpoint;
    this.checkpoints = new ShardCheckpoints(held, context);
    this.retries = new ShardRetries(held, context);
  }

  async run(): Promise<ConsumerExit> {
    try {
      const exit = await this.loop();
      await this.settle();
      return exit;
    } catch (error) {
      if (error instanceof LeaseLostError) return 'lease-lost';
      throw error;
    }
  }

  private active(): boolean {
    return !this.context.stopping.aborted && !this.held.lost && !this.expired();
  }

  private async loop(): Promise<ConsumerExit> {
    const { source, settings } = this.context;
    // A call unanswered for the failover time is hung (the client's own timeouts would have
    // failed it sooner): abandoned and retried like any failed read, so the lag shows it.
    const bound = { timeoutMs: settings.failoverMs };
    while (this.active() && !this.context.parentsFinished()) await this.context.sleep(settings.leaseScanIntervalMs);
    this.readAt = monotonicNow();
    let iterator: string | undefined;
    /** Whether `iterator` came from `GetShardIterator` just now, not from a page. */
    let fresh = false;
    /** The next page, read while the current one is published; pages are still published one after another. */
    let ahead: Promise<ReadResult> | undefined;
    /** Ends the read ahead when its page is no longer wanted, so no call or timer outlives the consumer. */
    let aheadAbort: AbortController | undefined;
    const dropAhead = (): void => {
      aheadAbort?.abort();
      aheadAbort = undefined;
      ahead = undefined;
    };
    let idleDelay = settings.idleMinDelayMs;
    try {
      while (this.active()) {
        if (this.checkpoints.failure !== undefined) throw this.checkpoints.failure;
        try {
          if (iterator === undefined) {
            const start = await source.iterator(this.held.leaseKey, this.position, bound);
            if (start.status === 'gone') {
              this.context.trimmed(new RecordsTrimmedError(this.held.leaseKey, this.position, true));
              return await this.finish();
            }
            if (start.trimmed && this.trimReportedFor !== this.position) {
              this.trimReportedFor = this.position;
              this.context.trimmed(new RecordsTrimmedError(this.held.leaseKey, this.position, false));
            }
            if (start.iterator === undefined) return await this.finish();
            iterator = start.iterator;
            fresh = true;
          }
          const page = await (ahead ?? source.read(iterator, settings.readLimit, bound));
          const wasFresh = fresh;
          ahead = undefined;
          aheadAbort = undefined;
          fresh = false;
          if (page.status === 'records') this.readAt = monotonicNow();
          if (page.status === 'expired') {
            iterator = undefined;
            // An iterator just taken is good for 15 minutes: if the stream calls it expired too, a
            // new one at once would only be refused again, as fast as the calls go.
            if (wasFresh) throw new Error('GetRecords called a shard iterator expired that was just taken; retrying after a pause');
            continue;
          }
          if (page.status === 'trimmed') {
            // Past retention the iterator falls back to the oldest record; DynamoDB Local also says
            // this once for an iterator taken on an empty shard before its first write.
            iterator = undefined;
            await this.context.sleep(settings.idleMinDelayMs);
            continue;
          }
          if (page.records.length > 0) {
            // Read while the previous page was published and checkpointed: if that checkpoint found
            // the lease taken, or the worker began stopping, this page is left to the next holder.
            if (!this.active() || this.checkpoints.failure !== undefined) continue;
            if (page.next !== undefined) {
              aheadAbort = new AbortController();
              ahead = source.read(page.next, settings.readLimit, { ...bound, signal: aheadAbort.signal });
              // Its failure, if any, surfaces where it is awaited; a discarded read fails no one.
              ahead.catch(() => undefined);
            }
            if (!(await this.publish(page.records))) {
              dropAhead();
              iterator = undefined;
              await this.pause();
              continue;
            }
          }
          this.failures = 0;
          if (page.next === undefined) return await this.finish();
          iterator = page.next;
          if (page.records.length === 0) {
            await this.context.sleep(idleDelay);
            idleDelay = Math.min(settings.idleMaxDelayMs, Math.max(1, idleDelay * 2));
          } else {
            idleDelay = settings.idleMinDelayMs;
          }
        } catch (error) {
          if (error instanceof LeaseLostError) throw error;
          this.context.failed(error, { readAt: this.readAt });
          dropAhead();
          iterator = undefined;
          await this.pause();
        }
      }
      return this.held.lost ? 'lease-lost' : 'stopped';
    } finally {
      // A page read ahead and not published is left to the next holder: its call ends here.
      dropAhead();
    }
  }

  /**
   * Drops the lease once another worker may take it, `leaseExpiresAfterMs` after its last
   * successful write: a lease write that hangs never fails, so the consumer judges this from
   * that write alone, and publishes nothing from then on.
   */
  private expired(): boolean {
    const unwrittenMs = this.held.now() - this.held.writtenAt;
    if (unwrittenMs < leaseExpiresAfterMs(this.context.settings)) return false;
    this.held.drop(
      `not written for ${Math.round(unwrittenMs)} ms, so another worker may take it; the page read is left to the next holder`,
    );
    return true;
  }

  /** Publishes a page and checkpoints; `false` when a record failed (checkpointed just before it). */
  private async publish(records: readonly _Record[]): Promise<boolean> {
    const cutoff = publishCutoff(this.held, this.context.settings, this.context);
    let result: RelayResult;
    try {
      result = await this.context.publisher.relay(records, { signal: cutoff.signal, mayPublish: () => cutoff.mayPublish() });
    } finally {
      cutoff.dispose();
    }
    const failed = lowestFailedSequenceNumber(result);
    if (failed === undefined) {
      this.retries.reset();
      this.position = records.at(-1)!.dynamodb!.SequenceNumber!;
      this.checkpoints.soon(this.position);
      this.context.processed(records, result);
      return true;
    }
    // Not found (a failed record without a sequence number: WHOLE_BATCH_FAILED): the whole page is retried.
    const index = records.findIndex((record) => record.dynamodb?.SequenceNumber === failed);
    /** The first record not delivered: where the retry starts. */
    const start = Math.max(index, 0);
    if (index > 0) {
      this.position = records[index - 1]!.dynamodb!.SequenceNumber!;
      this.checkpoints.soon(this.position);
    }
    // What went out counts: the records before the failed one are done, and SNS took the events published.
    if (index > 0 || result.published > 0) this.context.processed(records.slice(0, start), part(result, 0, start, result.published));
    if (cutoff.reason !== undefined) {
      // Not retried here: the lease goes to the next holder. Said before the checkpoint settles,
      // which ends the consumer at once if it finds the lease taken.
      this.context.cutOff(cutoff.reason, records.slice(start));
      await this.settle();
      return false;
    }
    await this.settle();
    const retry = await this.retries.failed(records, start, result.outcomes, () => this.active());
    if (retry.outcome === 'stopped') return false;
    if (retry.outcome === 'written') {
      // The rest of the page is done with too: the records given up on, and those behind the failed
      // one that were delivered or ignored (their events were counted with the records before it).
      this.context.processed(records.slice(start), part(result, start, records.length, 0));
      this.position = records.at(-1)!.dynamodb!.SequenceNumber!;
      this.checkpoints.soon(this.position);
      return true;
    }
    this.context.failed(new Error(`record ${failed} failed to publish${retry.bound}; retrying from it`), { unpublished: records[start]! });
    return false;
  }

  private async finish(): Promise<ConsumerExit> {
    await this.settle();
    await this.checkpoints.write(SHARD_END);
    return 'shard-end';
  }

  /** Waits until every published page is checkpointed; rethrows a failed checkpoint. */
  private settle(): Promise<void> {
    return this.checkpoints.settle();
  }

  private async pause(): Promise<void> {
    this.failures++;
    await this.context.sleep(retryPauseMs(this.failures, this.context.settings.retryMaxDelayMs));
  }
}

/** `result` for the records from `from` to `to`, of which `published` events are counted with them. */
function part(result: RelayResult, from: number, to: number, published: number): RelayResult {
  const outcomes = result.outcomes.slice(from, to);
  return { ...result, outcomes, published, ignored: outcomes.filter((outcome) => outcome.status === 'ignored').length };
}
