import type { Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { parseCommandLine, usageFor } from '../../shared/redrive/cli-command.js';
import { checkDeadLetterFilter, matchesDeadLetterFilter } from '../../shared/redrive/dead-letter-filter.js';
import { describeDeadLetter } from '../../shared/redrive/dead-letter-info.js';
import { DLQ_USAGE, parseDlqArgs } from '../../shared/redrive/dlq-cli.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { filterFromArgs } from '../../shared/redrive/filter-args.js';
import { aMalformedSlotDeadLetter, aRelayDeadLetter } from '../helpers/dead-letters.js';
import { anEnvelope, snsNotification } from '../helpers/envelopes.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq';
const SENT = Date.parse('2026-03-01T12:00:00.000Z');
const message = (body: string): Message => ({
  MessageId: 'm-1',
  Body: body,
  Attributes: { SentTimestamp: String(SENT), ApproximateReceiveCount: '4' },
});
const withTime = (envelope: string, time: string) => JSON.stringify({ ...JSON.parse(envelope), time });

/** The refusal a call throws, for its field and message. */
function refusal(call: () => unknown): RedriveOptionsError {
  try {
    call();
  } catch (error) {
    if (error instanceof RedriveOptionsError) return error;
    throw error;
  }
  throw new Error('expected a RedriveOptionsError');
}

describe('describeDeadLetter', () => {
  it("reads a relay dead letter's reason, event type, aggregate and the envelope's time", () => {
    const letter = aRelayDeadLetter({ topic: 'orders', type: 'order.placed', aggregateType: 'order', aggregateId: 'o-7' });
    const body = JSON.parse(letter.body);
    body.envelope = withTime(body.envelope, '2026-02-01T00:00:00.000Z');
    expect(describeDeadLetter(message(JSON.stringify(body)))).toMatchObject({
      kind: 'relay',
      reason: 'PUBLISH_REJECTED',
      eventType: 'order.placed',
      aggregateType: 'order',
      aggregateId: 'o-7',
      time: Date.parse('2026-02-01T00:00:00.000Z'),
      timeSource: 'envelope',
      receiveCount: 4,
    });
  });

  it("times a relay dead letter without an envelope by the message's SentTimestamp", () => {
    expect(describeDeadLetter(message(aMalformedSlotDeadLetter()))).toMatchObject({
      kind: 'relay',
      reason: 'MALFORMED_SLOT',
      time: SENT,
      timeSource: 'sent',
    });
  });

  it('reads a subscriber envelope, raw or in an SNS notification, as MAX_RECEIVE_COUNT_EXCEEDED', () => {
    const envelope = withTime(
      anEnvelope({ type: 'order.shipped', aggregateType: 'order', aggregateId: 'o-9' }).body,
      '2026-02-02T00:00:00Z',
    );
    for (const body of [envelope, snsNotification(envelope)]) {
      expect(describeDeadLetter(message(body))).toMatchObject({
        kind: 'subscriber',
        reason: 'MAX_RECEIVE_COUNT_EXCEEDED',
        eventType: 'order.shipped',
        aggregateType: 'order',
        aggregateId: 'o-9',
        time: Date.parse('2026-02-02T00:00:00Z'),
      });
    }
  });

  it('times a letter whose envelope time is no RFC 3339 date-time by its SentTimestamp, labelled as sent', () => {
    for (const time of ['5', '2026-02-01T00:00:00', '2026-02-30T00:00:00Z']) {
      const envelope = withTime(anEnvelope({ type: 'order.shipped' }).body, time);
      const letter = JSON.parse(aRelayDeadLetter({ topic: 'orders', type: 'order.shipped' }).body);
      letter.envelope = envelope;
      for (const body of [envelope, JSON.stringify(letter)]) {
        expect(describeDeadLetter(message(body))).toMatchObject({ time: SENT, timeSource: 'sent' });
      }
    }
  });

  it('classifies anything else as MALFORMED with the reason, and never throws', () => {
    for (const body of [
      'not json',
      '{"kind":"outbox-relay-dead-letter","reason":"BOGUS"}',
      '[]',
      '{"Type":"Notification","Message":7}',
      '',
    ]) {
      const info = describeDeadLetter(message(body));
      expect(info.kind).toBe('malformed');
      expect(info.reason).toBe('MALFORMED');
      expect(info.detail).toBeTruthy();
      expect(info.time).toBe(SENT);
    }
    expect(describeDeadLetter({}).reason).toBe('MALFORMED');
  });
});

describe('dead-letter filter', () => {
  const info = describeDeadLetter(
    message(withTime(anEnvelope({ type: 'order.placed', aggregateType: 'order', aggregateId: 'o-1' }).body, '2026-02-01T10:00:00Z')),
  );

  it('matches when every field given matches, since inclusive and until exclusive', () => {
    expect(matchesDeadLetterFilter(info, undefined)).toBe(true);
    expect(matchesDeadLetterFilter(info, { reason: 'MAX_RECEIVE_COUNT_EXCEEDED', types: ['x', 'order.placed'] })).toBe(true);
    expect(matchesDeadLetterFilter(info, { aggregate: { type: 'order', id: 'o-1' }, aggregateType: 'order' })).toBe(true);
    expect(matchesDeadLetterFilter(info, { since: new Date('2026-02-01T10:00:00Z') })).toBe(true);
    expect(matchesDeadLetterFilter(info, { until: new Date('2026-02-01T10:00:00Z') })).toBe(false);
    expect(matchesDeadLetterFilter(info, { reason: 'PUBLISH_REJECTED' })).toBe(false);
    expect(matchesDeadLetterFilter(info, { types: ['order.shipped'] })).toBe(false);
    expect(matchesDeadLetterFilter(info, { aggregate: { type: 'order', id: 'o-2' } })).toBe(false);
    expect(matchesDeadLetterFilter(describeDeadLetter(message('junk')), { types: ['order.placed'] })).toBe(false);
  });

  it('matches a batch message when any one of its events matches type and time together', () => {
    const event = (type: string, sequence: number, time: string) =>
      JSON.parse(withTime(anEnvelope({ type, aggregateId: 'o-1', sequence }).body, time));
    const batch = describeDeadLetter(
      message(JSON.stringify([event('order.placed', 1, '2026-02-01T10:00:00Z'), event('order.shipped', 2, '2026-02-01T12:00:00Z')])),
    );
    expect(batch.batch).toHaveLength(2);
    expect(matchesDeadLetterFilter(batch, { types: ['order.shipped'] })).toBe(true);
    expect(matchesDeadLetterFilter(batch, { since: new Date('2026-02-01T11:00:00Z') })).toBe(true);
    expect(matchesDeadLetterFilter(batch, { types: ['order.shipped'], since: new Date('2026-02-01T12:00:00Z') })).toBe(true);
    // The event fields hold for one event together: no event is an order.placed at or after 11:00.
    expect(matchesDeadLetterFilter(batch, { types: ['order.placed'], since: new Date('2026-02-01T11:00:00Z') })).toBe(false);
    expect(matchesDeadLetterFilter(batch, { types: ['order.cancelled'] })).toBe(false);
    expect(matchesDeadLetterFilter(batch, { since: new Date('2026-02-01T12:00:00.001Z') })).toBe(false);
    expect(matchesDeadLetterFilter(batch, { until: new Date('2026-02-01T10:00:00Z') })).toBe(false);
  });

  it('rejects a filter that could only match by mistake, naming the field', () => {
    expect(refusal(() => checkDeadLetterFilter({ reason: 'TIMEOUT' })).field).toBe('filter.reason');
    expect(refusal(() => checkDeadLetterFilter({ types: [] })).field).toBe('filter.types');
    expect(refusal(() => checkDeadLetterFilter({ aggregateType: '' })).field).toBe('filter.aggregateType');
    expect(refusal(() => checkDeadLetterFilter({ aggregate: { type: 'order', id: '' } })).field).toBe('filter.aggregate');
    expect(refusal(() => checkDeadLetterFilter({ aggregate: { type: 'order', id: '1' }, aggregateType: 'cart' })).field).toBe(
      'filter.aggregate',
    );
    expect(refusal(() => checkDeadLetterFilter({ since: new Date('nope') })).field).toBe('filter.since');
    expect(refusal(() => checkDeadLetterFilter({ since: new Date('2026-02-02'), until: new Date('2026-02-01') })).field).toBe(
      'filter.until',
    );
  });
});

describe('filter flags', () => {
  it('parses every filter flag, --type repeated, into the redrive commands', () => {
    const argv = ['redrive', 'queue-dlq', '--queue-url', DLQ, '--to', `${DLQ}-src`, '--type', 'a.b', '--type', 'c.d'];
    const command = parseRedriveArgs([
      ...argv,
      '--reason',
      'MAX_RECEIVE_COUNT_EXCEEDED',
      '--aggregate',
      'order:o:1',
      '--since',
      '2026-05-01',
      '--until',
      '2026-05-01T10:00:00+02:00',
    ]);
    expect(command).toMatchObject({
      kind: 'queue-dlq',
      filter: {
        reason: 'MAX_RECEIVE_COUNT_EXCEEDED',
        types: ['a.b', 'c.d'],
        aggregate: { type: 'order', id: 'o:1' },
        since: new Date('2026-05-01T00:00:00Z'),
        until: new Date('2026-05-01T08:00:00Z'),
      },
    });
    expect(
      parseRedriveArgs(['redrive', 'relay-dlq', '--queue-url', DLQ, '--topic-arns', '{"t":"arn:aws:sns:eu-west-1:123456789012:t"}']),
    ).not.toHaveProperty('filter');
  });

  it('rejects bad filter values with the flag, the value and what is allowed', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { reason: 'publish_rejected' },
        '--reason',
        'allowed: PUBLISH_REJECTED, MALFORMED_SLOT, UNKNOWN_ROUTE, MAX_RECEIVE_COUNT_EXCEEDED, MALFORMED',
      ],
      [{ type: [' '] }, '--type', 'allowed: an event type'],
      [{ 'aggregate-type': '' }, '--aggregate-type', 'allowed: an aggregate type'],
      [{ aggregate: 'order' }, '--aggregate', 'allowed: TYPE:ID'],
      [{ aggregate: 'order:' }, '--aggregate', 'allowed: TYPE:ID'],
      [{ aggregate: 'order:1', 'aggregate-type': 'cart' }, '--aggregate', 'the same type in both'],
      [{ since: 'yesterday' }, '--since', 'allowed: a UTC date (2026-03-01, its midnight) or an ISO 8601 time'],
      [{ since: '2026-02-30' }, '--since', 'got "2026-02-30"'],
      // Date reads both as 2 or 3 March: a day that does not exist is refused in a date-time too.
      [{ since: '2026-02-30T10:00:00Z' }, '--since', 'got "2026-02-30T10:00:00Z"'],
      [{ until: '2026-04-31T00:00+02:00' }, '--until', 'got "2026-04-31T00:00+02:00"'],
      [{ until: '2026-05-01T10:00:00' }, '--until', 'with Z or an offset'],
      [{ since: '2026-05-02', until: '2026-05-01' }, '--until', 'not after --since "2026-05-02"'],
    ];
    for (const [values, flag, text] of cases) {
      const error = refusal(() => filterFromArgs(values));
      expect(error.field).toBe(flag);
      expect(error.message).toContain(text);
    }
  });

  it('rejects filters on on-failure, and any other repeated flag', () => {
    const onFailure = [
      'redrive',
      'on-failure',
      '--queue-url',
      DLQ,
      '--topic-arns',
      '{"t":"arn:aws:sns:eu-west-1:123456789012:t"}',
      '--reason',
      'MALFORMED',
    ];
    expect(refusal(() => parseRedriveArgs(onFailure)).message).toContain('--reason: does not apply to on-failure');
    expect(refusal(() => parseRedriveArgs([...onFailure.slice(0, 6), '--reason', 'MALFORMED', '--reason', 'MALFORMED'])).message).toContain(
      '--reason: given twice',
    );
  });
});

