import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../shared/envelope.js';
import { summarizeDlq } from '../../shared/redrive/dlq-summary.js';
import { formatDlqSummary } from '../../shared/redrive/dlq-summary-format.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';
import { aMalformedSlotDeadLetter, aRelayDeadLetter } from '../helpers/dead-letters.js';
import { anEnvelope, snsNotification } from '../helpers/envelopes.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';

const { server, clients } = await emulatorForFile();

const T1 = '2026-02-01T10:00:00.000Z';
const T2 = '2026-02-01T11:00:00.000Z';
const T3 = '2026-02-01T12:00:00.000Z';

const withTime = (envelope: string, time: string) => JSON.stringify({ ...JSON.parse(envelope), time });

/** A relay dead letter whose envelope has the given time. */
function letter(spec: Parameters<typeof aRelayDeadLetter>[0], time: string): { eventId: string; body: string } {
  const { eventId, body } = aRelayDeadLetter(spec);
  const parsed = JSON.parse(body);
  return { eventId, body: JSON.stringify({ ...parsed, envelope: withTime(parsed.envelope, time) }) };
}

async function send(queueUrl: string, bodies: readonly string[], groupOf?: (i: number) => string): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies.slice(i, i + 10).map((body, j) => ({
          Id: String(j),
          MessageBody: body,
          ...(groupOf === undefined ? {} : { MessageGroupId: groupOf(i + j), MessageDeduplicationId: `d-${i + j}` }),
        })),
      }),
    );
  }
}

/** Every message of a queue is ready again: none left hidden, none deleted. */
const ready = (name: string) => server.inspectQueue(name)?.messages.ready.length;
const ids = (name: string) => queueBodies(server, name).map((b) => parseEnvelope(b).id);

/** A relay DLQ with letters of three reasons, types and aggregates, and two malformed messages. */
async function relayDlq(name: string) {
  const { queueUrl } = server.createQueue(name);
  const placed = [
    letter({ topic: 'orders', type: 'order.placed', aggregateType: 'order', aggregateId: 'o-1' }, T1),
    letter({ topic: 'orders', type: 'order.placed', aggregateType: 'order', aggregateId: 'o-1', sequence: 2 }, T2),
  ];
  const shipped = [letter({ topic: 'orders', type: 'order.shipped', aggregateType: 'order', aggregateId: 'o-2' }, T2)];
  const captured = [
    letter({ topic: 'payments', type: 'payment.captured', aggregateType: 'payment', aggregateId: 'p-1' }, T3),
    letter({ topic: 'payments', type: 'payment.captured', aggregateType: 'payment', aggregateId: 'p-2' }, T3),
  ];
  const unrouted = [letter({ type: 'cart.emptied', aggregateType: 'cart', aggregateId: 'c-1' }, T1)];
  await send(
    queueUrl,
    [...placed, ...shipped, ...captured, ...unrouted].map((l) => l.body).concat(aMalformedSlotDeadLetter(), 'not json at all'),
  );
  return { queueUrl, placed, shipped, captured, unrouted };
}

