import type { StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EventSchemaError } from '../../shared/catalog/errors.js';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { envelopeJson, slotMessages } from '../../shared/envelope.js';
import type { OutboxSlot, SlotEvent } from '../../shared/slot.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';

const base = {
  source: 'urn:test:catalog',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
} as const;
const placed = z.object({ orderId: z.string(), total: z.number().nonnegative() });

/** A schema whose validate answers with a promise, as Standard Schema allows. */
const asyncSchema = (accept: (value: unknown) => boolean): StandardSchemaV1 => ({
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: async (value) => (accept(value) ? { value } : { issues: [{ message: 'refused asynchronously', path: ['total'] }] }),
  },
});

/** A write helper over a client that records what it is sent and answers as DynamoDB does to a commit. */
function recordingOutbox(extra: Partial<OutboxConfigInput>) {
  const sent: {
    TransactItems: { Update?: { ExpressionAttributeValues: Record<string, unknown> }; Put?: { Item: Record<string, unknown> } }[];
  }[] = [];
  const client = {
    config: {},
    send: async (command: { input: (typeof sent)[number] }) => {
      sent.push(command.input);
      return {};
    },
  };
  const config = defineConfig({ ...base, ...extra } as OutboxConfigInput);
  return { outbox: new Outbox({ config, tableName: 'outbox', client: client as never }), sent };
}

/** The events a recorded transaction stores in its slots. */
const storedEvents = (sent: ReturnType<typeof recordingOutbox>['sent']): SlotEvent[] =>
  sent.flatMap((input) =>
    input.TransactItems.flatMap(
      (item) => (item.Update?.ExpressionAttributeValues[':events'] ?? item.Put?.Item.events ?? []) as SlotEvent[],
    ),
  );

const event = (data: unknown, type = 'order.placed', aggregateType = 'order') => ({
  aggregate: { type: aggregateType, id: 'o-1' },
  type,
  data,
});

/** The EventSchemaError a write is refused with. */
async function refusal(outbox: Outbox, input: WriteInput): Promise<EventSchemaError> {
  const error = await outbox.write(input).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EventSchemaError);
  return error as EventSchemaError;
}

