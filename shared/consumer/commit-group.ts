import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { marshallOptions } from '@aws-sdk/util-dynamodb';
import { errorName } from '../aws/error-name.js';
import { throttledTransaction } from '../aws/transient-transaction-errors.js';
import { logAsIs } from '../aws/unfiltered-log.js';
import { backoffDelay, sleep } from '../backoff.js';
import type { OutboxEnvelope } from '../envelope.js';
import { TABLE } from '../table.js';
import { type MarshalledOperation, marshalOperation } from '../write/operation-size.js';
import { MAX_REQUEST_BYTES, type TransactOperation } from '../write/types.js';
import { InboxConflictError } from './errors.js';
import { MAX_HANDLER_WRITES, THROTTLED_COMMIT_RETRY } from './inbox-records.js';
import { itemKeyText } from './item-key.js';
import { type CommitDeps, commitPending, committedOutcome, failedOutcome, type PendingCommit } from './pending-commit.js';
import { clientRegionOf, sameTable, type TableIdentity, tableIdentity } from './table-identity.js';
import type { MessageOutcome, TransactItem } from './types.js';

/** TransactWriteItems takes 100 actions. */
export const MAX_GROUP_ACTIONS = MAX_HANDLER_WRITES + 1;

/**
 * DynamoDB's TransactWriteItems reference: "The aggregate size of the items in the transaction
 * cannot exceed 4 MB" (and each item at most 400 KB), taken as 4 × 1024 × 1024 bytes and
 * counted as the write helper counts a transaction: attribute names and values, and expressions.
 */
export const MAX_GROUP_BYTES = MAX_REQUEST_BYTES;

/** Where a group's requests run: its transaction, and an event's own commit (a group of one, the fallback). */
export interface CommitScopes {
  group<T>(entries: readonly PendingCommit[], run: () => Promise<T>): Promise<T>;
  event<T>(pending: PendingCommit, run: () => Promise<T>): Promise<T>;
}

/** What a group's commit came to: each of its events' outcome, asked in the group's order. */
export type GroupOutcomes = (pending: PendingCommit) => Promise<MessageOutcome>;

const aggregateOf = (envelope: OutboxEnvelope): string => `${envelope.aggregatetype}\u0000${envelope.subject}`;

/** An item a write names: its table's region and name with its key as one text, and the table's account when its ARN says it. */
interface ItemRef {
  readonly key: string;
  readonly account: string | undefined;
}

/** The item `key` (its values marshalled) names in `table`: its key as DynamoDB tells items apart ({@link itemKeyText}). */
const itemRef = (table: TableIdentity, key: Readonly<Record<string, Record<string, unknown>>>): ItemRef => ({
  key: `${table.table}\u0000${itemKeyText(key)}`,
  account: table.account,
});

/**
 * The items the actions of an event's transaction name, from the actions as they are sent (their
 * values marshalled with the client's options, so `7`, `7n` and `NumberValue.from('7.0')` are one
 * item, as are a `Buffer` and a `Uint8Array` of the same bytes): `Update`, `Delete` and
 * `ConditionCheck` name their `Key`; a `Put` into the inbox's table (by its name or its ARN,
 * {@link sameTable}) has its `pk`/`sk` in the item, the event's own inbox record among them. A `Put`
 * elsewhere is not known: DynamoDB refuses a transaction with two actions on one item, and the
 * fallback commits each event on its own then. A table is read against the client's region
 * (`region`), as DynamoDB reads a name.
 */
function itemsOf(actions: readonly MarshalledOperation[], inboxTable: TableIdentity, region: string | undefined): ItemRef[] {
  const items: ItemRef[] = [];
  for (const { marshalled } of actions) {
    const [kind, body] = Object.entries(marshalled)[0] as [string, Record<string, unknown>];
    const table = tableIdentity(body.TableName as string | undefined, region);
    const values = body[kind === 'Put' ? 'Item' : 'Key'] as Record<string, Record<string, unknown>> | undefined;
    if (values === undefined) continue;
    if (kind !== 'Put') items.push(itemRef(table, values));
    else if (sameTable(table, inboxTable)) {
      const pk = values[TABLE.partitionKey];
      const sk = values[TABLE.sortKey];
      if (pk !== undefined && sk !== undefined) items.push(itemRef(table, { [TABLE.partitionKey]: pk, [TABLE.sortKey]: sk }));
    }
  }
  return items;
}

/**
 * An event as the group sizes it: the Put of its `COMPLETED` inbox record, built once (when its
 * handler has run, as `commit: 'event'` builds it right after the handler) and sent by the group's
 * transaction as sized; the items its actions name, how many actions and how many bytes they take.
 */