describe('dlq summarize', () => {
  it('groups a relay DLQ by reason, type and aggregate type with counts and times, and leaves every message visible', async () => {
    const { queueUrl } = await relayDlq('triage-relay-summary');

    const summary = await summarizeDlq({ sqs: clients.sqs, queueUrl });

    expect(summary).toMatchObject({
      status: 'completed',
      before: 8,
      read: 8,
      matched: 8,
      kinds: { relay: 7, subscriber: 0, malformed: 1 },
    });
    expect(summary.groups.map((g) => [g.reason, g.eventType, g.aggregateType, g.count, g.firstTime, g.lastTime])).toEqual([
      ['PUBLISH_REJECTED', 'order.placed', 'order', 2, T1, T2],
      ['PUBLISH_REJECTED', 'payment.captured', 'payment', 2, T3, T3],
      ['MALFORMED', undefined, undefined, 1, expect.any(String), expect.any(String)],
      ['MALFORMED_SLOT', undefined, undefined, 1, expect.any(String), expect.any(String)],
      ['PUBLISH_REJECTED', 'order.shipped', 'order', 1, T2, T2],
      ['UNKNOWN_ROUTE', 'cart.emptied', 'cart', 1, T1, T1],
    ]);
    expect(summary.groups.find((g) => g.reason === 'MALFORMED')?.timeSource).toBe('sent');
    expect(summary.malformed).toEqual([{ id: expect.any(String), problem: expect.stringContaining('INVALID_JSON') }]);
    expect(queueDepth(server, 'triage-relay-summary')).toBe(8);
    expect(ready('triage-relay-summary')).toBe(8);
    const table = formatDlqSummary(summary);
    expect(table).toMatch(/PUBLISH_REJECTED\s+order\.placed\s+order\s+2\s+2\s+2026-02-01T10:00:00\.000Z\s+2026-02-01T11:00:00\.000Z/);
    expect(table).toMatch(/MALFORMED\s+-\s+-\s+1\s+1\s+\S+ \(sent\)/);
  });

  it('groups a subscriber DLQ as MAX_RECEIVE_COUNT_EXCEEDED by type and aggregate, raw and SNS-enveloped alike, and counts malformed ones apart', async () => {
    const { queueUrl } = server.createQueue('triage-subscriber-summary');
    const placed = withTime(anEnvelope({ type: 'order.placed', aggregateType: 'order' }).body, T1);
    const placedLater = withTime(anEnvelope({ type: 'order.placed', aggregateType: 'order' }).body, T3);
    const refunded = withTime(anEnvelope({ type: 'payment.refunded', aggregateType: 'payment' }).body, T2);
    await send(queueUrl, [placed, snsNotification(placedLater), snsNotification(refunded), '{"specversion":"1.0"}']);

    const summary = await summarizeDlq({ sqs: clients.sqs, queueUrl, filter: { since: new Date(T1) } });

    expect(summary.kinds).toEqual({ relay: 0, subscriber: 3, malformed: 1 });
    expect(summary.groups.map((g) => [g.reason, g.eventType, g.aggregateType, g.count, g.firstTime, g.lastTime])).toEqual([
      ['MAX_RECEIVE_COUNT_EXCEEDED', 'order.placed', 'order', 2, T1, T3],
      // The malformed message's SentTimestamp (now) is after T1 too.
      ['MALFORMED', undefined, undefined, 1, expect.any(String), expect.any(String)],
      ['MAX_RECEIVE_COUNT_EXCEEDED', 'payment.refunded', 'payment', 1, T2, T2],
    ]);
    expect(summary.malformed[0]?.problem).toContain('INVALID_ENVELOPE');
    expect(ready('triage-subscriber-summary')).toBe(4);
  });

  it('counts only what matches a filter, and reads only the first message of each group of a FIFO DLQ, saying so', async () => {
    const { queueUrl } = server.createQueue('triage-fifo-summary.fifo', { attributes: { FifoQueue: 'true' } });
    const bodies = ['a', 'b', 'c'].map((id) => anEnvelope({ aggregateId: id, type: id === 'c' ? 'order.paid' : 'order.placed' }).body);
    await send(queueUrl, [...bodies, anEnvelope({ aggregateId: 'a', sequence: 2 }).body], (i) => (i === 3 ? 'g-0' : `g-${i}`));

    const summary = await summarizeDlq({ sqs: clients.sqs, queueUrl, filter: { types: ['order.placed'] } });

    expect(summary.read).toBeGreaterThanOrEqual(3);
    expect(summary.filter).toBe('type order.placed');
    expect(summary.groups.reduce((sum, g) => sum + g.count, 0)).toBe(summary.matched);
    expect(summary.groups[0]).toMatchObject({ eventType: 'order.placed' });
    expect(summary.notes.join(' ')).toContain('FIFO queue: only the first messages of each message group were read');
    expect(ready('triage-fifo-summary.fifo')).toBe(4);
  });
});

