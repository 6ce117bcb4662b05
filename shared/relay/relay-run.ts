import { PublishBatchCommand, type PublishBatchCommandOutput } from '@aws-sdk/client-sns';
import { snsTopicName } from '../aws/sns-topic-arn.js';
import { backoffDelay } from '../backoff.js';
import type { DeadLetterFields, DeadLetterSender } from './dead-letter-sender.js';
import { eventDeadLetter } from './event-dead-letter.js';
import { describeError, entryFailureKind, requestFailureKind } from './failure-kind.js';
import { fillLanes } from './fill-lanes.js';
import { type EventItem, type Lane, type LaneItem, Lanes } from './lanes.js';
import { type Entry, takeNextSend } from './next-send.js';
import type { RecordFailureReason, RelayResult } from './outcome.js';
import { batchEntry } from './publish-entry.js';
import { traceRelayBatch } from './relay-tracing.js';
import { retryBackoff } from './retry-delays.js';
import { RunRecords } from './run-result.js';
import { coordinatesOf, type StreamRecordInput } from './stream-record.js';
import type { RelayOptions, RelayRunOptions } from './types.js';

/** The events of an entry, as details name them. */
const eventsOf = (items: readonly EventItem[]): string =>
  items.length === 1
    ? `event ${items[0]!.message.id}`
    : `the ${items.length} events ${items[0]!.message.id} … ${items[items.length - 1]!.message.id} (one batch message)`;

