import type { OutboxEnvelope } from '../envelope.js';
import type { CatalogSchemaLookup } from './catalog-schemas.js';
import { asError, ClaimDeadlinePassedError, ClaimHeldError, InboxWriteError, MessageRejectedError } from './errors.js';
import type { Inbox } from './inbox.js';
import type { LegacyState } from './inbox-records.js';
import type { InboxSnapshot } from './inbox-snapshot.js';
import { transactItemProblem } from './inbox-write-failures.js';
import { excerpt } from './limits.js';
import { parseMessage } from './parse.js';
import { type CommitDeps, type PendingCommit, settleCommit } from './pending-commit.js';
import { replayOf } from './replay-marker.js';
import { type Trust, trustProblem } from './trust.js';
import type { ConsumerLogger, ConsumerMessage, EventHandler, MessageOutcome, TransactItem } from './types.js';
import { rejected, validateData } from './validate-data.js';

/** What handling one message needs; built once per consumer. */
export interface MessageHandlingDeps {
  readonly consumer: string;
  // biome-ignore lint/suspicious/noExplicitAny: each handler narrows its own data type
  readonly handlers: Readonly<Record<string, EventHandler<any>>>;
  readonly inbox: Inbox;
  readonly logger: ConsumerLogger;
  readonly trust: Trust;
  /** The schemas of the `catalog` option, by the envelope's declared version. */
  readonly catalog?: CatalogSchemaLookup;
}

/** How log lines about handling an event name it. */
const logFields = (deps: MessageHandlingDeps, envelope: OutboxEnvelope) => ({
  consumer: deps.consumer,
  eventId: envelope.id,
  type: envelope.type,
});

/**
 * What the record of an event under the key of earlier releases says, from the batch's snapshot
 * when it read the key; a claim found there is read again, as it may have completed or lapsed since.
 */
async function legacyState(deps: MessageHandlingDeps, envelope: OutboxEnvelope, snapshot: InboxSnapshot): Promise<LegacyState> {
  const { legacy } = deps.inbox.keysOf(envelope);
  const seen = legacy === undefined ? undefined : snapshot.lookup(legacy);
  if (seen?.read === true && seen.record?.status !== 'IN_PROGRESS') return deps.inbox.legacyStateOf(seen.record);
  return deps.inbox.legacyState(envelope);
}

/** One event of a message to run under the inbox, and how. */
export interface EventToRun {
  readonly message: ConsumerMessage;
  readonly event: PreparedEvent;
  /** When a claim taken now lapses (epoch seconds), instead of the inbox's claim timeout. */
  readonly claimUntil: number | undefined;
  /** The inbox records the batch's read found and its own commits, so the event reads only what they do not hold. */
  readonly snapshot: InboxSnapshot;
  /** A `transaction` handler's writes and inbox record are returned to commit later instead of committed. */
  readonly defer: boolean;
}

/** What a handler's context holds in either mode. */
const handlerContext = (deps: MessageHandlingDeps, { message, event }: EventToRun) => ({
  consumer: deps.consumer,
  ...(message.receiveCount === undefined ? {} : { receiveCount: message.receiveCount }),
  ...(event.replayId === undefined ? {} : { replayId: event.replayId }),
});

/** `envelope` is the event's, its data as the schema gave it. */
async function runWithTransaction(
  deps: MessageHandlingDeps,
  run: EventToRun,
  handler: Extract<EventHandler, { idempotency?: 'transaction' }>,
  envelope: OutboxEnvelope,
): Promise<'processed' | 'duplicate' | Deferred> {
  const { snapshot } = run;
  // Cheap skip for redeliveries; the conditional inbox Put below is what actually guarantees once.
  // A claim (IN_PROGRESS, left by the event's handler in claim mode) is not a done event: the commit decides.
  const own = snapshot.lookup(deps.inbox.keysOf(envelope).own);
  // Done, as the batch's read found it or this batch committed it: nothing more to read.
  if (own.read && own.record !== undefined && own.record.status !== 'IN_PROGRESS') return 'duplicate';
  const [existing, legacy] = await Promise.all([own.read ? own.record : deps.inbox.find(envelope), legacyState(deps, envelope, snapshot)]);
  if (existing !== undefined && existing.status !== 'IN_PROGRESS') return 'duplicate';
  if (legacy.status === 'duplicate') return 'duplicate';
  if (legacy.status === 'held') throw new ClaimHeldError(envelope.id, legacy.expiresAt);
  const writes: TransactItem[] = [];
  let open = true;
  try {
    await handler.handle(envelope, {
      ...handlerContext(deps, run),
      write: (item) => {
        // A write added once the handler has returned (a promise not awaited) would miss the commit and be lost.
        if (!open) {
          const error = new InboxWriteError(
            `ctx.write was called after the handler of event ${envelope.id} (${envelope.type}) had returned, so its write is not part of the event's transaction and is lost; allowed: writes added before handle() settles (await every promise that adds one)`,
          );
          deps.logger.error('A write was added after the handler returned; it is lost', { ...logFields(deps, envelope), error });
          throw error;
        }
        const problem = transactItemProblem(item);
        if (problem !== undefined) {
          throw new InboxWriteError(
            `ctx.write for event ${envelope.id} (${envelope.type}) ${problem}; allowed: one transact item, { Put: { TableName, Item } }, { Update | Delete | ConditionCheck: { TableName, Key, … } }. Nothing was written.`,
          );
        }
        writes.push(item);
      },
    });
  } finally {
    open = false;
  }
  const takesOver = existing?.status === 'IN_PROGRESS';
  if (run.defer) return { writes, takesOver };
  return settleCommit(deps, envelope, await deps.inbox.commit(envelope, writes), takesOver);
}

