import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { throttledTransaction } from '../aws/transient-transaction-errors.js';
import { logAsIs } from '../aws/unfiltered-log.js';
import { backoffDelay, sleep } from '../backoff.js';
import { TABLE } from '../table.js';
import { InboxConflictError, InboxWriteError } from './errors.js';
import { type InboxEventKey, inboxKey, legacyInboxKey } from './inbox-keys.js';
import {
  type ClaimResult,
  type CommitResult,
  DEFAULT_CLAIM_TIMEOUT_SECONDS,
  DEFAULT_INBOX_RETENTION_SECONDS,
  INBOX_KIND,
  type InboxEvent,
  type InboxRecord,
  type LegacyState,
  MAX_HANDLER_WRITES,
  THROTTLED_COMMIT_RETRY,
} from './inbox-records.js';
import { checkWriteValues, commitFailure, recordAsFound } from './inbox-write-failures.js';
import type { InboxOptions, TransactItem } from './types.js';

export { INBOX_PREFIX, INBOX_SORT_KEY, type InboxEventKey, inboxKey } from './inbox-keys.js';

/** The inbox options as the consumer uses them: its client a DocumentClient (`createConsumer` wraps any other). */
export interface ResolvedInboxOptions extends InboxOptions {
  readonly document: DynamoDBDocumentClient;
}

/**
 * The condition of a Put that takes an event's inbox record, a claim's or a transaction's: no
 * record exists yet, or it is a claim that has expired by `nowSeconds` (taken over). On failure
 * the record as it is comes back, to tell a claim that holds the event from a done one.
 */
const takesRecord = (nowSeconds: number) => ({
  ConditionExpression: 'attribute_not_exists(#pk) OR (#status = :inProgress AND #claimExpiresAt <= :now)',
  ExpressionAttributeNames: { '#pk': TABLE.partitionKey, '#status': 'status', '#claimExpiresAt': 'claimExpiresAt' },
  ExpressionAttributeValues: { ':inProgress': 'IN_PROGRESS', ':now': nowSeconds },
  ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
});

/**
 * The consumer's record of handled events, keyed by consumer name, event id and source. Records
 * expire by TTL (`expiresAt`) after `retentionSeconds`.
 *
 * @example
 * ```ts
 * const inbox = new Inbox('billing', { document, tableName });
 * const result = await inbox.commit({ id, source, type }, [{ Put: { TableName, Item } }]);
 * if (result.status === 'duplicate') return; // handled before: nothing was written
 * ```
 */
export class Inbox {
  readonly #consumer: string;
  readonly #options: ResolvedInboxOptions;
  readonly #now: () => number;

  constructor(consumer: string, options: ResolvedInboxOptions, now: () => number = Date.now) {
    this.#consumer = consumer;
    this.#options = options;
    this.#now = now;
  }

  get retentionSeconds(): number {
    return this.#options.retentionSeconds ?? DEFAULT_INBOX_RETENTION_SECONDS;
  }

  get claimTimeoutSeconds(): number {
    return this.#options.claimTimeoutSeconds ?? DEFAULT_CLAIM_TIMEOUT_SECONDS;
  }

  /** The record of an event, read consistently, or `undefined`. */
  async find(event: InboxEventKey): Promise<InboxRecord | undefined> {
    return this.#get(inboxKey(this.#consumer, event));
  }