describe('write helper: the event catalog', () => {
  it('refuses data its type’s schema rejects, naming the type, the version and each issue with its path, and sends nothing', async () => {
    const { outbox, sent } = recordingOutbox({ eventTypes: { 'order.placed': { version: 3, schema: placed } } });
    const error = await refusal(outbox, { events: [event({ orderId: 'o-1', total: 1 }), event({ orderId: 7, total: -1 })] });
    expect(error.code).toBe('EVENT_DATA_INVALID');
    expect(error).toMatchObject({ index: 1, eventType: 'order.placed', version: 3 });
    expect(error.issues.map((i) => i.path)).toEqual(['orderId', 'total']);
    expect(error.message).toMatch(
      /^events\[1\]\.data does not match the schema of "order\.placed" version 3: orderId: .+; total: .+; allowed:/,
    );
    expect(sent).toEqual([]);
  });

  it('bounds the message: the first five issues, each cut to 200 characters, and how many more', async () => {
    const wide = z.object(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, z.string().regex(/^x$/, 'y'.repeat(500))])));
    const { outbox } = recordingOutbox({ eventTypes: { 'order.placed': { version: 1, schema: wide } } });
    const error = await refusal(outbox, { events: [event(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, 'z'])))] });
    expect(error.issues).toHaveLength(8);
    expect(error.message).toContain('(and 3 more)');
    expect(error.message.length).toBeLessThan(5 * 205 + 400);
  });

  it('awaits a schema that answers with a promise, and refuses by it', async () => {
    const schema = asyncSchema((value) => (value as { total: number }).total >= 0);
    const { outbox, sent } = recordingOutbox({ eventTypes: { 'order.placed': { version: 1, schema } } });
    const error = await refusal(outbox, { events: [event({ total: 1 }), event({ total: -1 })] });
    expect(error).toMatchObject({ code: 'EVENT_DATA_INVALID', index: 1, issues: [{ path: 'total', message: 'refused asynchronously' }] });
    expect(sent).toEqual([]);
    await outbox.write({ events: [event({ total: 2 })] });
    expect(storedEvents(sent)).toHaveLength(1);
  });

  it('refuses data that makes the schema throw, keeping the error as cause', async () => {
    const throwing = z.object({ total: z.number() }).transform(() => {
      throw new Error('boom');
    });
    const { outbox } = recordingOutbox({ eventTypes: { 'order.placed': { version: 1, schema: throwing } } });
    const error = await refusal(outbox, { events: [event({ total: 1 })] });
    expect(error.message).toMatch(/made the schema of "order\.placed" version 1 throw \(boom\)/);
    expect((error.cause as Error).message).toBe('boom');
  });

  it('validates against the newest declared version and names it in the stored event’s dataschema', async () => {
    const v1 = z.object({ total: z.number() });
    const v2 = z.object({ total: z.object({ amount: z.number() }) });
    const { outbox, sent } = recordingOutbox({
      eventTypes: {
        'order.placed': [
          { version: 1, schema: v1 },
          { version: 2, schema: v2 },
        ],
      },
    });
    expect((await refusal(outbox, { events: [event({ total: 1 })] })).version).toBe(2);
    await outbox.write({ events: [event({ total: { amount: 1 } })] });
    expect(storedEvents(sent)[0]?.dataschema).toBe('urn:test:catalog#order.placed:2');
  });

  it('stores the data as given, not the schema’s output (unknown keys stay, transforms do not apply)', async () => {
    const { outbox, sent } = recordingOutbox({
      eventTypes: { 'order.placed': { version: 1, schema: z.object({ total: z.string().transform(Number) }) } },
    });
    await outbox.write({ events: [event({ total: '42', note: 'kept' })] });
    expect(JSON.parse(storedEvents(sent)[0]?.data as string)).toEqual({ total: '42', note: 'kept' });
  });

  it('refuses an undeclared type by default, and writes it unchecked without dataschema under "allow"', async () => {
    const eventTypes = { 'order.placed': { version: 1, schema: placed } };
    const strict = recordingOutbox({ eventTypes });
    const error = await refusal(strict.outbox, { events: [event({}, 'order.plcaed')] });
    expect(error.code).toBe('EVENT_TYPE_UNDECLARED');
    expect(error.message).toMatch(
      /events\[0\]\.type "order\.plcaed" is not declared .*; allowed: "order\.placed" \(or undeclaredEventTypes: "allow"/,
    );
    expect(strict.sent).toEqual([]);

    const loose = recordingOutbox({ eventTypes, undeclaredEventTypes: 'allow' });
    await loose.outbox.write({ events: [event({ any: 1 }, 'order.noted')] });
    expect(storedEvents(loose.sent)[0]).not.toHaveProperty('dataschema');
  });

  it('refuses a type on another aggregate type than its declaration names', async () => {
    const { outbox } = recordingOutbox({ eventTypes: { 'order.placed': { version: 1, aggregateType: 'order' } } });
    const error = await refusal(outbox, { events: [event({}, 'order.placed', 'payment')] });
    expect(error).toMatchObject({ code: 'EVENT_AGGREGATE_MISMATCH', version: 1 });
    expect(error.message).toMatch(/is on aggregate type "payment"; allowed: "order"/);
  });

  it('writes a declared type without a schema with its dataschema, data unchecked', async () => {
    const { outbox, sent } = recordingOutbox({ eventTypes: { 'payment.captured': { version: 4 } } });
    await outbox.write({ events: [event({ anything: true }, 'payment.captured', 'payment')] });
    expect(storedEvents(sent)[0]).toMatchObject({ dataschema: 'urn:test:catalog#payment.captured:4' });
  });

  it('takes any Standard Schema: a valibot schema refuses by its own issues', async () => {
    const { outbox } = recordingOutbox({ eventTypes: { 'order.placed': { version: 1, schema: v.object({ total: v.number() }) } } });
    const error = await refusal(outbox, { events: [event({ total: 'x' })] });
    expect(error.issues[0]?.path).toBe('total');
  });

  it('stores no dataschema and checks nothing without a catalog', async () => {
    const { outbox, sent } = recordingOutbox({});
    await outbox.write({ events: [event({ whatever: [1] }, 'anything.at.all')] });
    expect(storedEvents(sent)[0]).not.toHaveProperty('dataschema');
  });
});

describe('envelope: dataschema', () => {
  const slot = (events: SlotEvent[]): OutboxSlot => ({
    pk: 'OUTBOX#order#o-1',
    sk: 'OUTBOX',
    kind: 'outbox-slot',
    aggregateType: 'order',
    aggregateId: 'o-1',
    source: 'urn:test:catalog',
    seq: events.length,
    createdAt: '2026-01-01T00:00:00.000Z',
    events,
    expiresAt: 1,
  });
  const stored = { id: 'e-1', type: 'order.placed', time: '2026-01-01T00:00:00.000Z', data: '{"total":1}' };

  it('carries the stored event’s dataschema as the CloudEvents attribute, and none when the event has none', () => {
    const [withSchema, without] = slotMessages(slot([{ ...stored, dataschema: 'urn:test:catalog#order.placed:1' }, stored]));
    expect(JSON.parse(withSchema?.body as string).dataschema).toBe('urn:test:catalog#order.placed:1');
    expect(JSON.parse(without?.body as string)).not.toHaveProperty('dataschema');
  });

  it('writes the same text as JSON.stringify of the envelope, the dataschema after datacontenttype', () => {
    const context = { source: 'urn:s', aggregateType: 'order', aggregateId: 'o-1', sequenceEpoch: 't' };
    const body = envelopeJson(context, { ...stored, dataschema: 'urn:s#order.placed:1' }, 1);
    const parsed = JSON.parse(body);
    expect(JSON.stringify(parsed)).toBe(body);
    expect(Object.keys(parsed).indexOf('dataschema')).toBe(Object.keys(parsed).indexOf('datacontenttype') + 1);
  });
});
