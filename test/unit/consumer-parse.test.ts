import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { parseMessage } from '../../shared/consumer/parse.js';
import { anEnvelope, snsNotification } from '../helpers/envelopes.js';

describe('parseMessage', () => {
  it('parses a raw envelope', () => {
    const event = anEnvelope({ type: 'order.placed', sequence: 3, data: { total: 5 } });
    const parsed = parseMessage(event.body);
    expect(parsed).toMatchObject({
      status: 'parsed',
      delivery: 'raw',
      envelope: { id: event.id, aggregatesequence: 3, data: { total: 5 } },
    });
  });

  it('parses an envelope of an earlier relay (a numeric sequence) into the current form, raw or SNS-enveloped', () => {
    const event = anEnvelope({ sequence: 3, legacy: true });
    expect(JSON.parse(event.body)).toMatchObject({ sequence: 3 });
    for (const body of [event.body, snsNotification(event.body)]) {
      const parsed = parseMessage(body);
      expect(parsed).toMatchObject({ status: 'parsed', envelope: { id: event.id, aggregatesequence: 3 } });
      expect(parsed.status === 'parsed' && parsed.envelope).not.toHaveProperty('sequence');
    }
  });

  it('takes aggregatesequence and leaves a sequence beside it alone (the spec’s String extension is not ours)', () => {
    const body = { ...JSON.parse(anEnvelope({ sequence: 4 }).body), sequence: '0000000009' };
    const parsed = parseMessage(JSON.stringify(body));
    expect(parsed).toMatchObject({ status: 'parsed', envelope: { aggregatesequence: 4, sequence: '0000000009' } });
  });

  it('parses the SNS-enveloped form', () => {
    const event = anEnvelope();
    const parsed = parseMessage(snsNotification(event.body));
    expect(parsed).toMatchObject({ status: 'parsed', delivery: 'sns-notification', envelope: { id: event.id } });
  });

  it('rejects a body that is not JSON, quoting what was given', () => {
    const parsed = parseMessage('hello {');
    expect(parsed.status).toBe('rejected');
    if (parsed.status === 'rejected') {
      expect(parsed.error.code).toBe('INVALID_JSON');
      expect(parsed.error.message).toContain('"hello {"');
    }
  });

  it('rejects an SNS notification whose Message is not JSON', () => {
    const parsed = parseMessage(JSON.stringify({ Type: 'Notification', Message: 'nope' }));
    expect(parsed.status === 'rejected' && parsed.error.code).toBe('INVALID_JSON');
  });

  it('rejects JSON that is not an envelope, naming the field', () => {
    const body = JSON.parse(anEnvelope().body);
    body.aggregatesequence = 0;
    const parsed = parseMessage(JSON.stringify(body));
    expect(parsed.status === 'rejected' && parsed.error.message).toContain('aggregatesequence is 0; allowed: a positive whole number');
  });

  it('rejects an envelope without a position, or with a malformed one of either form', () => {
    const current = JSON.parse(anEnvelope().body);
    const legacy = JSON.parse(anEnvelope({ legacy: true }).body);
    const { aggregatesequence: _, ...none } = current;
    const reasons = [
      none,
      { ...none, sequence: '1' },
      { ...current, aggregatesequence: '1' },
      { ...current, aggregatesequence: 1.5 },
      { ...legacy, sequence: 0 },
      { ...legacy, sequence: 2 ** 53 },
    ].map((value) => {
      const parsed = parseMessage(JSON.stringify(value));
      return parsed.status === 'rejected' ? `${parsed.error.code}: ${parsed.error.message.split(';')[0]}` : parsed.status;
    });
    expect(reasons).toEqual([
      'INVALID_ENVELOPE: The message is not an outbox CloudEvents envelope: aggregatesequence is undefined',
      'INVALID_ENVELOPE: The message is not an outbox CloudEvents envelope: aggregatesequence is undefined',
      'INVALID_ENVELOPE: The message is not an outbox CloudEvents envelope: aggregatesequence is "1"',
      'INVALID_ENVELOPE: The message is not an outbox CloudEvents envelope: aggregatesequence is 1.5',
      'INVALID_ENVELOPE: The message is not an outbox CloudEvents envelope: sequence is 0',
      'INVALID_ENVELOPE: The message is not an outbox CloudEvents envelope: sequence is 9007199254740992',
    ]);
  });

  test.prop([fc.string()])('never throws on any text', (text) => {
    const parsed = parseMessage(text);
    expect(['parsed', 'rejected']).toContain(parsed.status);
  });

  test.prop([fc.jsonValue()])('never throws on any JSON value, raw or SNS-enveloped', (value) => {
    const body = JSON.stringify(value);
    expect(parseMessage(body).status).toBe('rejected');
    expect(parseMessage(snsNotification(body)).status).toBe('rejected');
  });

  test.prop([fc.integer({ min: 1, max: 1_000_000 }), fc.jsonValue(), fc.boolean()])(
    'round-trips any sequence and data, in either form',
    (sequence, data, legacy) => {
      const event = anEnvelope({ sequence, data, legacy });
      const parsed = parseMessage(event.body);
      expect(parsed.status === 'parsed' && parsed.envelope.aggregatesequence).toBe(sequence);
      expect(parsed.status === 'parsed' && parsed.envelope.data).toEqual(JSON.parse(JSON.stringify(data ?? { total: 10 })));
    },
  );
});

describe('parseMessage given a body that is no string', () => {
  it.each([
    ['the envelope object itself', () => JSON.parse(anEnvelope().body), 'got an instance of Object'],
    ['undefined', () => undefined, 'got undefined'],
    ['a number', () => 42, 'got 42'],
  ])('%s: throws ConsumerOptionsError, as consumer.process refuses such a body (not a rejection, not a TypeError)', (_, body, said) => {
    let thrown: unknown;
    try {
      parseMessage(body() as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConsumerOptionsError);
    expect(thrown).toMatchObject({
      field: 'parseMessage.body',
      message: expect.stringContaining(`${said}; allowed: a string (the message body as text: JSON.stringify an envelope object)`),
    });
  });
});