interface SizedEvent {
  readonly pending: PendingCommit;
  /** Its writes passed the write helper's value check as they were sized: `Inbox.commit` need not walk them again. */
  readonly checked: boolean;
  readonly completed: TransactItem;
  readonly items: readonly ItemRef[];
  readonly actions: number;
  readonly bytes: number;
}

/**
 * The open group of a worker under `commit: 'batch'`: the `transaction` events whose handlers have
 * run, whose writes and `COMPLETED` inbox records commit together in one `TransactWriteItems`.
 */
export class CommitGroup {
  readonly #deps: CommitDeps;
  readonly #document: DynamoDBDocumentClient;
  readonly #tableName: string;
  /** The client's region, once {@link ready} has read it; until then no ARN is taken for a name's table. */
  #region: string | undefined;
  #inboxTable: TableIdentity;
  #ready: Promise<void> | undefined;
  #entries: SizedEvent[] = [];
  /** The event {@link join} declined last, as sized: it joins the group once committed, not sized again. */
  #declined: SizedEvent | undefined;
  #aggregates = new Set<string>();
  /** Each item's text → the accounts it is in (`undefined`: a table named by its name, the client's account). */
  #items = new Map<string, Set<string | undefined>>();
  #actions = 0;
  #bytes = 0;

  constructor(deps: CommitDeps, document: DynamoDBDocumentClient, tableName: string) {
    this.#deps = deps;
    this.#document = document;
    this.#tableName = tableName;
    this.#inboxTable = tableIdentity(tableName, undefined);
  }

