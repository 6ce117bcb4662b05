import { showValue } from '../show-value.js';
import { TABLE } from '../table.js';
import { ConsumerOptionsError } from './errors.js';

/** Partition-key prefix of inbox records: `pk = INBOX#<consumer name>#<event id>`. */
export const INBOX_PREFIX = 'INBOX#';
/**
 * The start of every inbox record's sort key: `INBOX#<source>`. Records written before the source
 * was part of the key have exactly `INBOX`.
 */
export const INBOX_SORT_KEY = 'INBOX';

/** What names an event in its inbox key: CloudEvents ids are unique per source only. */
export interface InboxEventKey {
  readonly source: string;
  readonly id: string;
}

/** What `inboxKey` was given instead of an event: which of `source` and `id` an object lacks, say. */
function givenEvent(event: unknown): string {
  if (typeof event === 'string') return `an event id alone (${showValue(event)})`;
  if (typeof event !== 'object' || event === null) return showValue(event);
  const { source, id } = event as Partial<Record<'source' | 'id', unknown>>;
  return `an object whose source is ${showValue(source)} and id is ${showValue(id)}`;
}

/**
 * The key of a consumer's inbox record of an event: `pk = INBOX#<consumer>#<event id>`,
 * `sk = INBOX#<source>`. The source is part of it, so an event of one source can never pass for
 * an event of another with the same id; the partition key keeps the consumer's prefix, so IAM
 * `dynamodb:LeadingKeys` patterns such as `INBOX#<consumer>#*` hold.
 *
 * @example
 * ```ts
 * const { Item } = await document.send(new GetCommand({ TableName, Key: inboxKey('billing', event), ConsistentRead: true }));
 * ```
 */
export function inboxKey(consumer: string, event: InboxEventKey): { readonly pk: string; readonly sk: string } {
  if (typeof event !== 'object' || event === null || typeof event.source !== 'string' || typeof event.id !== 'string') {
    throw new ConsumerOptionsError(
      'inboxKey',
      `got ${givenEvent(event)} as the event; allowed: the event, or { source, id } (both strings): ids are unique per source only`,
    );
  }
  return {
    [TABLE.partitionKey]: `${INBOX_PREFIX}${consumer}#${event.id}`,
    [TABLE.sortKey]: `${INBOX_SORT_KEY}#${event.source}`,
  } as { pk: string; sk: string };
}

/** The key the inbox used before the source was part of it; only looked up (`inbox.legacyKeyCheck`), never written. */
export const legacyInboxKey = (consumer: string, eventId: string): { readonly pk: string; readonly sk: string } =>
  ({
    [TABLE.partitionKey]: `${INBOX_PREFIX}${consumer}#${eventId}`,
    [TABLE.sortKey]: INBOX_SORT_KEY,
  }) as { pk: string; sk: string };
