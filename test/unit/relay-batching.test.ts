import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import { BATCH_CONTENT_TYPE, MAX_MESSAGE_BYTES, type SlotMessage } from '../../shared/envelope.js';
import { Relay, type RelayResult } from '../../shared/relay/index.js';
import { headRun, Lanes } from '../../shared/relay/lanes.js';
import { batchDeduplicationId, batchSize } from '../../shared/relay/publish-entry.js';
import { FakeSqs } from '../helpers/fake-sns.js';
import { type OrderingFate, OrderingSns } from '../helpers/ordering-sns.js';
import { deadLetterQueueUrl, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

const configWith = (batching: { maxEvents: number } | undefined) =>
  defineConfig({
    source: 'urn:test:unit',
    topics: [{ name: 'orders.fifo', fifo: true, ...(batching === undefined ? {} : { batching }) }, { name: 'payments' }],
    routes: { order: 'orders.fifo', payment: 'payments' },
    relay: { maxPublishAttempts: 3, publishConcurrency: 4 },
  });

const relayOn = (sns: OrderingSns, batching: { maxEvents: number } | undefined, sqs = new FakeSqs()) =>
  new Relay({
    config: configWith(batching),
    sns,
    sqs,
    topicArns,
    deadLetterQueueUrl,
    backoff: { baseDelayMs: 1, maxDelayMs: 2 },
  });

/** Commits of `events` events each on aggregate `id`, its sequence counting on from 1. */
function commits(id: string, count: number, events: number, type = 'order') {
  return Array.from({ length: count }, (_, i) => slotRecord({ type, id, seq: (i + 1) * events, events }));
}

const sequenceOf = (eventId: string): number => Number(eventId.split('-')[2]);

/** Every group's accepted events are its sequences 1, 2, 3, … in order, each once. */
function expectExactOrder(sns: OrderingSns, expected: Record<string, number>): void {
  const byGroup = sns.acceptedByGroup();
  for (const [group, count] of Object.entries(expected)) {
    expect(byGroup.get(group)?.map(sequenceOf), group).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  }
}

const message = (id: string, sequence: number, type = 'order.changed', body = '{}'): SlotMessage => ({
  id: `${id}-${sequence}`,
  type,
  aggregateType: 'order',
  aggregateId: id,
  sequence,
  body,
});

describe('lane batching', () => {
  const topic = configWith({ maxEvents: 3 }).topics[0]!;

  it('takes the run of events from the head that share its type, up to maxEvents', () => {
    const lanes = new Lanes();
    lanes.add(0, [message('a', 1), message('a', 2)], topic);
    lanes.add(1, [message('a', 3), message('a', 4)], topic);
    const [lane] = [...lanes.ready(0)];
    expect(headRun(lane!, MAX_MESSAGE_BYTES).map((i) => i.message.id)).toEqual(['a-1', 'a-2', 'a-3']);
  });

  it('ends the run at an event of another type, at a malformed record and at an event sent single', () => {
    const lanes = new Lanes();
    lanes.add(0, [message('a', 1), message('a', 2, 'order.paid'), message('a', 3, 'order.paid')], topic);
    lanes.addMalformed(1, 'order#a', { reason: 'MALFORMED_SLOT', detail: 'x', record: {} as never, rawImage: {} });
    const [lane] = [...lanes.ready(0)];
    expect(headRun(lane!, MAX_MESSAGE_BYTES).map((i) => i.message.id)).toEqual(['a-1']);
    lane!.items.shift();
    expect(headRun(lane!, MAX_MESSAGE_BYTES).map((i) => i.message.id)).toEqual(['a-2', 'a-3']);
    (lane!.items[1] as { single: boolean }).single = true;
    expect(headRun(lane!, MAX_MESSAGE_BYTES).map((i) => i.message.id)).toEqual(['a-2']);
  });

  it('keeps the run within the message-size limit, counting bytes as the batch message has them', () => {
    const lanes = new Lanes();
    const body = `{"d":"${'x'.repeat(1000)}"}`;
    lanes.add(
      0,
      [message('a', 1, 'order.changed', body), message('a', 2, 'order.changed', body), message('a', 3, 'order.changed', body)],
      topic,
    );
    const [lane] = [...lanes.ready(0)];
    const two = batchSize([lane!.items[0], lane!.items[1]].map((i) => (i as { message: SlotMessage }).message));
    expect(headRun(lane!, two).length).toBe(2);
    expect(headRun(lane!, two - 1).length).toBe(1);
  });

  it('sends one event per message without batching', () => {
    const lanes = new Lanes();
    lanes.add(0, [message('a', 1), message('a', 2)], configWith(undefined).topics[0]);
    expect(headRun([...lanes.ready(0)][0]!, MAX_MESSAGE_BYTES).length).toBe(1);
  });
});

describe('relay batching', () => {
  it('publishes a hot aggregate as CloudEvents batch messages, marked and deduplicated by the events they carry', async () => {
    const sns = new OrderingSns();
    const records = commits('hot', 25, 1);
    const result = await relayOn(sns, { maxEvents: 10 }).relay(records);
    expect(result.published).toBe(25);
    expect(sns.sent.map((s) => s.ids.length)).toEqual([10, 10, 5]);
    expectExactOrder(sns, { 'order#hot': 25 });
  });

  it('gives a batch message the content type, the events’ attributes, their group and a hash of their ids as deduplication id', async () => {
    const entries: unknown[] = [];
    const sns = new OrderingSns((_ids, entry) => {
      entries.push(entry);
      return 'ok';
    });
    await relayOn(sns, { maxEvents: 10 }).relay(commits('hot', 1, 3));
    const body = JSON.parse((entries[0] as { Message: string }).Message) as { id: string; aggregatesequence: number }[];
    expect(body.map((e) => e.aggregatesequence)).toEqual([1, 2, 3]);
    const messages = body.map((e) => ({ id: e.id }) as SlotMessage);
    expect(entries[0]).toMatchObject({
      MessageGroupId: 'order#hot',
      MessageDeduplicationId: batchDeduplicationId(messages),
      MessageAttributes: {
        type: { DataType: 'String', StringValue: 'order.changed' },
        aggregatetype: { DataType: 'String', StringValue: 'order' },
        'content-type': { DataType: 'String', StringValue: BATCH_CONTENT_TYPE },
      },
    });
  });

  it('retries a failed batch message whole, with the same events and deduplication id', async () => {
    let calls = 0;
    const sns = new OrderingSns(() => (++calls === 1 ? 'transient' : 'ok'));
    const result = await relayOn(sns, { maxEvents: 10 }).relay(commits('hot', 4, 1));
    expect(result).toMatchObject({ published: 4, retried: 1 });
    expect(sns.sent.map((s) => s.ids)).toEqual([sns.sent[0]!.ids, sns.sent[0]!.ids]);
    expectExactOrder(sns, { 'order#hot': 4 });
  });

  it('splits a batch message SNS refuses for good, so only the event at fault is dead-lettered and the rest keep their order', async () => {
    const sqs = new FakeSqs();
    const poison = (id: string) => sequenceOf(id) === 3;
    const sns = new OrderingSns((ids) => (ids.some(poison) ? 'permanent' : 'ok'));
    const result = await relayOn(sns, { maxEvents: 10 }, sqs).relay(commits('hot', 6, 1));
    expect(result).toMatchObject({ published: 5, deadLettered: 1, failed: 0 });
    expect(sns.acceptedByGroup().get('order#hot')!.map(sequenceOf)).toEqual([1, 2, 4, 5, 6]);
    expect(JSON.parse(sqs.bodies[0]!)).toMatchObject({ reason: 'PUBLISH_REJECTED', sequence: 3 });
  });
});

describe('the hidden-order hazard', () => {
  // Every entry of a group fails when a later one of the group comes before its answer: a relay
  // that ever sent an aggregate's next message ahead of the answer would publish out of order.
  const busy = [...commits('a', 20, 1), ...commits('b', 8, 3), ...commits('c', 5, 2)];

  it.each([
    ['one event per message', undefined],
    ['batch messages', { maxEvents: 4 }],
  ])('keeps each aggregate’s order exact with %s', async (_mode, batching) => {
    let n = 0;
    const failedOnce = new Set<string>();
    // Every third new message fails once: the relay must retry it before anything after it.
    const sns = new OrderingSns((ids) => {
      if (failedOnce.has(ids[0]!) || ++n % 3 !== 0) return 'ok';
      failedOnce.add(ids[0]!);
      return 'transient';
    });
    const result = await relayOn(sns, batching).relay(busy);
    expect(sns.overlaps).toBe(0);
    expect(result.failed).toBe(0);
    expectExactOrder(sns, { 'order#a': 20, 'order#b': 24, 'order#c': 10 });
    if (batching !== undefined) expect(Math.max(...sns.sent.map((s) => s.ids.length))).toBe(4);
  });
});

describe('batching under random failures', () => {
  const fate = fc.constantFrom<OrderingFate>('ok', 'ok', 'ok', 'transient', 'permanent');
  fcTest.prop([
    fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 30 }),
    fc.array(fate, { minLength: 1, maxLength: 40 }),
    // 1: one event per message (no batching); 2–6: batch messages of up to that many events.
    fc.integer({ min: 1, max: 6 }),
    fc.integer({ min: 0, max: 5 }),
  ])(
    'publishes or dead-letters every event exactly as the policy says, each aggregate in order, with or without batching',
    async (commitPlan, fates, maxEvents, poisonEvery) => {
      const seqs = new Map<number, number>();
      const records = commitPlan.map(([aggregate, events]) => {
        const seq = (seqs.get(aggregate) ?? 0) + events;
        seqs.set(aggregate, seq);
        return slotRecord({ id: `a${aggregate}`, seq, events });
      });
      // An event that SNS refuses whenever a message carries it; every other failure is for now.
      const poison = (id: string) => poisonEvery > 0 && sequenceOf(id) % (poisonEvery + 3) === 0;
      let i = 0;
      const sns = new OrderingSns((ids) => {
        if (ids.some(poison)) return 'permanent';
        const next = fates[i++ % fates.length]!;
        return next === 'permanent' ? 'transient' : next;
      });
      const sqs = new FakeSqs();
      const result: RelayResult = await relayOn(sns, maxEvents === 1 ? undefined : { maxEvents }, sqs).relay(records);
      expect(Math.max(0, ...sns.sent.map((m) => m.ids.length))).toBeLessThanOrEqual(maxEvents);

      expect(sns.overlaps).toBe(0);
      const deadLettered = new Set(sqs.bodies.map((b) => (JSON.parse(b) as { eventId: string }).eventId));
      expect([...deadLettered].every(poison)).toBe(true);
      const failedAggregates = new Set<string>();
      const expectedAccepted = new Map<string, string[]>();
      result.outcomes.forEach((outcome, r) => {
        const image = records[r]!.dynamodb!.NewImage!;
        const aggregate = image.aggregateId!.S!;
        const ids = image.events!.L!.map((e) => e.M!.id!.S!);
        if (failedAggregates.has(aggregate)) expect(outcome).toMatchObject({ status: 'failed', reason: 'BLOCKED_BY_EARLIER_FAILURE' });
        if (outcome.status === 'failed') failedAggregates.add(aggregate);
        if (outcome.status === 'delivered') {
          // Each event of a delivered record went out exactly once: published, or dead-lettered when poisoned.
          expect(outcome.deadLettered).toBe(ids.filter(poison).length);
          expect(outcome.published).toBe(ids.length - outcome.deadLettered);
          for (const id of ids)
            if (!poison(id)) expectedAccepted.set(`order#${aggregate}`, [...(expectedAccepted.get(`order#${aggregate}`) ?? []), id]);
        }
      });
      const accepted = sns.acceptedByGroup();
      for (const [group, ids] of accepted) {
        // Strictly increasing: never a later event before an earlier one, never one twice.
        const sequences = ids.map(sequenceOf);
        expect(sequences).toEqual([...sequences].sort((x, y) => x - y));
        expect(new Set(sequences).size).toBe(sequences.length);
        // The delivered records' events are all there, first; a failed record's may follow (accepted, then retried by the caller).
        expect(ids.slice(0, expectedAccepted.get(group)?.length ?? 0)).toEqual(expectedAccepted.get(group) ?? []);
      }
    },
  );
});
