import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  deadLetterBody,
  deadLetterEnvelope,
  deadLetterRawImage,
  MAX_DEAD_LETTER_MESSAGE_BYTES,
  RELAY_DEAD_LETTER_KIND,
  type RelayDeadLetter,
} from '../../shared/dead-letter.js';

const letter = (fields: Partial<RelayDeadLetter>): RelayDeadLetter => ({
  kind: RELAY_DEAD_LETTER_KIND,
  version: 1,
  reason: 'PUBLISH_REJECTED',
  detail: 'SNS rejected the message',
  failedAt: '2026-01-01T00:00:00.000Z',
  record: { eventSourceArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/outbox/stream/x', sequenceNumber: '100' },
  ...fields,
});

const envelopeWith = (data: string) => JSON.stringify({ specversion: '1.0', id: 'e-1', type: 'order.placed', data: { note: data } });

describe('relay dead letter body', () => {
  it('is the letter as plain JSON while SQS takes it so', () => {
    const small = letter({ envelope: envelopeWith('ok'), topic: 'orders' });
    expect(deadLetterBody(small)).toBe(JSON.stringify(small));
    expect(deadLetterEnvelope(JSON.parse(deadLetterBody(small)))).toBe(small.envelope);
  });

  it('carries an envelope that escaping takes over SQS’s limit gzip’d, and gives it back byte for byte', () => {
    // 390,000 control characters and quotes: 450 KB of envelope, 2.4 MB once escaped inside the letter.
    const envelope = envelopeWith('\u0001"\\'.repeat(130_000));
    const body = deadLetterBody(letter({ envelope, topic: 'orders', eventId: 'e-1' }));
    expect(Buffer.byteLength(JSON.stringify(letter({ envelope })))).toBeGreaterThan(MAX_DEAD_LETTER_MESSAGE_BYTES);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_DEAD_LETTER_MESSAGE_BYTES);
    const parsed = JSON.parse(body) as RelayDeadLetter;
    expect(parsed).toMatchObject({ reason: 'PUBLISH_REJECTED', topic: 'orders', eventId: 'e-1', record: { sequenceNumber: '100' } });
    expect(parsed.envelope).toBeUndefined();
    expect(deadLetterEnvelope(parsed)).toBe(envelope);
  });

  it('carries a raw image too large for SQS in plain JSON gzip’d', () => {
    const rawImage = { pk: { S: 'OUTBOX#order#o-1' }, events: { S: '\u0002'.repeat(400_000) } };
    const parsed = JSON.parse(deadLetterBody(letter({ reason: 'MALFORMED_SLOT', rawImage }))) as RelayDeadLetter;
    expect(parsed.rawImage).toBeUndefined();
    expect(deadLetterRawImage(parsed)).toEqual(rawImage);
    expect(deadLetterEnvelope(parsed)).toBeUndefined();
  });

  fcTest.prop([fc.string({ unit: 'binary', maxLength: 50 }), fc.integer({ min: 1, max: 200_000 })], { numRuns: 20 })(
    'fits SQS and gives the envelope back, whatever characters a slot-sized envelope holds',
    (piece, times) => {
      const envelope = envelopeWith(piece.repeat(Math.ceil(times / Math.max(1, piece.length))));
      const body = deadLetterBody(letter({ envelope }));
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_DEAD_LETTER_MESSAGE_BYTES);
      expect(deadLetterEnvelope(JSON.parse(body))).toBe(envelope);
    },
  );
});
