import { gzipSync } from 'node:zlib';
import { v7 as uuidv7 } from 'uuid';
import { RELAY_DEAD_LETTER_KIND, type RelayDeadLetter } from '../../shared/dead-letter.js';
import { anEnvelope } from './envelopes.js';

/**
 * A relay dead letter holding a full envelope, as the relay writes it for a rejected publish;
 * with `gzip`, the envelope is carried gzip'd, as in a letter too large for SQS in plain text.
 */
export function aRelayDeadLetter(spec: {
  /** Left out: an `UNKNOWN_ROUTE` letter, as the relay writes one for an aggregate type without a route. */
  topic?: string;
  aggregateType?: string;
  aggregateId?: string;
  sequence?: number;
  type?: string;
  gzip?: boolean;
  /** The envelope as relays wrote it before `aggregatesequence`. */
  legacy?: boolean;
}): {
  eventId: string;
  envelope: string;
  body: string;
} {
  const eventId = uuidv7();
  const envelope = anEnvelope({
    id: eventId,
    type: spec.type ?? `${spec.aggregateType ?? 'payment'}.captured`,
    aggregateType: spec.aggregateType ?? 'payment',
    aggregateId: spec.aggregateId ?? `p-${eventId.slice(-6)}`,
    sequence: spec.sequence ?? 1,
    legacy: spec.legacy,
  });
  const letter: RelayDeadLetter = {
    kind: RELAY_DEAD_LETTER_KIND,
    version: 1,
    ...(spec.topic === undefined
      ? { reason: 'UNKNOWN_ROUTE', detail: `aggregate type "${spec.aggregateType ?? 'payment'}" has no route` }
      : { reason: 'PUBLISH_REJECTED', detail: 'InvalidParameter: test rejection', topic: spec.topic }),
    failedAt: new Date().toISOString(),
    record: { sequenceNumber: '100', eventId: 'stream-event-1' },
    ...(spec.gzip === true ? { envelopeGzip: gzipSync(envelope.body).toString('base64') } : { envelope: envelope.body }),
    eventId,
    eventType: spec.type ?? 'payment.captured',
    aggregateType: spec.aggregateType ?? 'payment',
    aggregateId: spec.aggregateId ?? 'p-1',
  };
  return { eventId, envelope: envelope.body, body: JSON.stringify(letter) };
}

/** A dead letter the relay wrote for a slot it could not decode: no envelope, so it cannot be republished. */
export function aMalformedSlotDeadLetter(): string {
  const letter: RelayDeadLetter = {
    kind: RELAY_DEAD_LETTER_KIND,
    version: 1,
    reason: 'MALFORMED_SLOT',
    detail: 'seq is not a positive integer',
    failedAt: new Date().toISOString(),
    record: { sequenceNumber: '200' },
    rawImage: { pk: { S: 'OUTBOX#order#x' } },
  };
  return JSON.stringify(letter);
}