describe('dlq summarize of batch messages', () => {
  it("counts each event of a CloudEvents batch message in its type's group, with the messages that hold them", async () => {
    const { queueUrl } = server.createQueue('triage-batch-summary');
    const event = (type: string, sequence: number, time: string, aggregateId = 'o-1') =>
      JSON.parse(withTime(anEnvelope({ type, aggregateId, sequence }).body, time));
    const batch = JSON.stringify([event('order.placed', 1, T1), event('order.changed', 2, T2), event('order.changed', 3, T3)]);
    await send(queueUrl, [batch, snsNotification(JSON.stringify(event('order.changed', 1, T1, 'o-2')))]);

    const summary = await summarizeDlq({ sqs: clients.sqs, queueUrl });

    expect(summary).toMatchObject({ read: 2, events: 4, matched: 2, matchedEvents: 4, kinds: { subscriber: 2 } });
    expect(summary.groups.map((g) => [g.eventType, g.count, g.messages, g.firstTime, g.lastTime])).toEqual([
      ['order.changed', 3, 2, T1, T3],
      ['order.placed', 1, 1, T1, T1],
    ]);
    expect(formatDlqSummary(summary)).toMatch(/2 messages \(4 events\) read[\s\S]*order\.changed\s+order\s+3\s+2\s+/);

    const filtered = await summarizeDlq({ sqs: clients.sqs, queueUrl, filter: { types: ['order.changed'], until: new Date(T3) } });
    expect(filtered).toMatchObject({ matched: 2, matchedEvents: 2 });
    expect(filtered.groups.map((g) => [g.eventType, g.count, g.messages, g.lastTime])).toEqual([['order.changed', 2, 2, T2]]);
    expect(ready('triage-batch-summary')).toBe(2);
  });
});

