import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../shared/consumer/parse.js';
import { trustProblem } from '../../shared/consumer/trust.js';
import { BATCH_CONTENT_TYPE, batchBody } from '../../shared/envelope.js';
import { anEnvelope, snsNotification, TEST_SOURCE, TEST_TOPIC_ARN } from '../helpers/envelopes.js';

const events = (count: number, first = 1) => Array.from({ length: count }, (_, i) => anEnvelope({ sequence: first + i }));
const batchOf = (bodies: readonly string[]) => batchBody(bodies);
const trust = { sources: new Set([TEST_SOURCE]), topicArns: new Set([TEST_TOPIC_ARN]) };

describe('parsing a CloudEvents batch', () => {
  it('reads every event of a batch in order, raw or SNS-enveloped, the first also as envelope', () => {
    const three = events(3);
    for (const body of [batchOf(three.map((e) => e.body)), snsNotification(batchOf(three.map((e) => e.body)))]) {
      const parsed = parseMessage(body);
      expect(parsed).toMatchObject({ status: 'parsed', batch: true, envelope: { id: three[0]!.id } });
      expect(parsed.status === 'parsed' && parsed.envelopes.map((e) => e.id)).toEqual(three.map((e) => e.id));
    }
  });

  it('reads one envelope as a message of one event, not a batch', () => {
    const parsed = parseMessage(anEnvelope().body);
    expect(parsed).toMatchObject({ status: 'parsed', batch: false, envelopes: [{ aggregatesequence: 1 }] });
  });

  it('rejects an empty batch and a batch with an event that is not an envelope, naming its place', () => {
    expect(parseMessage('[]')).toMatchObject({ status: 'rejected', error: { code: 'INVALID_ENVELOPE', message: /empty batch/ } });
    const [one] = events(1);
    expect(parseMessage(batchOf([one!.body, '{"specversion":"1.0"}']))).toMatchObject({
      status: 'rejected',
      error: { code: 'INVALID_ENVELOPE', message: /event \[1\] of the batch: id is undefined/ },
    });
  });

  it('rejects a batch of two aggregates, or whose events are not in their aggregate’s order', () => {
    const mixed = [anEnvelope({ aggregateId: 'a', sequence: 1 }).body, anEnvelope({ aggregateId: 'b', sequence: 2 }).body];
    expect(parseMessage(batchOf(mixed))).toMatchObject({
      status: 'rejected',
      error: { message: /event \[1\] has subject "b", event \[0\] "a"/ },
    });
    const backwards = [anEnvelope({ sequence: 2 }).body, anEnvelope({ sequence: 1 }).body];
    expect(parseMessage(batchOf(backwards))).toMatchObject({
      status: 'rejected',
      error: { message: /event \[1\] \(aggregatesequence 1\) does not come after event \[0\] \(aggregatesequence 2\)/ },
    });
  });

  it('allows a batch’s array one level of nesting above the envelope’s limit, no more', () => {
    const deep = (levels: number) => Array.from({ length: levels }).reduce<unknown>((inner) => ({ d: inner }), 1);
    // The envelope and 64 levels of data: the deepest a message may be, alone or in a batch.
    const deepest = anEnvelope({ data: deep(64) }).body;
    expect(parseMessage(deepest).status).toBe('parsed');
    expect(parseMessage(batchOf([deepest])).status).toBe('parsed');
    expect(parseMessage(`[${batchOf([deepest])}]`)).toMatchObject({ status: 'rejected', error: { code: 'LIMIT_EXCEEDED' } });
    expect(parseMessage(batchOf([anEnvelope({ data: deep(65) }).body]))).toMatchObject({
      status: 'rejected',
      error: { code: 'LIMIT_EXCEEDED' },
    });
  });
});

describe('trusting a CloudEvents batch', () => {
  const attributes = (contentType?: string) => ({
    type: { dataType: 'String', stringValue: 'order.placed' },
    aggregatetype: { dataType: 'String', stringValue: 'order' },
    ...(contentType === undefined ? {} : { 'content-type': { dataType: 'String', stringValue: contentType } }),
  });
  const parsed = (body: string) => {
    const result = parseMessage(body);
    if (result.status !== 'parsed') throw new Error('not parsed');
    return result;
  };
  const batch = batchOf(events(2).map((e) => e.body));

  it('trusts a batch marked with its content type, and one without the attribute', () => {
    expect(
      trustProblem(trust, parsed(batch), { messageId: 'm', body: batch, messageAttributes: attributes(BATCH_CONTENT_TYPE) }),
    ).toBeUndefined();
    expect(trustProblem(trust, parsed(batch), { messageId: 'm', body: batch, messageAttributes: attributes() })).toBeUndefined();
  });

  it('rejects a content-type attribute that says otherwise than the body', () => {
    const single = anEnvelope().body;
    expect(
      trustProblem(trust, parsed(batch), { messageId: 'm', body: batch, messageAttributes: attributes('application/json') }),
    ).toMatchObject({
      code: 'ATTRIBUTE_MISMATCH',
      message: /content-type is "application\/json", but the body is a CloudEvents batch/,
    });
    expect(
      trustProblem(trust, parsed(single), { messageId: 'm', body: single, messageAttributes: attributes(BATCH_CONTENT_TYPE) }),
    ).toMatchObject({
      code: 'ATTRIBUTE_MISMATCH',
      message: /but the body is one envelope/,
    });
  });

  it('rejects a batch one of whose events the attributes do not describe, or of a source not trusted', () => {
    const mixed = batchOf([anEnvelope({ sequence: 1 }).body, anEnvelope({ sequence: 2, type: 'order.paid' }).body]);
    expect(
      trustProblem(trust, parsed(mixed), { messageId: 'm', body: mixed, messageAttributes: attributes(BATCH_CONTENT_TYPE) }),
    ).toMatchObject({
      code: 'ATTRIBUTE_MISMATCH',
      message: /attribute type of event .* is "order.placed", but the envelope's type is "order.paid"/,
    });
    const foreign = batchOf([anEnvelope({ sequence: 1, source: 'urn:other' }).body, anEnvelope({ sequence: 2, source: 'urn:other' }).body]);
    expect(trustProblem(trust, parsed(foreign), { messageId: 'm', body: foreign })).toMatchObject({ code: 'UNTRUSTED_SOURCE' });
  });
});
