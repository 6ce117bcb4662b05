/**
 * How a write changes an aggregate's outbox slot: the conditional write it sends, and the item
 * that write leaves, which is what gets sized against the item limit before sending.
 */

import { marshall } from '@aws-sdk/util-dynamodb';
import type { OutboxConfig } from '../config.js';
import { itemSize, valueSize } from '../item-size.js';
import { SLOT_KIND, SLOT_PREFIX, SLOT_SORT_KEY } from '../slot.js';
import { expiresAt, TABLE } from '../table.js';
import type { SlotPlan, TransactOperation } from './input.js';
import { actionExtraBytes } from './operation-size.js';

/**
 * The size of {@link slotItem} with the widest sequence a slot can reach, as `itemSize` counts
 * it once marshalled, counted without marshalling it: every write sizes each of its slots.
 */
export function slotItemSize(slot: SlotPlan, now: Date, config: OutboxConfig): number {
  // A list or map counts 3 bytes, and 1 more per member (and a map, its member's name).
  let events = 3;
  for (const event of slot.events) {
    events += 1 + 3;
    // Every field the event has (`traceparent`, `dataschema` or any later one), as marshalling would count it.
    for (const [name, value] of Object.entries(event)) {
      if (value === undefined) continue;
      if (typeof value !== 'string')
        return itemSize(marshall(slotItem(slot, Number.MAX_SAFE_INTEGER, now, config), { removeUndefinedValues: true }));
      events += 1 + text(name, value);
    }
  }
  return (
    text(TABLE.partitionKey, slot.pk) +
    text(TABLE.sortKey, SLOT_SORT_KEY) +
    text('kind', SLOT_KIND) +
    text('aggregateType', slot.aggregate.type) +
    text('aggregateId', slot.aggregate.id) +
    text('source', config.source) +
    number('seq', Number.MAX_SAFE_INTEGER) +
    text('createdAt', now.toISOString()) +
    Buffer.byteLength('events') +
    events +
    number(TABLE.timeToLiveAttribute, expiresAt(now, config.outboxRetentionSeconds))
  );
}

/**
 * What a slot write adds to the transaction's size besides its item ({@link slotItemSize}), as
 * DynamoDB counts a transaction against its 4 MB limit: its condition, and for an update its key,
 * update expression and values. The most of the three forms {@link slotWrite} sends, since the
 * form is chosen only at commit; the same for every slot, as an update's values are the item's
 * own under other names. Counted once, here, with the widest sequence and number of events.
 */
export const SLOT_WRITE_EXTRA_BYTES: number = slotWriteExtraBytes();

function slotWriteExtraBytes(): number {
  const widest = Number.MAX_SAFE_INTEGER;
  const slot: SlotPlan = { aggregate: { type: 'a', id: 'a' }, pk: `${SLOT_PREFIX}a#a`, events: [], inputIndexes: [] };
  // Only the source and the retention are read; their values are in the item and the update alike.
  const config = { source: 'a', outboxRetentionSeconds: 1 } as OutboxConfig;
  const now = new Date(0);
  const update = slotUpdate(slot, widest, now, '', config).Update as { ExpressionAttributeValues: Record<string, unknown> };
  update.ExpressionAttributeValues[':n'] = widest;
  const item = itemSize(marshall(slotItem(slot, widest, now, config)));
  return Math.max(
    actionExtraBytes(slotWrite(slot, undefined, now, '', config)),
    actionExtraBytes(slotWrite(slot, { seq: widest, createdAt: now.toISOString() }, now, '', config)),
    actionExtraBytes({ Update: update } as TransactOperation) - item,
  );
}

// Module-level, not per call: every write sizes each of its slots with them.
function text(name: string, value: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(value);
}

function number(name: string, value: number): number {
  return Buffer.byteLength(name) + valueSize({ N: String(value) });
}

/** The slot item as the write below leaves it, with sequence `seq`. */
export function slotItem(slot: SlotPlan, seq: number, now: Date, config: OutboxConfig) {
  return {
    [TABLE.partitionKey]: slot.pk,
    [TABLE.sortKey]: SLOT_SORT_KEY,
    kind: SLOT_KIND,
    aggregateType: slot.aggregate.type,
    aggregateId: slot.aggregate.id,
    source: config.source,
    seq,
    createdAt: now.toISOString(),
    events: slot.events,
    [TABLE.timeToLiveAttribute]: expiresAt(now, config.outboxRetentionSeconds),
  };
}

/**
 * The slot write of decision 1, conditional on the slot as last seen. Where the write knows the
 * whole item it leaves (a slot it assumes new, or one whose sequence and creation time it saw),
 * it puts that item under the same condition, the creation time included: DynamoDB then has no
 * update expression to evaluate (DynamoDB Local takes about a tenth longer over one), and the
 * item and its stream record are the update's. Otherwise (a slot whose creation time it never
 * saw, as slots written before creation times were kept) it sends the update.
 */
export function slotWrite(
  slot: SlotPlan,
  expected: { readonly seq: number; readonly createdAt: string | undefined } | undefined,
  now: Date,
  tableName: string,
  config: OutboxConfig,
): TransactOperation {
  if (expected !== undefined && expected.createdAt === undefined) return slotUpdate(slot, expected.seq, now, tableName, config);
  const item = slotItem(slot, (expected?.seq ?? 0) + slot.events.length, now, config);
  return {
    Put: {
      TableName: tableName,
      Item: expected === undefined ? item : { ...item, createdAt: expected.createdAt },
      ConditionExpression: expected === undefined ? 'attribute_not_exists(#seq)' : '#seq = :expected AND #createdAt = :createdAt',
      ExpressionAttributeNames: expected === undefined ? { '#seq': 'seq' } : { '#seq': 'seq', '#createdAt': 'createdAt' },
      ...(expected === undefined ? {} : { ExpressionAttributeValues: { ':expected': expected.seq, ':createdAt': expected.createdAt } }),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** The slot update of decision 1, made conditional on the sequence last seen. */
export function slotUpdate(
  slot: SlotPlan,
  expected: number | undefined,
  now: Date,
  tableName: string,
  config: OutboxConfig,
): TransactOperation {
  return {
    Update: {
      TableName: tableName,
      Key: { [TABLE.partitionKey]: slot.pk, [TABLE.sortKey]: SLOT_SORT_KEY },
      UpdateExpression:
        'SET #events = :events, #seq = if_not_exists(#seq, :zero) + :n, #createdAt = if_not_exists(#createdAt, :now), ' +
        '#expiresAt = :ttl, #kind = :kind, #aggregateType = :aggregateType, #aggregateId = :aggregateId, #source = :source',
      ConditionExpression: expected === undefined ? 'attribute_not_exists(#seq)' : '#seq = :expected',
      ExpressionAttributeNames: {
        '#events': 'events',
        '#seq': 'seq',
        '#createdAt': 'createdAt',
        '#expiresAt': TABLE.timeToLiveAttribute,
        '#kind': 'kind',
        '#aggregateType': 'aggregateType',
        '#aggregateId': 'aggregateId',
        '#source': 'source',
      },
      ExpressionAttributeValues: {
        ':events': slot.events,
        ':zero': 0,
        ':n': slot.events.length,
        ':now': now.toISOString(),
        ':ttl': expiresAt(now, config.outboxRetentionSeconds),
        ':kind': SLOT_KIND,
        ':aggregateType': slot.aggregate.type,
        ':aggregateId': slot.aggregate.id,
        ':source': config.source,
        ...(expected === undefined ? {} : { ':expected': expected }),
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}
