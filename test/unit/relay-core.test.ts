import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ConfigError, EnvironmentError } from '../../shared/errors.js';
import { entryFailureKind } from '../../shared/relay/failure-kind.js';
import { lowestFailedSequenceNumber, Relay, type RelayResult, relayEnvironment } from '../../shared/relay/index.js';
import { messageGroupId } from '../../shared/relay/publish-entry.js';
import { FakeSns, FakeSqs } from '../helpers/fake-sns.js';
import { config, deadLetterQueueUrl, relayWith, topicArns } from '../helpers/relay-fixtures.js';
import { slotRecord } from '../helpers/stream-records.js';

const eventIdsOf = (records: ReturnType<typeof slotRecord>[]) =>
  records.flatMap((r) => (r.dynamodb?.NewImage?.events?.L ?? []).map((e) => e.M!.id!.S!));

describe('relay core', () => {
  it('publishes in batches of at most ten entries, one head per aggregate, with FIFO group and dedup ids and attributes', async () => {
    const sns = new FakeSns();
    const records = Array.from({ length: 30 }, (_, i) => slotRecord({ id: `o-${i % 15}`, seq: 1 + Math.floor(i / 15), events: 1 }));
    const result = await relayWith(sns).relay(records);
    expect(result.published).toBe(30);
    expect(result.outcomes.every((o) => o.status === 'delivered')).toBe(true);
    for (const { entries } of sns.requests) {
      expect(entries.length).toBeLessThanOrEqual(10);
      const groups = entries.map((e) => e.MessageGroupId);
      expect(new Set(groups).size).toBe(groups.length);
    }
    const first = sns.requests[0]!.entries[0]!;
    const envelope = JSON.parse(first.Message!);
    expect(first).toMatchObject({
      MessageGroupId: `order#${envelope.subject}`,
      MessageDeduplicationId: envelope.id,
      MessageAttributes: {
        type: { DataType: 'String', StringValue: 'order.changed' },
        aggregatetype: { DataType: 'String', StringValue: 'order' },
      },
    });
    expect(sns.accepted.sort()).toEqual(eventIdsOf(records).sort());
  });

  it('gives an aggregate whose id SNS would refuse as a FIFO group a valid group of its own, the same for each of its events', async () => {
    const sns = new FakeSns();
    const ids = ['plain-1', 'Zürich 1', 'x'.repeat(200), 'y'.repeat(200)];
    const records = ids.flatMap((id) => [1, 2].map((seq) => slotRecord({ id, seq })));
    const result = await relayWith(sns).relay(records);
    expect(result.published).toBe(8);
    const groupOf = new Map<string, Set<string>>();
    for (const entry of sns.requests.flatMap((r) => r.entries)) {
      expect(entry.MessageGroupId).toMatch(/^[\x21-\x7e]{1,128}$/);
      const id = JSON.parse(entry.Message!).subject as string;
      groupOf.set(id, (groupOf.get(id) ?? new Set()).add(entry.MessageGroupId!));
    }
    expect([...groupOf.get('plain-1')!]).toEqual(['order#plain-1']);
    expect(ids.map((id) => groupOf.get(id)!.size)).toEqual([1, 1, 1, 1]);
    expect(new Set(ids.map((id) => [...groupOf.get(id)!][0])).size).toBe(ids.length);
  });

  fcTest.prop([fc.constantFrom('order', 'payment', 'a.b_c-d'), fc.string({ unit: 'binary', minLength: 1, maxLength: 300 })])(
    'makes every aggregate a FIFO group id SNS accepts, readable whenever SNS accepts the readable one',
    (aggregateType, aggregateId) => {
      const readable = `${aggregateType}#${aggregateId}`;
      const group = messageGroupId({ aggregateType, aggregateId });
      expect(group).toMatch(/^[\x21-\x7e]{1,128}$/);
      expect(group === readable).toBe(/^[\x21-\x7e]{1,128}$/.test(readable));
      expect(messageGroupId({ aggregateType, aggregateId })).toBe(group);
    },
  );

  it('keeps each PublishBatch request within 256 KB and leaves FIFO fields off standard topics', async () => {
    const sns = new FakeSns();
    const records = Array.from({ length: 6 }, (_, i) => slotRecord({ type: 'payment', id: `p-${i}`, data: { blob: 'y'.repeat(100_000) } }));
    await relayWith(sns).relay(records);
    for (const { entries } of sns.requests) {
      expect(entries.reduce((sum, e) => sum + Buffer.byteLength(e.Message!), 0)).toBeLessThanOrEqual(262_144);
      expect(entries.every((e) => e.MessageGroupId === undefined && e.MessageDeduplicationId === undefined)).toBe(true);
    }
    expect(sns.requests.length).toBeGreaterThanOrEqual(3);
    expect(sns.accepted).toHaveLength(6);
  });

  it('runs requests in parallel up to the configured concurrency', async () => {
    const sns = new FakeSns();
    await relayWith(sns).relay(Array.from({ length: 100 }, (_, i) => slotRecord({ id: `o-${i}` })));
    expect(sns.maxInFlight).toBe(4);
  });

  it('fails a record whose publish keeps failing transiently, holds back the aggregate behind it, and lets others through', async () => {
    const stuck = slotRecord({ id: 'stuck', seq: 1, sequenceNumber: '900' });
    const later = slotRecord({ id: 'stuck', seq: 2, sequenceNumber: '1000' });
    const other = slotRecord({ id: 'fine', seq: 1, sequenceNumber: '950' });
    const sns = new FakeSns((e) => (JSON.parse(e.Message!).subject === 'stuck' ? 'transient' : 'ok'));
    const result = await relayWith(sns).relay([stuck, other, later]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['failed', 'delivered', 'failed']);
    expect(result.outcomes[0]).toMatchObject({ reason: 'PUBLISH_FAILED' });
    expect(result.outcomes[2]).toMatchObject({ reason: 'BLOCKED_BY_EARLIER_FAILURE' });
    expect(result.retried).toBe(2);
    expect(lowestFailedSequenceNumber(result)).toBe('900');
    expect(sns.requests.flatMap((r) => r.entries).filter((e) => JSON.parse(e.Message!).subject === 'stuck')).toHaveLength(3);
  });

  it('fails, without retrying or dead-lettering, an entry SNS refuses because of the deployment (a disabled KMS key)', async () => {
    const first = slotRecord({ id: 'locked', seq: 1, sequenceNumber: '900' });
    const later = slotRecord({ id: 'locked', seq: 2, sequenceNumber: '1000' });
    const other = slotRecord({ type: 'payment', id: 'fine', seq: 1, sequenceNumber: '950' });
    const sqs = new FakeSqs();
    const sns = new FakeSns((e) => (JSON.parse(e.Message!).subject === 'locked' ? 'kms' : 'ok'));
    const result = await relayWith(sns, sqs).relay([first, other, later]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['failed', 'delivered', 'failed']);
    expect(result.outcomes[0]).toMatchObject({ reason: 'PUBLISH_FAILED', detail: expect.stringContaining('KMSDisabled') });
    expect(result.outcomes[2]).toMatchObject({ reason: 'BLOCKED_BY_EARLIER_FAILURE' });
    expect(result).toMatchObject({ retried: 0, deadLettered: 0 });
    expect(sqs.bodies).toEqual([]);
    expect(sns.requests.flatMap((r) => r.entries).filter((e) => JSON.parse(e.Message!).subject === 'locked')).toHaveLength(1);
    expect(lowestFailedSequenceNumber(result)).toBe('900');
  });

  it('sends each entry alone when SNS refuses a whole request as invalid, so only the event at fault goes to the relay DLQ', async () => {
    const spoils = (entries: readonly { Message?: string }[]) => entries.some((e) => JSON.parse(e.Message!).subject === 'bad');
    const sns = new FakeSns(undefined, (entries) => (spoils(entries) ? 'invalid' : 'ok'));
    const sqs = new FakeSqs();
    const records = ['a', 'bad', 'c'].map((id, i) => slotRecord({ id, sequenceNumber: String(400 + i) }));
    const result = await relayWith(sns, sqs).relay(records);
    expect(result.outcomes).toMatchObject([
      { status: 'delivered', published: 1, deadLettered: 0 },
      { status: 'delivered', published: 0, deadLettered: 1 },
      { status: 'delivered', published: 1, deadLettered: 0 },
    ]);
    expect(JSON.parse(sqs.bodies[0]!)).toMatchObject({
      reason: 'PUBLISH_REJECTED',
      detail: expect.stringContaining('InvalidParameterException'),
    });
    expect(sns.requests.map((r) => r.entries.length)).toEqual([3, 1, 1, 1]);
    expect(result.retried).toBe(0);
  });

  it('fails without retrying when SNS refuses the request for a reason a retry cannot fix', async () => {
    const sns = new FakeSns(undefined, () => 'denied');
    const result = await relayWith(sns).relay([slotRecord({ id: 'a' })]);
    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'PUBLISH_FAILED' });
    expect(sns.requests).toHaveLength(1);
  });

  it('fails a rejected event over to the relay DLQ with its envelope, then publishes the aggregate’s next event', async () => {
    const poison = slotRecord({ id: 'a', seq: 1 });
    const next = slotRecord({ id: 'a', seq: 2 });
    const [poisonId] = eventIdsOf([poison]);
    const sqs = new FakeSqs();
    const sns = new FakeSns((e) => (JSON.parse(e.Message!).id === poisonId ? 'permanent' : 'ok'));
    const result = await relayWith(sns, sqs).relay([poison, next]);
    expect(result.outcomes).toMatchObject([
      { status: 'delivered', published: 0, deadLettered: 1 },
      { status: 'delivered', published: 1, deadLettered: 0 },
    ]);
    const letter = JSON.parse(sqs.bodies[0]!);
    expect(letter).toMatchObject({
      kind: 'outbox-relay-dead-letter',
      reason: 'PUBLISH_REJECTED',
      eventId: poisonId,
      topic: 'orders.fifo',
      sequence: 1,
    });
    expect(JSON.parse(letter.envelope).id).toBe(poisonId);
    expect(letter.detail).toMatch(/InvalidParameter/);
  });

  it('fails malformed slots (with the raw image) and unrouted aggregate types (with their envelopes) over to the relay DLQ', async () => {
    const malformed = slotRecord({ id: 'm' });
    malformed.dynamodb!.NewImage!.seq = { S: 'not-a-number' };
    const unrouted = slotRecord({ type: 'invoice', id: 'i-1' });
    const sqs = new FakeSqs();
    const result = await relayWith(new FakeSns(), sqs).relay([malformed, unrouted]);
    expect(result.deadLettered).toBe(2);
    const letters = sqs.bodies.map((b) => JSON.parse(b));
    expect(letters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          reason: 'MALFORMED_SLOT',
          detail: 'seq is not a positive whole number',
          rawImage: malformed.dynamodb!.NewImage,
        }),
        expect.objectContaining({
          reason: 'UNKNOWN_ROUTE',
          aggregateType: 'invoice',
          envelope: expect.stringContaining('"aggregatetype":"invoice"'),
        }),
      ]),
    );
  });

  it('holds an aggregate’s later records back behind its malformed record until that is dead-lettered', async () => {
    const malformed = slotRecord({ id: 'm', seq: 1, sequenceNumber: '800' });
    malformed.dynamodb!.NewImage!.seq = { S: 'not-a-number' };
    const later = slotRecord({ id: 'm', seq: 2, sequenceNumber: '801' });
    const other = slotRecord({ id: 'fine', seq: 1, sequenceNumber: '802' });
    const sns = new FakeSns();
    const refused = await relayWith(sns, new FakeSqs(true)).relay([malformed, later, other]);
    expect(refused.outcomes.map((o) => (o.status === 'failed' ? o.reason : o.status))).toEqual([
      'DEAD_LETTER_FAILED',
      'BLOCKED_BY_EARLIER_FAILURE',
      'delivered',
    ]);
    expect(sns.requests.flatMap((r) => r.entries).map((e) => JSON.parse(e.Message!).subject)).toEqual(['fine']);
    expect(lowestFailedSequenceNumber(refused)).toBe('800');

    const sqs = new FakeSqs();
    const accepted = await relayWith(new FakeSns(), sqs).relay([malformed, later, other]);
    expect(accepted.outcomes.map((o) => o.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(sqs.bodies.map((b) => JSON.parse(b).reason)).toEqual(['MALFORMED_SLOT']);
  });

  it('fails the record when the relay DLQ itself refuses the dead letter, so nothing is dropped', async () => {
    const result = await relayWith(new FakeSns(() => 'permanent'), new FakeSqs(true)).relay([slotRecord({ id: 'a' })]);
    expect(result.outcomes[0]).toMatchObject({ status: 'failed', reason: 'DEAD_LETTER_FAILED' });
  });

  it('ignores removals, business items and aggregate types another path publishes', async () => {
    const sns = new FakeSns();
    const business = slotRecord();
    business.dynamodb!.NewImage = { pk: { S: 'ORDER#1' }, sk: { S: 'ORDER' } };
    const relay = new Relay({ config, sns, sqs: new FakeSqs(), topicArns, deadLetterQueueUrl, ignoreAggregateTypes: ['payment'] });
    const result = await relay.relay([slotRecord({ eventName: 'REMOVE' }), business, slotRecord({ type: 'payment' })]);
    expect(result.outcomes.map((o) => o.status)).toEqual(['ignored', 'ignored', 'ignored']);
    expect(sns.requests).toEqual([]);
  });

  fcTest.prop(
    [fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 3 })), { minLength: 1, maxLength: 40 }), fc.integer()],
    {
      numRuns: 60,
    },
  )('never lets a later event of an aggregate overtake an earlier one, whatever fails', async (commits, seed) => {
    let state = seed;
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
      return state / 0x7fffffff;
    };
    const seqs = new Map<number, number>();
    const records = commits.map(([aggregate, events]) => {
      const seq = (seqs.get(aggregate) ?? 0) + events;
      seqs.set(aggregate, seq);
      return slotRecord({ id: `a${aggregate}`, seq, events });
    });
    const sns = new FakeSns(
      () => (random() < 0.3 ? 'transient' : 'ok'),
      () => (random() < 0.1 ? 'throttled' : 'ok'),
    );
    const result: RelayResult = await relayWith(sns).relay(records);

    const lastAccepted = new Map<string, number>();
    for (const id of sns.accepted) {
      const [, aggregate, sequence] = id.split('-');
      expect(Number(sequence)).toBeGreaterThan(lastAccepted.get(aggregate!) ?? 0);
      lastAccepted.set(aggregate!, Number(sequence));
    }
    const failedAggregates = new Set<string>();
    result.outcomes.forEach((outcome, i) => {
      const aggregate = records[i]!.dynamodb!.NewImage!.aggregateId!.S!;
      if (failedAggregates.has(aggregate)) expect(outcome).toMatchObject({ status: 'failed', reason: 'BLOCKED_BY_EARLIER_FAILURE' });
      if (outcome.status === 'failed') failedAggregates.add(aggregate);
      if (outcome.status === 'delivered') expect(outcome.published).toBe(Number(records[i]!.dynamodb!.NewImage!.events!.L!.length));
    });
  });
});