type Deferred = Pick<PendingCommit, 'writes' | 'takesOver'>;

/**
 * `envelope` is the event's, its data as the schema gave it. `unrecorded`: the handler ran, but
 * its claim's completion failed or found the claim taken over, so the event is not `COMPLETED`.
 */
async function runWithClaim(
  deps: MessageHandlingDeps,
  run: EventToRun,
  handler: Extract<EventHandler, { idempotency: 'claim' }>,
  envelope: OutboxEnvelope,
): Promise<'processed' | 'unrecorded' | 'duplicate'> {
  const { snapshot } = run;
  // Done, as the batch's read found it or this batch committed it: no claim to write (a COMPLETED record never changes back).
  const own = snapshot.lookup(deps.inbox.keysOf(envelope).own);
  if (own.read && own.record !== undefined && own.record.status !== 'IN_PROGRESS') return 'duplicate';
  // A record under the key of an earlier release: that release handled the event, or is handling it.
  const legacy = await legacyState(deps, envelope, snapshot);
  if (legacy.status === 'duplicate') return 'duplicate';
  if (legacy.status === 'held') throw new ClaimHeldError(envelope.id, legacy.expiresAt);
  const claim = await deps.inbox.claim(envelope, run.claimUntil);
  if (claim.status === 'duplicate') return 'duplicate';
  if (claim.status === 'held') throw new ClaimHeldError(envelope.id, claim.expiresAt);
  if (claim.status === 'late') throw new ClaimDeadlinePassedError(envelope.id, claim.until);
  const event = logFields(deps, envelope);
  if (claim.tookOver) deps.logger.warn('Took over an expired claim', event);
  try {
    await handler.handle(envelope, { ...handlerContext(deps, run), claimExpiresAt: claim.expiresAt * 1000 });
  } catch (error) {
    // The handler's error is the message's; a release that fails too only delays the retry until the claim expires.
    await deps.inbox
      .release(envelope, claim.token)
      .catch((releaseError: unknown) =>
        deps.logger.error('Releasing the claim failed; the retry waits until the claim expires', { ...event, error: releaseError }),
      );
    throw error;
  }
  // The side effect has happened: failing the message now would run it again once the claim expires.
  const completed = await deps.inbox.complete(envelope, claim.token).catch((error: unknown) => {
    deps.logger.error(
      'The event was handled but recording it failed; a redelivery after the claim expires would run the side effect again',
      { ...event, error },
    );
    return undefined;
  });
  if (completed === false)
    deps.logger.warn('The claim expired while the handler ran and was taken over; the side effect may run twice', event);
  return completed === true ? 'processed' : 'unrecorded';
}

/** One event of a message with the handler that takes it. */
export interface PreparedEvent {
  readonly envelope: OutboxEnvelope;
  readonly handler: EventHandler;
  /** The replay that sent the event again (its `outbox-replay` message attribute); absent for a live event. */
  readonly replayId?: string;
}

/**
 * A message parsed, trusted and dispatched, ready to run: its events in order (several in a
 * CloudEvents batch), the first also as `envelope` and `handler`; or its outcome already (rejected).
 */
export type PreparedMessage =
  | { readonly status: 'done'; readonly outcome: MessageOutcome }
  | ({ readonly status: 'ready'; readonly events: readonly PreparedEvent[] } & PreparedEvent);

/**
 * Parses a message, checks whom it comes from and finds each event's handler; reads nothing. A
 * batch with an event no handler takes is rejected whole, before any of its events runs.
 */
