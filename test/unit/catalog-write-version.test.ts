import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EventSchemaError } from '../../shared/catalog/errors.js';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { WriteValidationError } from '../../shared/errors.js';
import type { SlotEvent } from '../../shared/slot.js';
import { writeFingerprint } from '../../shared/write/idempotency.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';

const placedV1 = z.object({ total: z.number() });
const placedV2 = z.object({ total: z.object({ amount: z.number(), currency: z.string() }) });
const catalog = {
  source: 'urn:test:versions',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  eventTypes: {
    'order.placed': [
      { version: 1, schema: placedV1, aggregateType: 'order' },
      { version: 2, schema: placedV2, aggregateType: 'payment' },
    ],
  },
} as const;

type Sent = {
  TransactItems: { Update?: { ExpressionAttributeValues: Record<string, unknown> }; Put?: { Item: Record<string, unknown> } }[];
};

/** A write helper over a client that records every request and answers as DynamoDB does to a commit. */
function recordingOutbox(config: Partial<OutboxConfigInput> = catalog) {
  const sent: Sent[] = [];
  const client = {
    config: {},
    send: async (command: { input: Sent }) => {
      sent.push(command.input);
      return {};
    },
  };
  return {
    outbox: new Outbox({
      config: defineConfig({ ...catalog, ...config } as OutboxConfigInput),
      tableName: 'outbox',
      client: client as never,
    }),
    sent,
  };
}

const storedEvents = (sent: Sent[]): SlotEvent[] =>
  sent.flatMap((input) =>
    input.TransactItems.flatMap(
      (item) => (item.Update?.ExpressionAttributeValues[':events'] ?? item.Put?.Item.events ?? []) as SlotEvent[],
    ),
  );

const v1Data = { total: 7 };
const v2Data = { total: { amount: 7, currency: 'EUR' } };
const placed = (data: unknown, version?: unknown, aggregateType = 'order') => ({
  aggregate: { type: aggregateType, id: 'o-1' },
  type: 'order.placed',
  data,
  ...(version === undefined ? {} : { version: version as number }),
});