  /** Reads the client's region, so a table named by its name and by its ARN is known as one; call before {@link join}. */
  ready(): Promise<void> {
    this.#ready ??= clientRegionOf(this.#document).then((region) => {
      this.#region = region;
      this.#inboxTable = tableIdentity(this.#tableName, region);
    });
    return this.#ready;
  }

  /** Whether the group holds `item` already: same table and key, in the same account unless either's is the client's. */
  #holds(item: ItemRef): boolean {
    const accounts = this.#items.get(item.key);
    return accounts !== undefined && (item.account === undefined || accounts.has(undefined) || accounts.has(item.account));
  }

  /**
   * The event with its writes and inbox record as they are sent, marshalled with the client's
   * options as the write helper marshals its operations and sized alike. One that cannot be
   * sized (a value the write helper's check refuses, a `Put` item over 400 KB, a value the
   * DocumentClient cannot marshal) counts as too large for any group: it commits alone, and
   * `Inbox.commit`'s refusal (its check walks the writes again, to name what it refuses as the
   * handler's writes), DynamoDB's or the SDK's is its outcome, as with `commit: 'event'`.
   */
  #sized(pending: PendingCommit): SizedEvent {
    const options: marshallOptions = this.#document.config.translateConfig?.marshallOptions ?? {};
    const completed = this.#deps.inbox.completedPut(pending.envelope);
    const actions = [...pending.writes, completed];
    let marshalled: MarshalledOperation[] | undefined;
    try {
      marshalled = actions.map((action, index) => marshalOperation(action as TransactOperation, index, options));
    } catch {
      marshalled = undefined;
    }
    return {
      pending,
      checked: marshalled !== undefined,
      completed,
      items: marshalled === undefined ? [] : itemsOf(marshalled, this.#inboxTable, this.#region),
      actions: actions.length,
      bytes: marshalled === undefined ? Number.POSITIVE_INFINITY : marshalled.reduce((sum, action) => sum + action.size, 0),
    };
  }

  /** An event of the envelope's aggregate waits in the group: a handler of it must see that event's writes committed. */
  hasAggregate(envelope: OutboxEnvelope): boolean {
    return this.#aggregates.has(aggregateOf(envelope));
  }

  /** The group is past a transaction's limits: it holds one event that fits no transaction, which fails on its own commit. */
  get overLimit(): boolean {
    return this.#actions > MAX_GROUP_ACTIONS || this.#bytes > MAX_GROUP_BYTES;
  }

  /**
   * Adds the event when the group stays within 100 actions and 4 MB and none of its known items
   * is in the group already, or when the group is empty; `false` (nothing added) otherwise: commit
   * the group, then add the event to the empty group (as it was sized, its inbox record not built again).
   */
  join(pending: PendingCommit): boolean {
    const event = this.#declined?.pending === pending ? this.#declined : this.#sized(pending);
    this.#declined = undefined;
    const { items, actions, bytes } = event;
    const fits =
      this.#actions + actions <= MAX_GROUP_ACTIONS && this.#bytes + bytes <= MAX_GROUP_BYTES && !items.some((item) => this.#holds(item));
    if (!fits && this.#entries.length > 0) {
      this.#declined = event;
      return false;
    }
    this.#entries.push(event);
    this.#aggregates.add(aggregateOf(pending.envelope));
    for (const item of items) {
      const accounts = this.#items.get(item.key) ?? new Set();
      this.#items.set(item.key, accounts.add(item.account));
    }
    this.#actions += actions;
    this.#bytes += bytes;
    return true;
  }

  /**
   * Commits the group and empties it. A group of one sends the request `Inbox.commit` sends (which
   * retries throttling alike), its inbox record built as it is sent: its condition takes over a
   * claim that has lapsed by then, and no fallback would if a record built at join held it. A larger
   * one goes in one transaction of the writes and inbox records it was sized with (a claim that
   * lapsed after an event joined fails it, and the event's own commit below takes the claim over); when that fails nothing of it
   * was written, unless DynamoDB reports an earlier attempt of it still running
   * (`TransactionInProgressException`), which may commit. Throttled (the whole request, or an
   * action of it, whatever else failed beside it), it is sent again after a backoff
   * ({@link THROTTLED_COMMIT_RETRY}); still throttled, each event fails with an `InboxConflictError`,
   * so SQS delivers it again later: one transaction per event would add load while DynamoDB
   * throttles. Any other failure, each event commits on its own, in order, when its outcome is asked for (so an event after one that ends its message
   * or FIFO group is never committed), conditional on its inbox record: an event the earlier
   * attempt wrote is a duplicate then. `scopes` say where each request runs.
   */
  async commit(scopes: CommitScopes): Promise<GroupOutcomes> {
    const group = this.#entries;
    const entries = group.map((entry) => entry.pending);
    this.#entries = [];
    this.#aggregates = new Set();
    this.#items = new Map();
    this.#actions = 0;
    this.#bytes = 0;
    if (entries.length === 0) return () => Promise.reject(new Error('No event of this group was pending'));
    if (entries.length === 1) {
      const [{ pending: only, checked }] = group as [SizedEvent];
      const outcome = await scopes.event(only, () => commitPending(this.#deps, only, checked));
      return async () => outcome;
    }
    const items = group.flatMap(({ pending, completed }) => [...pending.writes, completed]);
    for (let attempt = 1; ; attempt++) {
      try {
        await scopes.group(entries, () => this.#document.send(logAsIs(new TransactWriteCommand({ TransactItems: items }))));
        return async (pending) => committedOutcome(this.#deps, pending);
      } catch (error) {
        const throttled = throttledTransaction(error);
        // Nothing of it was written: sent again after a backoff, as the write helper does.
        if (throttled !== undefined && attempt < THROTTLED_COMMIT_RETRY.maxAttempts) {
          await sleep(backoffDelay(THROTTLED_COMMIT_RETRY, attempt));
          continue;
        }
        return this.#failed(group, error, throttled, attempt, scopes);
      }
    }
  }

  /** What a group whose transaction failed for good (after `attempts`) comes to: its events fail, or commit each on its own. */
  #failed(
    group: readonly SizedEvent[],
    error: unknown,
    throttled: string | undefined,
    attempts: number,
    scopes: CommitScopes,
  ): GroupOutcomes {
    const entries = group.map((entry) => entry.pending);
    if (throttled !== undefined) {
      // One transaction per event now would add load while DynamoDB throttles: nothing was written, so SQS delivers them again.
      this.#deps.logger.warn(
        "The batch's group transaction was throttled, so nothing of it was written; its events fail, to be delivered again",
        { consumer: this.#deps.consumer, events: entries.length, attempts, error },
      );
      const reasons = `the group's transaction of ${entries.length} events was throttled (${attempts} attempts): ${throttled}`;
      return async (pending) => failedOutcome(pending, new InboxConflictError(pending.envelope, reasons, { cause: error }));
    }
    // Told an earlier attempt (its answer lost, sent again by the SDK under the same token) is still running: that
    // attempt may commit. Each event's own commit is conditional on its inbox record, so the fallback is safe either way.
    const message =
      errorName(error) === 'TransactionInProgressException'
        ? "An earlier attempt of the batch's group transaction was still running (TransactionInProgressException) and may commit; each of its events commits on its own, conditional on its inbox record, so one that attempt wrote is a duplicate, never applied twice"
        : "The batch's group transaction failed, so nothing of it was written; each of its events commits on its own";
    this.#deps.logger.info(message, { consumer: this.#deps.consumer, events: entries.length, error });
    const checked = new Set(group.filter((entry) => entry.checked).map((entry) => entry.pending));
    return (pending) => scopes.event(pending, () => commitPending(this.#deps, pending, checked.has(pending)));
  }
}