  /** The keys an event's records may be under: its own and, unless `legacyKeyCheck` is off, the key of earlier releases. */
  keysOf(event: InboxEventKey): { readonly own: { pk: string; sk: string }; readonly legacy?: { pk: string; sk: string } } {
    const own = inboxKey(this.#consumer, event);
    return this.#options.legacyKeyCheck === false ? { own } : { own, legacy: legacyInboxKey(this.#consumer, event.id) };
  }

  /** What a record under the key of earlier releases, as read, says (see {@link legacyState}). */
  legacyStateOf(record: InboxRecord | undefined): LegacyState {
    if (record === undefined) return { status: 'none' };
    if (record.status !== 'IN_PROGRESS') return { status: 'duplicate' };
    const expiresAt = record.claimExpiresAt ?? 0;
    return expiresAt > Math.floor(this.#now() / 1000) ? { status: 'held', expiresAt } : { status: 'none' };
  }

  /**
   * What a record of the event's id under the key of releases before the source was part of it
   * says: `duplicate` (handled then), `held` (an unexpired claim of a worker of that release), or
   * `none` (no record, an expired claim, or `legacyKeyCheck` off). Such a record stands for the
   * event whatever its source: only events of the configured sources reach the inbox now.
   */
  async legacyState(event: InboxEventKey): Promise<LegacyState> {
    if (this.#options.legacyKeyCheck === false) return { status: 'none' };
    return this.legacyStateOf(await this.#get(legacyInboxKey(this.#consumer, event.id)));
  }

  async #get(key: Record<string, string>): Promise<InboxRecord | undefined> {
    const { Item } = await this.#options.document.send(
      logAsIs(new GetCommand({ TableName: this.#options.tableName, Key: key, ConsistentRead: true })),
    );
    return Item as InboxRecord | undefined;
  }

  /** What every inbox record of an event holds besides its status: its key, whose it is, and when it expires (from `nowMs`). */
  #record(event: InboxEvent, nowMs: number): Omit<InboxRecord, 'status'> {
    // One object literal of a fixed shape, the key's parts taken apart: the DocumentClient walks it for every commit.
    const { pk, sk } = inboxKey(this.#consumer, event);
    return {
      pk,
      sk,
      kind: INBOX_KIND,
      consumer: this.#consumer,
      eventId: event.id,
      eventSource: event.source,
      eventType: event.type,
      expiresAt: Math.floor(nowMs / 1000) + this.retentionSeconds,
    };
  }

  /** An event's `COMPLETED` record as a commit at `nowMs` writes it. */
  completedRecord(event: InboxEvent, nowMs: number = this.#now()): InboxRecord {
    return { ...this.#record(event, nowMs), status: 'COMPLETED', processedAt: new Date(nowMs).toISOString() };
  }

  /** The conditional Put of an event's `COMPLETED` record that closes its transaction (see {@link commit}). */
  completedPut(event: InboxEvent): TransactItem {
    const now = this.#now();
    return { Put: { TableName: this.#options.tableName, Item: this.completedRecord(event, now), ...takesRecord(Math.floor(now / 1000)) } };
  }

  /**
   * Commits the handler's writes and a `COMPLETED` inbox record in one transaction. The inbox Put
   * is conditional on no record existing, so a second commit of the same event writes nothing
   * and comes back `duplicate`; or on the record being a claim that has expired (left by a
   * handler of the event in `claim` mode, as when an event type moves from `claim` to
   * `transaction`), which the commit takes over. An unexpired claim writes nothing and comes back
   * `held`: the event is not done, so it must not be taken for a duplicate. Throttled (the whole
   * request, or an action of it, and no other reason decides: not the inbox record's condition, nor a handler's),
   * it is sent again after a backoff, {@link THROTTLED_COMMIT_RETRY} attempts in all. More than
   * {@link MAX_HANDLER_WRITES} writes, or a write holding a value DynamoDB would refuse or not store
   * as given ({@link checkWriteValues}), throw an `InboxWriteError` before anything is sent.
   * `valuesChecked`: the writes passed that check already (a `commit: 'batch'` group's sizing ran
   * it), so they are not walked again.
   */
  async commit(event: InboxEvent, writes: readonly TransactItem[], valuesChecked = false): Promise<CommitResult> {
    if (writes.length > MAX_HANDLER_WRITES) {
      throw new InboxWriteError(
        `The handler of event ${event.id} (${event.type}) added ${writes.length} writes; allowed: at most ${MAX_HANDLER_WRITES}, since the inbox record takes the 100th action of the transaction. Nothing was written.`,
      );
    }
    if (!valuesChecked) checkWriteValues(event, writes, this.#options.document.config?.translateConfig?.marshallOptions);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#options.document.send(logAsIs(new TransactWriteCommand({ TransactItems: [...writes, this.completedPut(event)] })));
        return { status: 'committed' };
      } catch (error) {
        try {
          return commitFailure(event, writes, error, attempt, this.#options.document.config?.translateConfig?.marshallOptions);
        } catch (failure) {
          // Throttled, and nothing else decides (the inbox record's condition, a handler's): nothing of it was written.
          const retry = failure instanceof InboxConflictError && throttledTransaction(error) !== undefined;
          if (!retry || attempt >= THROTTLED_COMMIT_RETRY.maxAttempts) throw failure;
        }
        await sleep(backoffDelay(THROTTLED_COMMIT_RETRY, attempt));
      }
    }
  }

  /**
   * Claims an event before a side effect outside DynamoDB: succeeds when no record exists or the
   * existing claim has expired (taken over); a `COMPLETED` record means `duplicate`. The claim
   * lapses at `until` (epoch seconds) when given, else after the claim timeout; an `until` that
   * has passed already writes nothing and comes back `late`.
   */
  async claim(event: InboxEvent, until?: number): Promise<ClaimResult> {
    const now = this.#now();
    const nowSeconds = Math.floor(now / 1000);
    if (until !== undefined && until <= nowSeconds) return { status: 'late', until };
    // Rounded up, so a claim never lasts less than the timeout (takeover compares whole seconds).
    const expiresAt = until ?? Math.ceil(now / 1000) + this.claimTimeoutSeconds;
    const token = crypto.randomUUID();
    const kept = this.#record(event, now);
    // TTL may delete a record any time after its expiresAt: a claim must not go before it lapses, whatever the retention.
    const record: InboxRecord = {
      ...kept,
      expiresAt: Math.max(kept.expiresAt, expiresAt),
      status: 'IN_PROGRESS',
      claimExpiresAt: expiresAt,
      claimToken: token,
    };
    try {
      const output = await this.#options.document.send(
        logAsIs(
          new PutCommand({
            TableName: this.#options.tableName,
            Item: record,
            ...takesRecord(nowSeconds),
            ReturnValues: 'ALL_OLD',
          }),
        ),
      );
      return { status: 'claimed', token, expiresAt, tookOver: output.Attributes !== undefined };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const old = recordAsFound(error.Item);
      // The SDK retried a Put whose first attempt was applied but whose answer was lost: the claim is ours.
      if (old?.status === 'IN_PROGRESS' && old.claimToken === token) return { status: 'claimed', token, expiresAt, tookOver: false };
      if (old?.status === 'IN_PROGRESS') return { status: 'held', expiresAt: old.claimExpiresAt ?? expiresAt };
      return { status: 'duplicate' };
    }
  }

  /**
   * Marks a claimed event `COMPLETED` (the record keeps the claim's token, so a retried update
   * whose first attempt was applied is recognised); `false` when the claim was lost (expired and
   * taken over).
   */
  async complete(event: InboxEventKey, token: string): Promise<boolean> {
    return this.#ifClaimHeld(
      new UpdateCommand({
        TableName: this.#options.tableName,
        Key: inboxKey(this.#consumer, event),
        UpdateExpression: 'SET #status = :completed, processedAt = :at REMOVE claimExpiresAt',
        ConditionExpression: 'claimToken = :token AND #status = :inProgress',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':completed': 'COMPLETED',
          ':inProgress': 'IN_PROGRESS',
          ':at': new Date(this.#now()).toISOString(),
          ':token': token,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
      (old) => old?.status === 'COMPLETED' && old.claimToken === token,
    );
  }

  /** Deletes a claim after the handler failed, so the next delivery runs it at once; `false` when the claim was lost. */
  async release(event: InboxEventKey, token: string): Promise<boolean> {
    return this.#ifClaimHeld(
      new DeleteCommand({
        TableName: this.#options.tableName,
        Key: inboxKey(this.#consumer, event),
        ConditionExpression: 'claimToken = :token AND #status = :inProgress',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':token': token, ':inProgress': 'IN_PROGRESS' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
      (old) => old === undefined,
    );
  }

  /**
   * Runs a write conditional on holding the claim. When the condition fails, `alreadyDone` is
   * asked about the record as it is: an SDK retry of a write whose first attempt was applied
   * (its answer lost) finds the record as that attempt left it, and is no lost claim.
   */
  async #ifClaimHeld(command: UpdateCommand | DeleteCommand, alreadyDone: (old: InboxRecord | undefined) => boolean): Promise<boolean> {
    try {
      await this.#options.document.send(logAsIs(command) as UpdateCommand);
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return alreadyDone(recordAsFound(error.Item));
    }
  }
}
