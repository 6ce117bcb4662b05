import type { Context } from '@opentelemetry/api';
import { type MessageRecord, openMessageRecord, type Slot } from './batch-message-record.js';
import { CommitGroup, type CommitScopes, type GroupOutcomes } from './commit-group.js';
import { asError } from './errors.js';
import { type MessageHandlingDeps, type PreparedEvent, type PreparedMessage, rememberCommitted, runEvent } from './handle-message.js';
import type { ResolvedInboxOptions } from './inbox.js';
import type { PendingCommit } from './pending-commit.js';
import { acknowledged, messageOutcome, type RunEventsOptions, reportEvent } from './run-events.js';
import { type MessageScope, outerContext, traceGroupCommit, traceMessage, UNTRACED } from './tracing.js';
import type { ConsumerMessage, ConsumerTracingOptions, MessageOutcome } from './types.js';
import { reportUnexpected, unexpectedOutcome } from './unexpected.js';

/** What a worker of a batch shares with the others (`commit: 'event'` and `'batch'` alike). */
export interface BatchWorkerContext extends RunEventsOptions {
  readonly deps: MessageHandlingDeps;
  readonly inbox: ResolvedInboxOptions;
  readonly tracing: ConsumerTracingOptions | undefined;
  readonly messages: readonly ConsumerMessage[];
  readonly prepared: readonly PreparedMessage[];
  /** Filled in as messages settle. */
  readonly outcomes: MessageOutcome[];
}

/**
 * One pool worker of a batch under `commit: 'batch'`. Handlers run in turn as with `commit:
 * 'event'`, but a `transaction` event's writes and inbox record join the worker's open group,
 * which commits in one transaction before an event of an aggregate already in it, before a
 * `claim` handler, before passing 100 actions or touching an item twice, and at the end. Each
 * message's outcome, metrics and span are settled once its events' group has committed, in order.
 */
export class BatchWorker {
  readonly #context: BatchWorkerContext;
  readonly #group: CommitGroup;
  #records: MessageRecord[] = [];
  /** FIFO group → the index of the message that failed in it: later messages of the group are skipped. */
  readonly #failed = new Map<string, number>();
  /** FIFO groups whose failed message is settled (an earlier failure settled later takes precedence over a handler's). */
  readonly #settledFailures = new Set<string>();
  readonly #spans: Promise<MessageOutcome>[] = [];
  /** The message whose handler ran each pending event. */
  readonly #owners = new WeakMap<PendingCommit, MessageRecord>();
  /** The context outside any message's span, taken before the first message runs. */
  #outer: { readonly context: Context | undefined } | undefined;
  /** A group's transaction in a span of its own linked to its messages' spans; an event's own commit in its message's span. */
  readonly #scopes: CommitScopes = {
    group: (entries, run) =>
      traceGroupCommit(
        this.#outer?.context,
        entries.map((p) => this.#scopeOf(p)),
        entries.length,
        run,
      ),
    event: (pending, run) => this.#scopeOf(pending).within(run),
  };

  constructor(context: BatchWorkerContext) {
    this.#context = context;
    this.#group = new CommitGroup(context.deps, context.inbox.document, context.inbox.tableName);
  }

