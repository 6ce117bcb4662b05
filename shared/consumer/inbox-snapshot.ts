import { type DynamoDBDocumentClient, TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import { logAsIs } from '../aws/unfiltered-log.js';
import type { InboxRecord } from './inbox-records.js';

/** TransactGetItems takes 100 items. */
const MAX_KEYS_PER_READ = 100;

type Key = { readonly pk: string; readonly sk: string };
const keyOf = (key: Key): string => `${key.pk}\u0000${key.sk}`;

/**
 * The inbox records of a batch's events as one read found them: a record, or the fact that there
 * was none, for each key it read. A key it did not read (the read failed) is left to a read of its own.
 */
export class InboxSnapshot {
  /** A snapshot that read nothing: each event reads its own records, and it keeps what the batch commits. */
  static empty(): InboxSnapshot {
    return new InboxSnapshot(new Map());
  }

  readonly #records: Map<string, InboxRecord | undefined>;

  constructor(records: Map<string, InboxRecord | undefined>) {
    this.#records = records;
  }

  /**
   * Drops a key once an event of it has run, unless the record is `COMPLETED` (it never changes
   * back): what the batch's read found no longer holds for a later delivery of the same event in
   * the batch, which reads the record as it is now.
   */
  forget(key: Key): void {
    const id = keyOf(key);
    if (this.#records.get(id)?.status !== 'COMPLETED') this.#records.delete(id);
  }

  /**
   * Keeps the `COMPLETED` record this batch has just committed under `key`, so a later delivery
   * of the same event in the batch is a duplicate without a read.
   */
  committed(key: Key, record: InboxRecord): void {
    this.#records.set(keyOf(key), record);
  }

  /** The record under `key` as the snapshot found it (`record` undefined: none), or `read: false` when it did not read the key. */
  lookup(key: Key): { readonly read: false } | { readonly read: true; readonly record: InboxRecord | undefined } {
    const id = keyOf(key);
    return this.#records.has(id) ? { read: true, record: this.#records.get(id) } : { read: false };
  }
}

/**
 * Reads the records under `keys` with one strongly consistent `TransactGetItems` per 100 keys,
 * instead of one `GetItem` per key: a batch of 10 events costs one request, not 10 (20 with the
 * key of earlier releases). It needs only `dynamodb:GetItem` on the items, as those reads did.
 * A read that fails (a conflicting write in progress, throttling) is passed to `onError` and its
 * keys are left out, so each of their events reads its own records, as without a snapshot.
 */
export async function readInboxSnapshot(
  document: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Key[],
  onError: (error: unknown) => void,
): Promise<InboxSnapshot> {
  const unique = [...new Map(keys.map((key) => [keyOf(key), key])).values()];
  if (unique.length === 0) return InboxSnapshot.empty();
  const records = new Map<string, InboxRecord | undefined>();
  const chunks: Key[][] = [];
  for (let i = 0; i < unique.length; i += MAX_KEYS_PER_READ) chunks.push(unique.slice(i, i + MAX_KEYS_PER_READ));
  await Promise.all(
    chunks.map(async (chunk) => {
      try {
        const { Responses = [] } = await document.send(
          logAsIs(new TransactGetCommand({ TransactItems: chunk.map((Key) => ({ Get: { TableName: tableName, Key } })) })),
        );
        // Responses come in the order of the Gets; an item that does not exist has an empty response.
        for (const [i, key] of chunk.entries()) records.set(keyOf(key), Responses[i]?.Item as InboxRecord | undefined);
      } catch (error) {
        onError(error);
      }
    }),
  );
  return new InboxSnapshot(records);
}