describe('dlq command line', () => {
  it('parses dlq summarize, with --json, --max and filters', () => {
    expect(parseCommandLine(['dlq', 'summarize', '--queue-url', DLQ, '--json', '--max', '5', '--reason', 'UNKNOWN_ROUTE'])).toEqual({
      kind: 'dlq-summarize',
      queueUrl: DLQ,
      json: true,
      maxMessages: 5,
      filter: { reason: 'UNKNOWN_ROUTE' },
    });
    expect(parseCommandLine(['dlq', '--help'])).toEqual({ kind: 'dlq-help' });
  });

  it('rejects a missing or unknown action and a missing queue URL, with the dlq usage to show', () => {
    for (const [argv, field] of [
      [['dlq'], 'dlq'],
      [['dlq', 'purge', '--queue-url', DLQ], 'dlq'],
      [['dlq', 'summarize'], '--queue-url'],
      [['dlq', 'summarize', '--queue-url', 'sqs://x'], '--queue-url'],
      [['dlq', 'summarize', '--queue-url', DLQ, '--to', DLQ], 'option'],
    ] as const) {
      const error = refusal(() => parseDlqArgs(argv));
      expect(error.field).toBe(field);
      expect(usageFor(error, argv)).toBe(DLQ_USAGE);
    }
  });
});

