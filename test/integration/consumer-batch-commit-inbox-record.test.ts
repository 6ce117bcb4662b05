import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { inboxKey } from '../../shared/consumer/inbox-keys.js';
import { DEFAULT_INBOX_RETENTION_SECONDS } from '../../shared/consumer/inbox-records.js';
import type { EventHandler } from '../../shared/consumer/types.js';
import { batchCommitFixture, count, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';

const { clients, hooks, table, addOne, applied, batchConsumer } = batchCommitFixture('consumer-batch-inbox-record');

// Near the real clock: DynamoDB Local removes an item whose expiresAt (its TTL) has passed.
const T0 = Math.floor(Date.now() / 1000) * 1000 + 200;
const LATER = T0 + 5000;

const record = async (consumer: string, id: string) =>
  (
    await clients.document.send(
      new GetCommand({ TableName: table(), Key: inboxKey(consumer, { source: TEST_SOURCE, id }), ConsistentRead: true }),
    )
  ).Item;

/** A claim of the event by another delivery (a `claim` handler of it), lapsing at `until` (epoch seconds). */
const claimBy = (consumer: string, id: string, until: number) =>
  clients.document.send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...inboxKey(consumer, { source: TEST_SOURCE, id }),
        kind: 'inbox',
        consumer,
        eventId: id,
        eventSource: TEST_SOURCE,
        eventType: 'order.placed',
        status: 'IN_PROGRESS',
        claimExpiresAt: until,
        claimToken: 'other-delivery',
        expiresAt: until + 3600,
      },
    }),
  );

/**
 * A consumer `scope` on a clock at {@link T0}: the `order.placed` handler of `slow` (the second
 * event) moves the clock to {@link LATER}, after `during` ran, and adds 1 to the counter of
 * `counter(subject)`.
 */
function clocked(scope: string, slow: string, during: () => Promise<unknown> = async () => {}, counter = (subject: string) => subject) {
  let clock = T0;
  const handler: EventHandler = {
    handle: async (event, ctx) => {
      if (event.id === slow) {
        await during();
        clock = LATER;
      }
      ctx.write(addOne(scope, counter(event.subject)));
    },
  };
  return batchConsumer(scope, { now: () => clock }, { 'order.placed': handler });
}

describe("consumer, commit: 'batch', an event's COMPLETED inbox record", () => {
  it('is the record the group was sized with, built once when its handler had run, not again when the group commits', async () => {
    const [first, second] = [anEnvelope({ aggregateId: 'r1' }), anEnvelope({ aggregateId: 'r2' })];
    const { consumer, sent } = clocked('sized', second.id);

    const { outcomes } = await consumer.process(messages([first.body, second.body]));

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    expect(count(sent, 'TransactWriteItems')).toBe(1);
    // The first event joined the group at T0; the group committed after the second's handler, at LATER.
    expect(await record('sized', first.id)).toMatchObject({
      status: 'COMPLETED',
      processedAt: new Date(T0).toISOString(),
      expiresAt: Math.floor(T0 / 1000) + DEFAULT_INBOX_RETENTION_SECONDS,
    });
    expect(await record('sized', second.id)).toMatchObject({ status: 'COMPLETED', processedAt: new Date(LATER).toISOString() });
  });

  it("takes over, in the event's own commit, a claim that lapsed after the event joined a group of two", async () => {
    const [first, second] = [anEnvelope({ aggregateId: 'l1' }), anEnvelope({ aggregateId: 'l2' })];
    const { consumer, sent } = clocked('lapsed', second.id, () => claimBy('lapsed', first.id, Math.floor(T0 / 1000) + 2));

    const { outcomes } = await consumer.process(messages([first.body, second.body]));

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    // The group's transaction, its record's condition judged when the event joined, fails on the claim; each event then commits on its own.
    expect(count(sent, 'TransactWriteItems')).toBe(3);
    expect(await applied('lapsed', 'l1')).toBe(1);
    expect(await applied('lapsed', 'l2')).toBe(1);
    const taken = await record('lapsed', first.id);
    expect(taken).toMatchObject({ status: 'COMPLETED', processedAt: new Date(LATER).toISOString() });
    expect(taken?.claimExpiresAt).toBeUndefined();
  });

  it('takes over, in a group of one, a claim that lapsed after the event joined, as its record is built when it is sent', async () => {
    const [first, second] = [anEnvelope({ aggregateId: 'o1' }), anEnvelope({ aggregateId: 'o2' })];
    // Both events write one counter: the second cannot join the first's group, which commits alone after the second's handler.
    const { consumer, sent } = clocked(
      'alone',
      second.id,
      () => claimBy('alone', first.id, Math.floor(T0 / 1000) + 2),
      () => 'shared',
    );

    const { outcomes } = await consumer.process(messages([first.body, second.body]));

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect(await applied('alone', 'shared')).toBe(2);
    expect(await record('alone', first.id)).toMatchObject({ status: 'COMPLETED', processedAt: new Date(LATER).toISOString() });
  });

  it('is built once for an event the group declined, which joins the next group as it was sized', async () => {
    const [first, second, third] = [
      anEnvelope({ aggregateId: 'd1' }),
      anEnvelope({ aggregateId: 'd2' }),
      anEnvelope({ aggregateId: 'd3' }),
    ];
    let clock = T0;
    const handler: EventHandler = {
      handle: (event, ctx) => {
        if (event.id === second.id) clock = LATER;
        // The first two events write one counter: the second cannot join the first's group.
        ctx.write(addOne('declined', event.id === third.id ? 'own' : 'shared'));
      },
    };
    const { consumer, sent } = batchConsumer('declined', { now: () => clock }, { 'order.placed': handler });
    // Each transaction moves the clock a second on as it is sent.
    hooks.onSend = (command) => {
      if (command === 'TransactWriteItems') clock += 1000;
    };
    try {
      const { outcomes } = await consumer.process(messages([first.body, second.body, third.body]));

      expect(statuses(outcomes)).toEqual(['processed', 'processed', 'processed']);
      expect(count(sent, 'TransactWriteItems')).toBe(2);
      // The first, alone in its group, is built as it is sent; the second, declined at LATER, joins the next group as then.
      expect(await record('declined', first.id)).toMatchObject({ processedAt: new Date(LATER).toISOString() });
      expect(await record('declined', second.id)).toMatchObject({ processedAt: new Date(LATER).toISOString() });
      expect(await record('declined', third.id)).toMatchObject({ processedAt: new Date(LATER + 1000).toISOString() });
    } finally {
      hooks.onSend = undefined;
    }
  });
});