export function prepareMessage(deps: MessageHandlingDeps, message: ConsumerMessage): PreparedMessage {
  const parsed = parseMessage(message.body);
  if (parsed.status === 'rejected') return { status: 'done', outcome: rejected(message.messageId, parsed.error) };
  // Before the inbox is read: a forged event must not even find out whether its id was handled.
  const untrusted = trustProblem(deps.trust, parsed, message);
  if (untrusted !== undefined) return { status: 'done', outcome: rejected(message.messageId, untrusted) };
  const replay = replayOf(message);
  if (!replay.ok) return { status: 'done', outcome: rejected(message.messageId, replay.error) };
  const { replayId } = replay;
  const events: PreparedEvent[] = [];
  for (const envelope of parsed.envelopes) {
    const handler = Object.hasOwn(deps.handlers, envelope.type) ? deps.handlers[envelope.type] : undefined;
    if (handler === undefined) {
      const known = Object.keys(deps.handlers).map((t) => JSON.stringify(t));
      const error = new MessageRejectedError(
        'UNKNOWN_EVENT_TYPE',
        `Event ${envelope.id} has type ${excerpt(envelope.type)}, which consumer ${deps.consumer} has no handler for; allowed: ${known.join(', ')}`,
      );
      return { status: 'done', outcome: rejected(message.messageId, error) };
    }
    events.push(replayId === undefined ? { envelope, handler } : { envelope, handler, replayId });
  }
  return { status: 'ready', events, ...events[0]! };
}

/** What running an event came to: its outcome, or (deferred) a commit still to make. */
export type EventRun = EventOutcome | { readonly pending: PendingCommit };
export type EventOutcome = { readonly outcome: MessageOutcome; readonly envelope?: OutboxEnvelope };

/**
 * Runs one prepared event of a message: validate, run the handler under the inbox. Never throws: every
 * failure becomes an outcome that names its reason.
 */
export async function runMessage(deps: MessageHandlingDeps, run: Omit<EventToRun, 'defer'>): Promise<EventOutcome> {
  return runEvent(deps, { ...run, defer: false }) as Promise<EventOutcome>;
}

/** {@link runMessage}; with `defer`, a `transaction` handler's writes and inbox record are returned to commit later instead of committed. */
export async function runEvent(deps: MessageHandlingDeps, run: EventToRun): Promise<EventRun> {
  const ran = await runUnderInbox(deps, run);
  const { own, legacy } = deps.inbox.keysOf(run.event.envelope);
  if (legacy !== undefined) run.snapshot.forget(legacy);
  // Done only once its COMPLETED record is written: a later delivery in the batch of an event not recorded goes through the inbox again.
  if ('outcome' in ran && ran.outcome.status === 'processed' && !('unrecorded' in ran)) {
    run.snapshot.committed(own, deps.inbox.completedRecord(run.event.envelope));
  } else run.snapshot.forget(own);
  if (!('unrecorded' in ran)) return ran;
  const { unrecorded: _, ...outcome } = ran;
  return outcome;
}

/** Notes in the batch's snapshot that its event is done: its `COMPLETED` record was just committed. */
export function rememberCommitted(deps: Pick<CommitDeps, 'inbox'>, snapshot: InboxSnapshot, envelope: OutboxEnvelope): void {
  snapshot.committed(deps.inbox.keysOf(envelope).own, deps.inbox.completedRecord(envelope));
}

async function runUnderInbox(
  deps: MessageHandlingDeps,
  run: EventToRun,
): Promise<EventRun | (EventOutcome & { readonly unrecorded: true })> {
  const { message, event } = run;
  const { handler } = event;
  const base = { messageId: message.messageId, eventId: event.envelope.id, type: event.envelope.type };
  try {
    // A schema may throw instead of reporting issues (a transform or refinement that fails): that fails this message only.
    // The handler's own schema, else the one the consumer's catalog declares for the envelope's version.
    const validated = await validateData(handler.schema ?? deps.catalog?.(event.envelope), event.envelope, message.messageId);
    if (!validated.ok) return { outcome: validated.outcome };
    const { envelope } = validated;
    if (handler.idempotency === 'claim') {
      const status = await runWithClaim(deps, run, handler, envelope);
      if (status === 'unrecorded') return { outcome: { status: 'processed', ...base }, envelope, unrecorded: true };
      return { outcome: { status, ...base }, envelope };
    }
    const status = await runWithTransaction(deps, run, handler, envelope);
    if (typeof status === 'object') return { pending: { envelope, messageId: message.messageId, ...status } };
    return { outcome: { status, ...base }, envelope };
  } catch (error) {
    return {
      outcome: { status: 'failed', ...base, error: asError(error) },
      envelope: event.envelope,
    };
  }
}