/** One invocation's work: the lanes and the scheduler, sending each request; {@link RunRecords} keeps what came of each record. */
export class RelayRun {
  private readonly lanes = new Lanes();
  /** What came of each record. */
  private readonly records: RunRecords;
  private inFlight = 0;
  /** Set once `mayPublish()` refused a request: nothing more is sent. */
  private refused = false;
  private wake: () => void = () => {};
  /** Epoch ms after which nothing new is sent. */
  private readonly deadline: number;
  /** Aborts the requests still in flight. */
  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly options: RelayOptions,
    private readonly deadLetters: DeadLetterSender,
    private readonly input: readonly StreamRecordInput[],
    private readonly limits: RelayRunOptions = {},
  ) {
    this.deadline = limits.deadline ?? Number.POSITIVE_INFINITY;
    this.signal = limits.signal;
    this.records = new RunRecords(input.map(coordinatesOf));
  }

  async run(): Promise<RelayResult> {
    const { states, coordinates } = this.records;
    const messages = fillLanes(this.lanes, this.input, states, coordinates, this.options);
    const topics = [...new Set(messages.map(({ topic }) => snsTopicName(this.options.topicArns[topic]) ?? topic))];
    return traceRelayBatch({ messages: messages.map(({ message }) => message), topics }, () => this.publishAll());
  }

  private async publishAll(): Promise<RelayResult> {
    const concurrency = this.options.config.relay.publishConcurrency;
    // An abort ends the run as the deadline does, at once: wake the loop to stop.
    this.signal?.addEventListener('abort', () => this.wake(), { once: true });
    for (;;) {
      // Asked before each request, nothing awaited between the ask and the request it lets go: an
      // answer handled late (the event loop was blocked) sends nothing the deadline or `mayPublish()`
      // forbids now, and neither does the next request of a wave once sending one (a wrapper's or
      // the SDK's synchronous work) took the clock past them. Asked once at least per wake-up.
      while (!this.stoppedSending() && this.inFlight < concurrency) {
        const task = this.nextBatch();
        if (task === undefined) break;
        this.inFlight++;
        void task().finally(() => {
          this.inFlight--;
          this.wake();
        });
      }
      if (this.inFlight === 0 && !this.lanes.pending()) break;
      const woken = new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      const readyAt = this.inFlight < concurrency ? this.lanes.nextReadyAt() : undefined;
      const deadlineAhead = Date.now() < this.deadline ? this.deadline : Number.POSITIVE_INFINITY;
      const wakeAt = Math.min(readyAt ?? Number.POSITIVE_INFINITY, deadlineAhead);
      if (wakeAt === Number.POSITIVE_INFINITY) {
        await woken;
      } else {
        // A lane in backoff becomes ready on its own, and the deadline comes; wait for either or for a request to finish.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, wakeAt - Date.now()))))]);
        clearTimeout(timer);
      }
    }
    return this.records.result();
  }

  /** Whether nothing more may be sent, asked now (see {@link sendingEnded}); when so, every lane still waiting fails its records. */
  private stoppedSending(): boolean {
    const ended = this.sendingEnded();
    if (ended) this.stopAtDeadline();
    return ended;
  }

  /** Whether nothing more may be sent: the deadline passed, the signal aborted, or `mayPublish()` refuses, asked now. */
  private sendingEnded(): boolean {
    if (Date.now() >= this.deadline || this.signal?.aborted === true) return true;
    this.refused ||= this.limits.mayPublish?.() === false;
    return this.refused;
  }

  /** Sends nothing more: every lane with events or dead letters still to send fails its records. */
  private stopAtDeadline(): void {
    const beforeDeadline = Date.now() < this.deadline;
    const detail =
      this.signal?.aborted === true && beforeDeadline
        ? `publishing was cut short (${describeError(this.signal.reason)}) before these events were sent; the record is retried`
        : this.refused && beforeDeadline
          ? 'publishing was refused (mayPublish() returned false) before these events were sent; the record is retried'
          : 'the invocation reached its deadline before these events were sent; the event source mapping retries the record';
    for (const lane of this.lanes.waiting()) this.records.failLane(lane, 'DEADLINE_REACHED', detail);
  }

  /** The next request to send, as a task the scheduler runs, or `undefined` when no lane is ready. */
  private nextBatch(): (() => Promise<void>) | undefined {
    const next = takeNextSend(this.lanes, Date.now());
    if (next === undefined) return undefined;
    if (next.kind === 'publish') return () => this.guarded(next.batch, 'PUBLISH_FAILED', () => this.publish(next.batch));
    const sent = [{ lane: next.lane, items: [next.item] }];
    if (next.kind === 'malformed')
      return () => this.guarded(sent, 'DEAD_LETTER_FAILED', () => this.deadLetter(next.lane, next.item, next.item.letter));
    return () =>
      this.guarded(sent, 'DEAD_LETTER_FAILED', () =>
        this.deadLetter(
          next.lane,
          next.item,
          eventDeadLetter(next.item, this.records.coordinates[next.item.recordIndex]!, next.reason, next.detail),
        ),
      );
  }

  /** Runs a task; one that throws (a client wrapper answering with no output, say) fails the lanes it was sending for, which would else wait for ever. */
  private async guarded(
    sent: readonly { lane: Lane; items: readonly LaneItem[] }[],
    reason: RecordFailureReason,
    task: () => Promise<void>,
  ): Promise<void> {
    try {
      await task();
    } catch (error) {
      for (const { lane, items } of sent)
        if (lane.busy && lane.items[0] === items[0])
          this.records.failLane(lane, reason, `the relay failed on its request: ${describeError(error)}`);
    }
  }

  private async publish(batch: readonly Entry[]): Promise<void> {
    const topic = batch[0]!.items[0]!.topic!;
    for (const { items } of batch) if (items[0]!.attempts > 0) this.records.retried++;
    const entries = batch.map(({ items }, i) =>
      batchEntry(
        items.map((item) => item.message),
        topic,
        `e${i}`,
      ),
    );
    let output: PublishBatchCommandOutput;
    try {
      output = await this.options.sns.send(
        new PublishBatchCommand({ TopicArn: this.options.topicArns[topic.name], PublishBatchRequestEntries: entries }),
        this.signal === undefined ? undefined : { abortSignal: this.signal },
      );
    } catch (error) {
      // Classified as an entry's failure would be: SNS may refuse a message as the whole request.
      const kind = requestFailureKind(error);
      if (kind === 'rejected' && batch.length > 1) {
        // One entry may have spoiled the request for all (an invalid parameter): each is sent alone
        // next, so only its own event is refused. Not an attempt: nothing was tried on its own yet.
        for (const { lane, items } of batch) {
          for (const item of items) item.alone = true;
          lane.busy = false;
        }
        return;
      }
      if (kind === 'rejected') {
        this.rejected(batch[0]!, `SNS refused the request: ${describeError(error)}`);
        return;
      }
      for (const entry of batch) this.retryOrFail(entry, kind === 'transient', describeError(error));
      return;
    }
    const succeeded = new Set((output.Successful ?? []).map((s) => s.Id));
    const failed = new Map((output.Failed ?? []).map((f) => [f.Id, f]));
    batch.forEach((entry, i) => {
      const id = `e${i}`;
      const failure = failed.get(id);
      const kind = failure === undefined ? 'transient' : entryFailureKind(failure);
      if (succeeded.has(id) && failure === undefined) {
        this.records.advance(entry.lane, entry.items, 'published');
      } else if (failure !== undefined && kind === 'rejected') {
        this.rejected(entry, `SNS rejected the message: ${failure.Code}: ${failure.Message ?? ''}`);
      } else if (failure !== undefined && kind === 'deployment') {
        this.records.failLane(
          entry.lane,
          'PUBLISH_FAILED',
          `publishing ${eventsOf(entry.items)} failed for a reason of the deployment, not of the message (not retried, not dead-lettered): ${failure.Code}: ${failure.Message ?? ''}`,
        );
      } else {
        const detail = failure === undefined ? 'SNS returned no result for the entry' : `${failure.Code}: ${failure.Message ?? ''}`;
        this.retryOrFail(entry, true, detail);
      }
    });
  }

  /**
   * A message SNS refuses for good. A batch message is split: its events go out as messages of
   * their own next (not an attempt: none was tried on its own), so only the event at fault is
   * dead-lettered. A single event's dead letter is sent next, as a request of its own (so it counts
   * against `publishConcurrency`), unless the deadline has passed.
   */
  private rejected({ lane, items }: Entry, detail: string): void {
    if (items.length > 1) {
      for (const item of items) item.single = true;
      lane.busy = false;
      return;
    }
    const item = items[0]!;
    if (Date.now() >= this.deadline) {
      // Nothing new goes out after the deadline, a dead letter neither: the retry meets the same refusal.
      this.records.failLane(
        lane,
        'DEADLINE_REACHED',
        `SNS rejected event ${item.message.id} after the deadline; it is dead-lettered on the retry`,
      );
      return;
    }
    item.rejection = detail;
    lane.busy = false;
  }

  /** A failed entry: its message is retried whole (the same events, so the same deduplication id) after a backoff, or its lane fails. */
  private retryOrFail({ lane, items }: Entry, transient: boolean, detail: string): void {
    for (const item of items) item.attempts++;
    const item = items[0]!;
    lane.busy = false;
    if (this.signal?.aborted === true) {
      // The run was cut short (the invocation's end, a lost lease): that, not SNS, failed the request.
      this.records.failLane(
        lane,
        'DEADLINE_REACHED',
        `publishing ${eventsOf(items)} was cut short (${describeError(this.signal.reason)}): ${detail}`,
      );
      return;
    }
    const backoff = retryBackoff(this.options.config.relay.maxPublishAttempts, this.options.backoff);
    if (transient && item.attempts < backoff.maxAttempts) {
      // Counted as retried when it is sent again (publish), not now: the deadline may come first.
      lane.readyAt = Date.now() + backoffDelay(backoff, item.attempts);
      return;
    }
    // Not "not retryable": the record fails, and the mapping (or the processor) retries it later.
    const why = transient ? `still failing after ${item.attempts} attempts` : 'an error a retry in this run would not mend';
    this.records.failLane(lane, 'PUBLISH_FAILED', `publishing ${eventsOf(items)} failed (${why}): ${detail}`);
  }

  /** Sends the lane head's dead letter; the lane moves on once it is in the DLQ, and fails if the DLQ refuses it. */
  private async deadLetter(lane: Lane, item: LaneItem, letter: DeadLetterFields): Promise<void> {
    const { mayPublish } = this.limits;
    const sent = await this.deadLetters.send(letter, {
      deadline: this.deadline,
      ...(this.signal === undefined ? {} : { signal: this.signal }),
      ...(mayPublish === undefined ? {} : { mayPublish }),
    });
    if (sent.status === 'sent') {
      this.records.advance(lane, [item], 'deadLettered');
    } else {
      this.records.failLane(lane, sent.status === 'deadline' ? 'DEADLINE_REACHED' : 'DEAD_LETTER_FAILED', sent.detail);
    }
  }
}
