import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lowestFailedSequenceNumber } from '../../shared/relay/index.js';
import { FakeSns } from '../helpers/fake-sns.js';
import { relayWith } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

/** A commit of `events` events leaving the slot of order `o-9` at `seq`, in a slot created at `createdAt`. */
function commit(seq: number, events: number, createdAt: string, sequenceNumber: string, eventName: 'INSERT' | 'MODIFY'): DynamoDBRecord {
  const record = slotRecord({ id: 'o-9', seq, events, sequenceNumber, eventName });
  record.dynamodb!.NewImage!.createdAt = { S: createdAt };
  return record;
}

/** TTL's removal of the quiet slot, as DynamoDB writes it: a REMOVE by the service, keys only. */
function ttlRemoval(sequenceNumber: string): DynamoDBRecord {
  const { dynamodb, ...rest } = slotRecord({ id: 'o-9', sequenceNumber, eventName: 'REMOVE' });
  return { ...rest, userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' }, dynamodb: { ...dynamodb } };
}

const records = () => [
  commit(5, 2, '2025-01-01T00:00:00.000Z', '501', 'MODIFY'),
  ttlRemoval('502'),
  // The slot written anew after the removal: its counter starts again, under a new epoch.
  commit(1, 1, '2025-03-01T00:00:00.000Z', '503', 'INSERT'),
];

describe('a slot removed by TTL and written again with a lower sequence', () => {
  it('ignores the removal and publishes both commits in stream order, each envelope with its own sequence and epoch', async () => {
    const sns = new FakeSns();
    const result = await relayWith(sns).relay(records());

    expect(result.outcomes.map((o) => o.status)).toEqual(['delivered', 'ignored', 'delivered']);
    const envelopes = sns.requests.flatMap((r) => r.entries).map((e) => JSON.parse(e.Message!));
    expect(envelopes.map((e) => [e.aggregatesequence, e.sequenceepoch])).toEqual([
      [4, '2025-01-01T00:00:00.000Z'],
      [5, '2025-01-01T00:00:00.000Z'],
      [1, '2025-03-01T00:00:00.000Z'],
    ]);
    // One FIFO group for the aggregate before and after.
    expect(new Set(sns.requests.flatMap((r) => r.entries).map((e) => e.MessageGroupId))).toEqual(new Set(['order#o-9']));
    expect(lowestFailedSequenceNumber(result)).toBeUndefined();
  });

  it('holds the rewritten slot’s commit back behind the failed one before it, whatever its lower sequence', async () => {
    const sns = new FakeSns((entry) => (JSON.parse(entry.Message!).aggregatesequence === 5 ? 'transient' : 'ok'));
    const result = await relayWith(sns).relay(records());

    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'PUBLISH_FAILED' });
    expect(result.outcomes[2]).toMatchObject({ status: 'failed', reason: 'BLOCKED_BY_EARLIER_FAILURE' });
    expect(sns.accepted).toHaveLength(1);
    expect(lowestFailedSequenceNumber(result)).toBe('501');
  });
});