describe('filtered FIFO redrive', () => {
  /** A FIFO DLQ that hands out all its messages in one receive, several of a group, as SQS may. */
  function fakeFifoDlq(messages: Message[]) {
    const sent: { body: string; group: string | undefined }[] = [];
    const deleted: string[] = [];
    let handedOut = false;
    const sqs = {
      send: async (command: { constructor: { name: string }; input: Record<string, unknown> }): Promise<unknown> => {
        switch (command.constructor.name) {
          case 'GetQueueAttributesCommand':
            return { Attributes: { ApproximateNumberOfMessages: String(messages.length - deleted.length) } };
          case 'ReceiveMessageCommand':
            if (handedOut) return { Messages: [] };
            handedOut = true;
            return { Messages: messages };
          case 'SendMessageBatchCommand': {
            const entries = command.input.Entries as { Id: string; MessageBody: string; MessageGroupId?: string }[];
            sent.push(...entries.map((e) => ({ body: e.MessageBody, group: e.MessageGroupId })));
            return { Successful: entries.map((e) => ({ Id: e.Id })) };
          }
          case 'DeleteMessageBatchCommand': {
            const entries = command.input.Entries as { Id: string; ReceiptHandle: string }[];
            deleted.push(...entries.map((e) => e.ReceiptHandle));
            return { Successful: entries.map((e) => ({ Id: e.Id })) };
          }
          default:
            return {};
        }
      },
    };
    return { sqs: sqs as unknown as import('@aws-sdk/client-sqs').SQSClient, sent, deleted };
  }

  it('keeps a matching message behind an earlier one of its group that does not match, and moves other groups', async () => {
    const { redriveQueueDlq } = await import('../../shared/redrive/queue-dlq.js');
    const fifoMessage = (id: string, group: string, type: string): Message => ({
      MessageId: id,
      ReceiptHandle: `rh-${id}`,
      Body: anEnvelope({ type, aggregateId: group }).body,
      Attributes: { MessageGroupId: group, SentTimestamp: String(SENT) },
    });
    const { sqs, sent, deleted } = fakeFifoDlq([
      fifoMessage('m1', 'g1', 'order.cancelled'),
      fifoMessage('m2', 'g1', 'order.placed'),
      fifoMessage('m3', 'g2', 'order.placed'),
    ]);

    const summary = await redriveQueueDlq({
      sqs,
      queueUrl: `${DLQ}.fifo`,
      targetQueueUrl: `${DLQ}-source.fifo`,
      filter: { types: ['order.placed'] },
    });

    expect(sent.map((s) => s.group)).toEqual(['g2']);
    expect(deleted).toEqual(['rh-m3']);
    expect(summary).toMatchObject({ processed: 3, moved: 1, unmatched: 1 });
    expect(summary.skipped).toEqual([
      {
        id: 'm2',
        reason: 'matches, but earlier message m1 of group g1 does not and stays: moving this one would put it ahead of that one',
      },
    ]);
  });
});

