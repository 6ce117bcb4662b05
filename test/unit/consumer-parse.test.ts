import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../shared/consumer/parse.js';
import { anEnvelope, snsNotification } from '../helpers/envelopes.js';

describe('parseMessage', () => {
  it('parses a raw envelope', () => {
    const event = anEnvelope({ type: 'order.placed', sequence: 3, data: { total: 5 } });
    const parsed = parseMessage(event.body);
    expect(parsed).toMatchObject({ status: 'parsed', delivery: 'raw', envelope: { id: event.id, sequence: 3, data: { total: 5 } } });
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
    body.sequence = 0;
    const parsed = parseMessage(JSON.stringify(body));
    expect(parsed.status === 'rejected' && parsed.error.message).toContain('sequence is 0; allowed: a positive integer');
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

  test.prop([fc.integer({ min: 1, max: 1_000_000 }), fc.jsonValue()])('round-trips any sequence and data', (sequence, data) => {
    const event = anEnvelope({ sequence, data });
    const parsed = parseMessage(event.body);
    expect(parsed.status === 'parsed' && parsed.envelope.sequence).toBe(sequence);
    expect(parsed.status === 'parsed' && parsed.envelope.data).toEqual(JSON.parse(JSON.stringify(data ?? { total: 10 })));
  });
});