async function refusal(outbox: Outbox, input: WriteInput): Promise<unknown> {
  return outbox.write(input).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('write helper: the version an event names', () => {
  it('writes each event as the version it names, and as the newest when it names none, within one write', async () => {
    const { outbox, sent } = recordingOutbox();
    await outbox.write({
      events: [placed(v1Data, 1), placed(v2Data, 2, 'payment'), placed(v1Data, 1), placed(v2Data, undefined, 'payment')],
    });
    expect(storedEvents(sent).map((event) => event.dataschema)).toEqual([
      'urn:test:versions#order.placed:1',
      'urn:test:versions#order.placed:1',
      'urn:test:versions#order.placed:2',
      'urn:test:versions#order.placed:2',
    ]);
  });

  it("rejects data that fails the named version's schema, and an aggregate type its declaration does not name, sending nothing", async () => {
    const { outbox, sent } = recordingOutbox();
    const data = await refusal(outbox, { events: [placed(v1Data, 1), placed(v2Data, 1)] });
    expect(data).toBeInstanceOf(EventSchemaError);
    expect(data).toMatchObject({ code: 'EVENT_DATA_INVALID', index: 1, version: 1 });
    expect((data as Error).message).toMatch(/^events\[1\]\.data does not match the schema of "order\.placed" version 1: /);
    const aggregate = await refusal(outbox, { events: [placed(v1Data, 1, 'payment')] });
    expect(aggregate).toMatchObject({ code: 'EVENT_AGGREGATE_MISMATCH', version: 1 });
    expect((aggregate as Error).message).toMatch(/is on aggregate type "payment"; allowed: "order", as its declaration \(version 1\) says/);
    expect(sent).toEqual([]);
  });

  it.each([
    [3, 'events[1].version is 3 (not declared)'],
    [0, 'events[1].version is 0 (not a positive whole number)'],
    [1.5, 'events[1].version is 1.5 (not a positive whole number)'],
    [Number.NaN, 'events[1].version is NaN (not a positive whole number)'],
    ['2', 'events[1].version is "2" (not a positive whole number)'],
  ])('rejects version %j with the index, the version given and the declared ones, sending nothing', async (version, given) => {
    const { outbox, sent } = recordingOutbox();
    const error = await refusal(outbox, { events: [placed(v1Data, 1), placed(v2Data, version, 'payment')] });
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({
      code: 'INVALID_EVENT_VERSION',
      message: `${given}; allowed: a version eventTypes declares for "order.placed" (1, 2), or leave version out for the newest (2)`,
    });
    expect(sent).toEqual([]);
  });

  it('rejects a version for a config without eventTypes, and for a type eventTypes does not declare under "allow", which has no version to name', async () => {
    const bare = recordingOutbox({ eventTypes: undefined });
    const none = await refusal(bare.outbox, { events: [placed(v1Data, 1)] });
    expect(none).toBeInstanceOf(WriteValidationError);
    expect(none).toMatchObject({
      code: 'INVALID_EVENT_VERSION',
      message:
        "events[0].version is 1, but the config declares no eventTypes, so there is no version to name; allowed: leave version out (or declare the type's versions in eventTypes)",
    });
    const loose = recordingOutbox({ undeclaredEventTypes: 'allow' });
    const undeclared = await refusal(loose.outbox, {
      events: [{ aggregate: { type: 'order', id: 'o-1' }, type: 'order.noted', data: {}, version: 1 }],
    });
    expect(undeclared).toMatchObject({ code: 'INVALID_EVENT_VERSION' });
    expect((undeclared as Error).message).toMatch(
      /^events\[0\]\.version is 1, but the config's eventTypes does not declare "order\.noted", so there is no version to name;/,
    );
    expect([...bare.sent, ...loose.sent]).toEqual([]);
  });

  it.each([1, 7, '2'])(
    'rejects version %j on a type eventTypes does not declare as the undeclared type (the default "reject"), exactly as without a version',
    async (version) => {
      const { outbox, sent } = recordingOutbox();
      const noted = { aggregate: { type: 'order', id: 'o-1' }, type: 'order.noted', data: {} };
      const without = await refusal(outbox, { events: [placed(v1Data, 1), noted] });
      const withVersion = await refusal(outbox, { events: [placed(v1Data, 1), { ...noted, version: version as number }] });
      expect(withVersion).toBeInstanceOf(EventSchemaError);
      expect(withVersion).toMatchObject({ code: 'EVENT_TYPE_UNDECLARED', index: 1, eventType: 'order.noted' });
      expect((withVersion as Error).message).toBe((without as Error).message);
      expect(sent).toEqual([]);
    },
  );

  it('names in the result the version each event was written as: the one given, else the newest; none for an undeclared type or without a catalog', async () => {
    const { outbox } = recordingOutbox({ undeclaredEventTypes: 'allow' });
    const { events } = await outbox.write({
      events: [
        placed(v1Data, 1),
        placed(v2Data, undefined, 'payment'),
        { aggregate: { type: 'order', id: 'o-1' }, type: 'order.noted', data: {} },
        placed(v1Data, 1),
      ],
    });
    expect(events.map((event) => [event.type, event.sequence, event.version])).toEqual([
      ['order.placed', 1, 1],
      ['order.placed', 1, 2],
      ['order.noted', 2, undefined],
      ['order.placed', 3, 1],
    ]);
    expect('version' in (events[2] as object)).toBe(false);
    const bare = recordingOutbox({ eventTypes: undefined });
    const [plain] = (await bare.outbox.write({ events: [placed(v1Data)] })).events;
    expect(plain).toEqual({
      id: expect.any(String),
      type: 'order.placed',
      aggregate: { type: 'order', id: 'o-1' },
      sequence: 1,
      time: expect.any(String),
    });
    expect('version' in (plain as object)).toBe(false);
  });

  it("counts an event's version in an idempotency key's fingerprint only when given", () => {
    const event = placed(v1Data);
    const before = writeFingerprint([], [event]);
    expect(writeFingerprint([], [{ ...event, version: undefined }])).toBe(before);
    expect(writeFingerprint([], [placed(v1Data, 1)])).not.toBe(before);
    expect(writeFingerprint([], [placed(v1Data, 1)])).not.toBe(writeFingerprint([], [placed(v1Data, 2)]));
  });
});
