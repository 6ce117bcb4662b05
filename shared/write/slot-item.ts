/**
 * How a write changes an aggregate's outbox slot: the conditional update it sends, and the item
 * that update leaves, which is what gets sized against the item limit before sending.
 */

import type { OutboxConfig } from '../config.js';
import { SLOT_KIND, SLOT_SORT_KEY } from '../slot.js';
import { expiresAt, TABLE } from '../table.js';
import type { SlotPlan, TransactOperation } from './input.js';

/** The slot item as the update below leaves it, with sequence `seq`. */
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