describe('relay set-up', () => {
  it('rejects a configured topic without an ARN, naming the topic', () => {
    expect(
      () => new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns: { payments: topicArns.payments }, deadLetterQueueUrl }),
    ).toThrow(ConfigError);
    expect(() => new Relay({ config, sns: new FakeSns(), sqs: new FakeSqs(), topicArns: {}, deadLetterQueueUrl })).toThrow(
      /topicArns\.orders\.fifo/,
    );
  });

  it('rejects a missing or malformed relay environment variable by name', () => {
    const env = { OUTBOX_CONFIG: JSON.stringify(config), OUTBOX_RELAY_DLQ_URL: deadLetterQueueUrl };
    expect(() => relayEnvironment(env)).toThrow(EnvironmentError);
    expect(() => relayEnvironment(env)).toThrow(/OUTBOX_TOPIC_ARNS: is not set/);
    expect(() => relayEnvironment({ ...env, OUTBOX_TOPIC_ARNS: '{"payments":"arn:x"}' })).toThrow(
      /has no entry for topic "orders.fifo" \(got entries for "payments" only\)/,
    );
    expect(relayEnvironment({ ...env, OUTBOX_TOPIC_ARNS: JSON.stringify(topicArns) }).topicArns).toEqual(topicArns);
  });

  it('tells a rejected message from a deployment problem and from a failure worth retrying', () => {
    const kinds = [
      ['InvalidParameter', true],
      ['InvalidParameterValue', true],
      ['KMSDisabled', true],
      ['KMSAccessDenied', true],
      ['KMSNotFound', true],
      ['AuthorizationError', true],
      ['NotFound', true],
      ['KMSThrottling', true],
      ['Throttled', true],
      ['InternalError', false],
      ['SomethingNew', false],
    ].map(([Code, SenderFault]) => entryFailureKind({ Code: Code as string, SenderFault: SenderFault as boolean }));
    expect(kinds).toEqual([
      'rejected',
      'rejected',
      'deployment',
      'deployment',
      'deployment',
      'deployment',
      'deployment',
      'transient',
      'transient',
      'transient',
      'transient',
    ]);
  });

  it('picks the numerically lowest failed sequence number', () => {
    const failed = (sequenceNumber: string) => ({
      status: 'failed' as const,
      record: { sequenceNumber },
      reason: 'PUBLISH_FAILED' as const,
      detail: '',
    });
    expect(lowestFailedSequenceNumber({ outcomes: [failed('900'), failed('1000'), failed('99')] })).toBe('99');
    expect(lowestFailedSequenceNumber({ outcomes: [] })).toBeUndefined();
  });
});
