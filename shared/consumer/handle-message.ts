import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { CatalogSchemaLookup } from '../catalog/consumer-schemas.js';
import type { OutboxEnvelope } from '../envelope.js';
import { ClaimDeadlinePassedError, ClaimHeldError, InboxWriteError, MessageRejectedError } from './errors.js';
import type { Inbox, LegacyState } from './inbox.js';
import { InboxSnapshot } from './inbox-snapshot.js';
import { excerpt, jsonExcerpt } from './limits.js';
import { parseMessage } from './parse.js';
import { type CommitDeps, type PendingCommit, settleCommit } from './pending-commit.js';
import { replayOf } from './replay-marker.js';
import { type Trust, trustProblem } from './trust.js';
import type { ConsumerLogger, ConsumerMessage, EventHandler, MessageOutcome, TransactItem } from './types.js';

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

const rejected = (messageId: string, error: MessageRejectedError): MessageOutcome => ({ status: 'rejected', messageId, error });

/** How log lines about handling an event name it. */
const logFields = (deps: MessageHandlingDeps, envelope: OutboxEnvelope) => ({
  consumer: deps.consumer,
  eventId: envelope.id,
  type: envelope.type,
});

/** The schema's issues as text; never throws (issues come from the schema, and may hold anything), so a rejection stays one. */
function describeIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  try {
    return issues
      .slice(0, 5)
      .map((issue) => {
        const path = (issue.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.');
        const text = path === '' ? String(issue.message) : `${path}: ${String(issue.message)}`;
        return text.length > 200 ? `${text.slice(0, 200)}…` : text;
      })
      .join('; ');
  } catch (error) {
    return `(the issues cannot be shown: ${error instanceof Error ? error.message : 'unknown error'})`;
  }
}

async function validate(
  schema: StandardSchemaV1 | undefined,
  envelope: OutboxEnvelope,
  messageId: string,
): Promise<{ ok: true; envelope: OutboxEnvelope } | { ok: false; outcome: MessageOutcome }> {
  if (schema === undefined) return { ok: true, envelope };
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(envelope.data);
  } catch (error) {
    // A transform or refinement that throws instead of reporting an issue: the message fails and is retried.
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`The schema of ${JSON.stringify(envelope.type)} threw while validating the data of event ${envelope.id}: ${reason}`, {
      cause: error,
    });
  }
  if (result.issues !== undefined) {
    const error = new MessageRejectedError(
      'SCHEMA_VALIDATION_FAILED',
      `The data of event ${envelope.id} (${envelope.type}) failed its schema: ${describeIssues(result.issues)}; got ${jsonExcerpt(envelope.data)}`,
    );
    return { ok: false, outcome: rejected(messageId, error) };
  }
  return { ok: true, envelope: { ...envelope, data: result.value } };
}

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

async function runWithTransaction(
  deps: MessageHandlingDeps,
  handler: Extract<EventHandler, { idempotency?: 'transaction' }>,
  envelope: OutboxEnvelope,
  message: ConsumerMessage,
  snapshot: InboxSnapshot,
  replayId: string | undefined,
  defer: boolean,
): Promise<'processed' | 'duplicate' | Deferred> {
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
      consumer: deps.consumer,
      ...(message.receiveCount === undefined ? {} : { receiveCount: message.receiveCount }),
      ...(replayId === undefined ? {} : { replayId }),
      write: (item) => {
        // A write added once the handler has returned (a promise not awaited) would miss the commit and be lost.
        if (!open) {
          const error = new InboxWriteError(
            `ctx.write was called after the handler of event ${envelope.id} (${envelope.type}) had returned, so its write is not part of the event's transaction and is lost; allowed: writes added before handle() settles (await every promise that adds one)`,
          );
          deps.logger.error('A write was added after the handler returned; it is lost', { ...logFields(deps, envelope), error });
          throw error;
        }
        writes.push(item);
      },
    });
  } finally {
    open = false;
  }
  const takesOver = existing?.status === 'IN_PROGRESS';
  if (defer) return { writes, takesOver };
  return settleCommit(deps, envelope, await deps.inbox.commit(envelope, writes), takesOver);
}

type Deferred = Pick<PendingCommit, 'writes' | 'takesOver'>;