describe('summarizeDlq bounds', () => {
  it('stops with status partial when SQS refuses to hide more (OverLimit), and releases what it read', async () => {
    const { summarizeDlq } = await import('../../shared/redrive/dlq-summary.js');
    const released: string[] = [];
    let receives = 0;
    const sqs = {
      send: async (command: { constructor: { name: string }; input: Record<string, unknown> }): Promise<unknown> => {
        if (command.constructor.name === 'GetQueueAttributesCommand') return { Attributes: { ApproximateNumberOfMessages: '200000' } };
        if (command.constructor.name === 'ReceiveMessageCommand') {
          receives += 1;
          if (receives > 1) throw Object.assign(new Error('Too many messages in flight'), { name: 'OverLimit' });
          return { Messages: [{ ...message(anEnvelope().body), MessageId: 'm-1', ReceiptHandle: 'rh-1' }] };
        }
        if (command.constructor.name === 'ChangeMessageVisibilityBatchCommand') {
          const entries = command.input.Entries as { ReceiptHandle: string; VisibilityTimeout: number }[];
          released.push(...entries.filter((e) => e.VisibilityTimeout === 0).map((e) => e.ReceiptHandle));
          return {};
        }
        throw new Error(`unexpected ${command.constructor.name}`);
      },
    } as unknown as import('@aws-sdk/client-sqs').SQSClient;

    const summary = await summarizeDlq({ sqs, queueUrl: DLQ });

    expect(summary).toMatchObject({ status: 'partial', read: 1, before: 200_000 });
    expect(summary.notes[0]).toContain('OverLimit: at most 120,000 in flight');
    expect(released).toEqual(['rh-1']);
  });
});
