import { CloudEvent, HTTP, ValidationError } from 'cloudevents';
import { describe, expect, it } from 'vitest';
import {
  aggregateSequenceOf,
  CLOUDEVENTS_INTEGER_MAX,
  type LegacyOutboxEnvelope,
  messageSize,
  normalizeEnvelope,
  type OutboxEnvelope,
  slotMessages,
} from '../../shared/envelope.js';
import type { OutboxSlot } from '../../shared/slot.js';
import { slotProblem } from '../../shared/slot.js';

const slot: OutboxSlot = {
  pk: 'OUTBOX#order#o-1',
  sk: 'OUTBOX',
  kind: 'outbox-slot',
  aggregateType: 'order',
  aggregateId: 'o-1',
  source: 'urn:test:shop',
  seq: 7,
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: 1_900_000_000,
  events: [
    { id: '01890a5d-ac96-774b-bcce-b302099a8057', type: 'order.placed', time: '2026-01-02T00:00:00.000Z', data: '{"total":42}' },
    {
      id: '01890a5d-ac96-774b-bcce-b302099a8058',
      type: 'order.priced',
      time: '2026-01-02T00:00:00.000Z',
      data: '{"total":40,"note":"ünïcødé"}',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    },
  ],
};

describe('CloudEvents envelope', () => {
  it('emits structured CloudEvents 1.0 that the cloudevents SDK parses and validates', () => {
    const messages = slotMessages(slot);
    expect(messages.map((m) => m.sequence)).toEqual([6, 7]);
    for (const message of messages) {
      const event = HTTP.toEvent({ headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' }, body: message.body });
      const single = Array.isArray(event) ? event[0] : event;
      expect(single).toBeInstanceOf(CloudEvent);
      expect((single as CloudEvent).validate()).toBe(true);
    }
    const [placed, priced] = messages.map((m) => JSON.parse(m.body));
    expect(placed).toEqual({
      specversion: '1.0',
      id: slot.events[0]?.id,
      source: 'urn:test:shop',
      type: 'order.placed',
      subject: 'o-1',
      time: '2026-01-02T00:00:00.000Z',
      datacontenttype: 'application/json',
      aggregatetype: 'order',
      aggregatesequence: 6,
      sequenceepoch: '2026-01-01T00:00:00.000Z',
      data: { total: 42 },
    });
    expect(priced.traceparent).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(priced.data).toEqual({ total: 40, note: 'ünïcødé' });
  });

  it('keeps the extensions valid for the SDK (lower-case names, typed values)', () => {
    const body = JSON.parse(slotMessages(slot)[1]?.body as string);
    const event = new CloudEvent(body, true);
    expect(event.aggregatesequence).toBe(7);
    expect(event.aggregatetype).toBe('order');
    expect(() => new CloudEvent({ ...body, source: undefined }, true)).toThrow(ValidationError);
  });

  it('carries the position as aggregatesequence, a CloudEvents Integer, and no sequence, which the spec keeps for a String ordering the whole source', () => {
    const counted: OutboxSlot = { ...slot, seq: CLOUDEVENTS_INTEGER_MAX, events: [slot.events[0]!] };
    for (const message of [...slotMessages(slot), ...slotMessages(counted)]) {
      const event = new CloudEvent<unknown>(JSON.parse(message.body), true);
      // The spec's Integer: a JSON number, whole, within a signed 32-bit range.
      expect(Number.isInteger(event.aggregatesequence)).toBe(true);
      expect(event.aggregatesequence).toBeGreaterThanOrEqual(1);
      expect(event.aggregatesequence).toBeLessThanOrEqual(CLOUDEVENTS_INTEGER_MAX);
      expect(event.aggregatesequence).toBe(message.sequence);
      expect(event).not.toHaveProperty('sequence');
      expect(message.body).not.toMatch(/"sequence":/);
    }
    expect(slotMessages(counted)[0]?.body).toContain(`"aggregatesequence":${CLOUDEVENTS_INTEGER_MAX},`);
  });

  it('reads the position of an envelope of either form, and turns one of an earlier relay into the current form', () => {
    const current = JSON.parse(slotMessages(slot)[0]?.body as string) as OutboxEnvelope;
    const { aggregatesequence, ...rest } = current;
    const legacy: LegacyOutboxEnvelope = { ...rest, sequence: aggregatesequence };
    expect(aggregateSequenceOf(current)).toBe(6);
    expect(aggregateSequenceOf(legacy)).toBe(6);
    expect(normalizeEnvelope(legacy)).toEqual(current);
    expect(normalizeEnvelope(legacy)).not.toHaveProperty('sequence');
    expect(normalizeEnvelope(current)).toBe(current);
  });

  it('writes the envelope as exactly the JSON of its fields, in order, with data spliced in as written', () => {
    const awkward: OutboxSlot = {
      ...slot,
      aggregateId: 'o-"1"\\ \u2028 \u0001 ünï \ud800',
      source: 'urn:test:"quoted"',
      events: [{ ...slot.events[1]!, type: 'order.\tpriced', data: '{"note":"ünïcødé","n":[1,2.5,null]}' }, slot.events[0]!],
    };
    for (const s of [slot, awkward]) {
      for (const [i, message] of slotMessages(s).entries()) {
        const event = s.events[i]!;
        expect(message.body).toBe(
          JSON.stringify({
            specversion: '1.0',
            id: event.id,
            source: s.source,
            type: event.type,
            subject: s.aggregateId,
            time: event.time,
            datacontenttype: 'application/json',
            aggregatetype: s.aggregateType,
            aggregatesequence: message.sequence,
            sequenceepoch: s.createdAt,
            ...(event.traceparent === undefined ? {} : { traceparent: event.traceparent }),
            data: JSON.parse(event.data),
          }),
        );
      }
    }
  });

  it('leaves out a stored tracestate W3C says not to pass on (no members, malformed), in the envelope and the message', () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const base = slot.events[0]!;
    const traced: OutboxSlot = {
      ...slot,
      events: [' , ', ',,', 'Upper=case', 'vendor=a'].map((tracestate, i) => ({ ...base, id: `${base.id}-${i}`, traceparent, tracestate })),
    };
    const messages = slotMessages(traced);
    expect(messages.map((message) => message.tracestate)).toEqual([undefined, undefined, undefined, 'vendor=a']);
    expect(messages.map((message) => (JSON.parse(message.body) as OutboxEnvelope).tracestate)).toEqual([
      undefined,
      undefined,
      undefined,
      'vendor=a',
    ]);
    for (const message of messages) expect(message.traceparent).toBe(traceparent);
  });

  it('counts message size in bytes, attributes included', () => {
    const body = slotMessages(slot)[1]?.body as string;
    expect(messageSize(body, 'order.priced', 'order')).toBe(
      Buffer.byteLength(body) +
        'type'.length +
        'String'.length +
        'order.priced'.length +
        'aggregatetype'.length +
        'String'.length +
        'order'.length,
    );
  });

  it('recognises a well-formed slot and names what is wrong with a broken one', () => {
    expect(slotProblem(slot as unknown as Record<string, unknown>)).toBeUndefined();
    expect(slotProblem({ ...slot, seq: 1 })).toBe('events outnumber seq');
    expect(slotProblem({ ...slot, pk: 'ORDER#o-1' })).toMatch(/does not start with OUTBOX#/);
    expect(slotProblem({ ...slot, events: [{ id: 'x' }] })).toBe('events[0].type is missing');
  });
});