async function runWithClaim(
  deps: MessageHandlingDeps,
  handler: Extract<EventHandler, { idempotency: 'claim' }>,
  envelope: OutboxEnvelope,
  message: ConsumerMessage,
  claimUntil: number | undefined,
  snapshot: InboxSnapshot,
  replayId: string | undefined,
): Promise<'processed' | 'duplicate'> {
  // Done, as the batch's read found it or this batch committed it: no claim to write (a COMPLETED record never changes back).
  const own = snapshot.lookup(deps.inbox.keysOf(envelope).own);
  if (own.read && own.record !== undefined && own.record.status !== 'IN_PROGRESS') return 'duplicate';
  // A record under the key of an earlier release: that release handled the event, or is handling it.
  const legacy = await legacyState(deps, envelope, snapshot);
  if (legacy.status === 'duplicate') return 'duplicate';
  if (legacy.status === 'held') throw new ClaimHeldError(envelope.id, legacy.expiresAt);
  const claim = await deps.inbox.claim(envelope, claimUntil);
  if (claim.status === 'duplicate') return 'duplicate';
  if (claim.status === 'held') throw new ClaimHeldError(envelope.id, claim.expiresAt);
  if (claim.status === 'late') throw new ClaimDeadlinePassedError(envelope.id, claim.until);
  const event = logFields(deps, envelope);
  if (claim.tookOver) deps.logger.warn('Took over an expired claim', event);
  try {
    await handler.handle(envelope, {
      consumer: deps.consumer,
      ...(message.receiveCount === undefined ? {} : { receiveCount: message.receiveCount }),
      ...(replayId === undefined ? {} : { replayId }),
      claimExpiresAt: claim.expiresAt * 1000,
    });
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
      {
        ...event,
        error,
      },
    );
    return true;
  });
  if (!completed) deps.logger.warn('The claim expired while the handler ran and was taken over; the side effect may run twice', event);
  return 'processed';
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

/**
 * Runs one prepared event of a message: validate, run the handler under the inbox. Never throws: every
 * failure becomes an outcome that names its reason. `claimUntil` (epoch seconds) is when a claim
 * taken now lapses, instead of the inbox's claim timeout; `snapshot` holds the inbox records the
 * batch's read found, so the message reads only what it did not.
 */
export async function runMessage(
  deps: MessageHandlingDeps,
  message: ConsumerMessage,
  prepared: PreparedEvent,
  claimUntil?: number,
  snapshot: InboxSnapshot = InboxSnapshot.empty(),
): Promise<{ outcome: MessageOutcome; envelope?: OutboxEnvelope }> {
  return runEvent(deps, message, prepared, claimUntil, snapshot, false) as Promise<{ outcome: MessageOutcome; envelope?: OutboxEnvelope }>;
}

/** What running an event came to: its outcome, or (deferred) a commit still to make. */
export type EventRun = { readonly outcome: MessageOutcome; readonly envelope?: OutboxEnvelope } | { readonly pending: PendingCommit };

/** {@link runMessage}; with `defer`, a `transaction` handler's writes and inbox record are returned to commit later instead of committed. */
export async function runEvent(
  deps: MessageHandlingDeps,
  message: ConsumerMessage,
  prepared: PreparedEvent,
  claimUntil: number | undefined,
  snapshot: InboxSnapshot,
  defer: boolean,
): Promise<EventRun> {
  const run = await runUnderInbox(deps, message, prepared, claimUntil, snapshot, defer);
  const { own, legacy } = deps.inbox.keysOf(prepared.envelope);
  if (legacy !== undefined) snapshot.forget(legacy);
  if ('outcome' in run && run.outcome.status === 'processed') snapshot.committed(own, deps.inbox.completedRecord(prepared.envelope));
  else snapshot.forget(own);
  return run;
}

/** Notes in the batch's snapshot that its event is done: its `COMPLETED` record was just committed. */
export function rememberCommitted(deps: Pick<CommitDeps, 'inbox'>, snapshot: InboxSnapshot, envelope: OutboxEnvelope): void {
  snapshot.committed(deps.inbox.keysOf(envelope).own, deps.inbox.completedRecord(envelope));
}

async function runUnderInbox(
  deps: MessageHandlingDeps,
  message: ConsumerMessage,
  prepared: PreparedEvent,
  claimUntil: number | undefined,
  snapshot: InboxSnapshot,
  defer: boolean,
): Promise<EventRun> {
  const { handler } = prepared;
  const base = { messageId: message.messageId, eventId: prepared.envelope.id, type: prepared.envelope.type };
  try {
    // A schema may throw instead of reporting issues (a transform or refinement that fails): that fails this message only.
    // The handler's own schema, else the one the consumer's catalog declares for the envelope's version.
    const schema = handler.schema ?? deps.catalog?.(prepared.envelope);
    if (schema instanceof MessageRejectedError) return { outcome: rejected(message.messageId, schema) };
    const validated = await validate(schema, prepared.envelope, message.messageId);
    if (!validated.ok) return { outcome: validated.outcome };
    const { envelope } = validated;
    const status =
      handler.idempotency === 'claim'
        ? await runWithClaim(deps, handler, envelope, message, claimUntil, snapshot, prepared.replayId)
        : await runWithTransaction(deps, handler, envelope, message, snapshot, prepared.replayId, defer);
    if (typeof status === 'object') return { pending: { envelope, messageId: message.messageId, ...status } };
    return { outcome: { status, ...base }, envelope };
  } catch (error) {
    return {
      outcome: { status: 'failed', ...base, error: error instanceof Error ? error : new Error(String(error)) },
      envelope: prepared.envelope,
    };
  }
}