  #scopeOf(pending: PendingCommit): MessageScope {
    return this.#owners.get(pending)?.scope ?? UNTRACED;
  }

  /** Runs the handlers of a FIFO group's messages (or one message of a standard queue); their commits may wait in the group. */
  async run(indices: readonly number[]): Promise<void> {
    this.#outer ??= { context: await outerContext() };
    await this.#group.ready();
    for (const index of indices) {
      const message = this.#context.messages[index] as ConsumerMessage;
      const ready = this.#context.prepared[index] as PreparedMessage;
      const { record, settled } = openMessageRecord(index, message, ready);
      this.#records.push(record);
      const fifo = message.messageGroupId;
      if (fifo !== undefined && this.#failed.has(fifo)) {
        record.complete = true;
        continue;
      }
      if (ready.status === 'done') {
        if (fifo !== undefined && !this.#failed.has(fifo)) this.#failed.set(fifo, index);
        record.complete = true;
      }
      let ran: () => void = () => {};
      const handlersRan = new Promise<void>((resolve) => {
        ran = resolve;
      });
      const span = traceMessage(this.#context.tracing, message, ready, async (scope) => {
        record.scope = scope;
        try {
          if (ready.status === 'ready') await this.#runEvents(record, ready.events);
        } finally {
          record.complete = true;
          ran();
        }
        return settled;
      }).catch((error: unknown) => this.#spanFailed(record, error));
      this.#spans.push(span);
      // The span stays open until the message settles; the next message runs as soon as this one's handlers have.
      await Promise.race([handlersRan, span]);
    }
  }

  /** Commits what is left in the group and settles every message; then the messages' spans end. */
  async end(): Promise<void> {
    await this.#flush();
    await Promise.all(this.#spans);
  }

  async #runEvents(record: MessageRecord, events: readonly PreparedEvent[]): Promise<void> {
    const { deps, claimUntil, snapshot } = this.#context;
    for (const event of events) {
      // A claim's side effect runs after what precedes it is committed; a handler sees its aggregate's earlier writes.
      if (event.handler.idempotency === 'claim' || this.#group.hasAggregate(event.envelope)) await this.#flush();
      if (record.closed) return;
      const run = await runEvent(deps, { message: record.message, event, claimUntil, snapshot, defer: true });
      if ('outcome' in run) {
        record.slots.push({ event, ...run });
        if (acknowledged(run.outcome)) continue;
        const fifo = record.message.messageGroupId;
        if (fifo !== undefined && !this.#failed.has(fifo)) this.#failed.set(fifo, record.index);
        return;
      }
      this.#owners.set(run.pending, record);
      if (!this.#group.join(run.pending)) {
        await this.#flush();
        // An earlier event of the message (or of its FIFO group) failed to commit: this one is not committed either.
        if (record.closed) return;
        this.#group.join(run.pending);
      }
      record.slots.push({ event, pending: run.pending });
      // Too many writes or bytes for any transaction: committed alone (the group before it is committed), it is refused as with `commit: 'event'`.
      if (this.#group.overLimit) await this.#flush();
      if (record.closed) return;
    }
  }

  /**
   * Commits the open group, then settles, in order, every message whose events are all committed
   * or decided. Never throws: an error no outcome stands for fails the messages not settled yet.
   */
  async #flush(): Promise<void> {
    try {
      await this.#settle(await this.#group.commit(this.#scopes));
    } catch (error) {
      this.#abandon(error);
    }
  }

  /**
   * Ends every message not settled yet as failed with `error`, thrown while committing or settling
   * (a logger, metrics sink or tracker that throws; a bug): SQS delivers them again, and what of
   * them was committed is a duplicate then. Thrown on, it would leave their spans and outcomes
   * waiting, and end the whole batch (with a Lambda, each of its messages delivered again).
   */
  #abandon(error: unknown): void {
    const { deps, messages, outcomes, reporter } = this.#context;
    const failure = asError(error);
    const unsettled = this.#records.filter((record) => outcomes[record.index] === undefined);
    this.#records = [];
    for (const record of unsettled) {
      const { ready, message } = record;
      const fifo = message.messageGroupId;
      const failed = fifo === undefined ? undefined : this.#failed.get(fifo);
      const outcome: MessageOutcome =
        failed !== undefined && failed < record.index && record.outcomes.length === 0
          ? {
              status: 'skipped',
              messageId: message.messageId,
              reason: 'EARLIER_MESSAGE_OF_GROUP_FAILED',
              failedMessageId: (messages[failed] as ConsumerMessage).messageId,
            }
          : unexpectedOutcome(message, ready, record, failure);
      outcomes[record.index] = outcome;
      record.closed = true;
      if (fifo !== undefined && (outcome.status === 'failed' || outcome.status === 'rejected') && !this.#settledFailures.has(fifo)) {
        this.#failed.set(fifo, Math.min(record.index, failed ?? record.index));
        this.#settledFailures.add(fifo);
      }
      record.settle(outcome);
    }
    reportUnexpected(
      deps.consumer,
      deps.logger,
      reporter,
      unsettled.map((record) => outcomes[record.index] as MessageOutcome),
      failure,
      'Committing or settling a group of the batch failed unexpectedly; its messages not settled yet failed and are delivered again',
    );
  }

  /**
   * A message's span failed to start or to end (a tracer that throws): a message settled already
   * keeps its outcome (later messages of its FIFO group may have settled after it); one that never
   * ran fails, so SQS delivers it again. The error is logged. Thrown on, it would end the whole batch.
   */
  #spanFailed(record: MessageRecord, error: unknown): MessageOutcome {
    const { deps, outcomes, reporter } = this.#context;
    const failure = asError(error);
    const settled = outcomes[record.index];
    const outcome = settled ?? unexpectedOutcome(record.message, record.ready, record, failure);
    if (settled === undefined) {
      outcomes[record.index] = outcome;
      record.complete = true;
      record.closed = true;
      this.#records = this.#records.filter((other) => other !== record);
      const fifo = record.message.messageGroupId;
      if (fifo !== undefined && outcome.status === 'failed' && !this.#failed.has(fifo)) this.#failed.set(fifo, record.index);
      record.settle(outcome);
    }
    // A settled message's outcome is counted already: only one this failed is counted again.
    reportUnexpected(
      deps.consumer,
      deps.logger,
      settled === undefined ? reporter : { failedUnexpectedly: () => {} },
      [outcome],
      failure,
      "A message's span failed unexpectedly; unless the message had settled already, it failed and is delivered again",
    );
    return outcome;
  }

  async #settle(outcomeOf: GroupOutcomes): Promise<void> {
    const { tracker, reporter, outcomes, snapshot } = this.#context;
    const open: MessageRecord[] = [];
    for (const record of this.#records) {
      const { message, ready } = record;
      const fifo = message.messageGroupId;
      const failed = fifo === undefined ? undefined : this.#failed.get(fifo);
      const failedMessageId = failed === undefined ? undefined : (this.#context.messages[failed] as ConsumerMessage).messageId;
      let outcome: MessageOutcome | undefined;
      // Only a message after the failed one is skipped: one before it, its commit pending in the group, still settles.
      if (failedMessageId !== undefined && (failed as number) < record.index && record.outcomes.length === 0) {
        outcome = { status: 'skipped', messageId: message.messageId, reason: 'EARLIER_MESSAGE_OF_GROUP_FAILED', failedMessageId };
        reporter.outcome(outcome);
      } else if (ready.status === 'done') {
        outcome = ready.outcome;
        reporter.outcome(outcome);
      } else {
        while (record.outcomes.length < record.slots.length && !record.closed) {
          const slot = record.slots[record.outcomes.length] as Slot;
          const eventOutcome = 'outcome' in slot ? slot.outcome : await outcomeOf(slot.pending);
          // A later delivery of the event in the batch is a duplicate without a read.
          if (!('outcome' in slot) && eventOutcome.status === 'processed')
            rememberCommitted(this.#context.deps, snapshot, slot.pending.envelope);
          record.outcomes.push(eventOutcome);
          const envelope = 'outcome' in slot ? slot.envelope : slot.pending.envelope;
          // Its sequence tracking's requests in its own message's span, whichever message's run made the group commit.
          await record.scope.within(() => reportEvent(slot.event, eventOutcome, envelope, { tracker, reporter }));
          record.reported++;
          if (!acknowledged(eventOutcome)) record.closed = true;
        }
        if (record.closed || record.complete) outcome = messageOutcome(ready.events.length, record.outcomes);
      }
      if (outcome === undefined) {
        open.push(record);
        continue;
      }
      record.closed = true;
      outcomes[record.index] = outcome;
      if (fifo !== undefined && (outcome.status === 'failed' || outcome.status === 'rejected') && !this.#settledFailures.has(fifo)) {
        this.#failed.set(fifo, record.index);
        this.#settledFailures.add(fifo);
      }
      record.settle(outcome);
    }
    this.#records = open;
  }
}