describe('filtered redrive', () => {
  it('moves from a relay DLQ exactly the dead letters of a type, then of an aggregate, then of a time range, leaving the rest visible', async () => {
    const dlq = await relayDlq('triage-relay-redrive');
    const orders = server.createTopic('triage-orders');
    const payments = server.createTopic('triage-payments');
    server.createQueue('triage-orders-q');
    server.createQueue('triage-payments-q');
    server.subscribe({ topic: 'triage-orders', queue: 'triage-orders-q', attributes: { RawMessageDelivery: 'true' } });
    server.subscribe({ topic: 'triage-payments', queue: 'triage-payments-q', attributes: { RawMessageDelivery: 'true' } });
    const base = {
      sqs: clients.sqs,
      sns: clients.sns,
      queueUrl: dlq.queueUrl,
      topicArns: { orders: orders.topicArn, payments: payments.topicArn },
    };

    const dry = await redriveRelayDlq({ ...base, dryRun: true, filter: { types: ['order.shipped'] } });
    expect(dry).toMatchObject({ moved: 1, unmatched: 7, filter: 'type order.shipped' });
    expect(queueDepth(server, 'triage-orders-q')).toBe(0);

    const byType = await redriveRelayDlq({ ...base, filter: { types: ['order.shipped'] } });
    expect(byType).toMatchObject({ moved: 1, unmatched: 7, skipped: [] });
    expect(ids('triage-orders-q')).toEqual(dlq.shipped.map((l) => l.eventId));

    const byAggregate = await redriveRelayDlq({ ...base, filter: { aggregate: { type: 'order', id: 'o-1' } } });
    expect(byAggregate).toMatchObject({ moved: 2, unmatched: 5 });
    expect(new Set(ids('triage-orders-q'))).toEqual(new Set([...dlq.shipped, ...dlq.placed].map((l) => l.eventId)));

    const byTime = await redriveRelayDlq({
      ...base,
      filter: { reason: 'PUBLISH_REJECTED', since: new Date(T3), until: new Date('2026-02-01T12:00:00.001Z') },
    });
    expect(byTime).toMatchObject({ moved: 2, unmatched: 3 });
    expect(new Set(ids('triage-payments-q'))).toEqual(new Set(dlq.captured.map((l) => l.eventId)));

    // Left: the unrouted letter, the malformed slot and the message that is not JSON, each visible again.
    expect(queueDepth(server, 'triage-relay-redrive')).toBe(3);
    expect(ready('triage-relay-redrive')).toBe(3);
    expect((await summarizeDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl })).groups.map((g) => g.reason).sort()).toEqual([
      'MALFORMED',
      'MALFORMED_SLOT',
      'UNKNOWN_ROUTE',
    ]);
  });

  it('moves from a subscriber DLQ only the messages of a reason or an aggregate type back to the source queue', async () => {
    const source = server.createQueue('triage-source');
    const dlq = server.createQueue('triage-source-dlq');
    const order = anEnvelope({ aggregateType: 'order', type: 'order.placed' }).body;
    const payment = snsNotification(anEnvelope({ aggregateType: 'payment', type: 'payment.captured' }).body);
    await send(dlq.queueUrl, [order, payment, 'garbage']);
    const base = { sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: source.queueUrl };

    expect(await redriveQueueDlq({ ...base, filter: { aggregateType: 'payment' } })).toMatchObject({ moved: 1, unmatched: 2 });
    expect(queueBodies(server, 'triage-source')).toEqual([payment]);

    expect(await redriveQueueDlq({ ...base, filter: { reason: 'MALFORMED' } })).toMatchObject({ moved: 1, unmatched: 1 });
    expect(queueBodies(server, 'triage-source')).toContain('garbage');
    expect(queueBodies(server, 'triage-source-dlq')).toEqual([order]);
    expect(ready('triage-source-dlq')).toBe(1);
  });

  it('on a FIFO DLQ, never moves a message past an earlier one of its group that does not match', async () => {
    const source = server.createQueue('triage-fifo-source.fifo', { attributes: { FifoQueue: 'true' } });
    const dlq = server.createQueue('triage-fifo-source-dlq.fifo', { attributes: { FifoQueue: 'true' } });
    const cancelled = anEnvelope({ aggregateId: 'g1', type: 'order.cancelled', sequence: 1 }).body;
    const placedBehind = anEnvelope({ aggregateId: 'g1', type: 'order.placed', sequence: 2 }).body;
    const placedAlone = anEnvelope({ aggregateId: 'g2', type: 'order.placed', sequence: 1 }).body;
    await send(dlq.queueUrl, [cancelled, placedBehind, placedAlone], (i) => (i < 2 ? 'g1' : 'g2'));

    const summary = await redriveQueueDlq({
      sqs: clients.sqs,
      queueUrl: dlq.queueUrl,
      targetQueueUrl: source.queueUrl,
      filter: { types: ['order.placed'] },
    });

    expect(summary.moved).toBe(1);
    expect(queueBodies(server, 'triage-fifo-source.fifo')).toEqual([placedAlone]);
    // The later message of g1 matches but stays behind the one that does not: seen and skipped, or not handed out at all.
    const behind = [...summary.skipped.map((s) => s.reason), ...(summary.notes ?? [])].join(' ');
    expect(behind).toMatch(/does not and stays|behind the 1 message it leaves in the queue/);
    // Both stay, in their order, visible again.
    expect(queueBodies(server, 'triage-fifo-source-dlq.fifo')).toEqual([cancelled, placedBehind]);
    expect(ready('triage-fifo-source-dlq.fifo')).toBe(2);
  });

  it('rejects a bad filter before reading anything', async () => {
    const { queueUrl } = server.createQueue('triage-bad-filter');
    await send(queueUrl, [anEnvelope().body]);
    const target = server.createQueue('triage-bad-filter-source').queueUrl;

    await expect(redriveQueueDlq({ sqs: clients.sqs, queueUrl, targetQueueUrl: target, filter: { reason: 'SLOW' } })).rejects.toThrow(
      new RedriveOptionsError(
        'filter.reason',
        'got "SLOW"; allowed: PUBLISH_REJECTED, MALFORMED_SLOT, UNKNOWN_ROUTE, MAX_RECEIVE_COUNT_EXCEEDED, MALFORMED',
      ),
    );
    await expect(summarizeDlq({ sqs: clients.sqs, queueUrl, filter: { since: new Date(T2), until: new Date(T1) } })).rejects.toBeInstanceOf(
      RedriveOptionsError,
    );
    expect(server.inspectQueue('triage-bad-filter')?.messages.ready.map((m) => m.approximateReceiveCount)).toEqual([0]);
  });
});
