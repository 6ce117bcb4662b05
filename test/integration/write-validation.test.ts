import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { type EventInput, Outbox, type WriteInput } from '../../shared/write/index.js';
import { testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';

const clients = testClients();
const config = testConfig();
let tableName: string;
let outbox: Outbox;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'validation'));
  outbox = new Outbox({ config, tableName, client: clients.document });
});
afterAll(() => clients.destroy());

const aggregateId = fc.string({ minLength: 1, maxLength: 20 });
const json = fc.jsonValue({ maxDepth: 3 });
const validEvent = fc.record({
  aggregate: fc.record({ type: fc.constantFrom('order', 'payment'), id: aggregateId }),
  type: fc.constantFrom('order.placed', 'payment.captured'),
  data: json,
});

/** Puts a value that JSON cannot carry faithfully somewhere inside otherwise valid data. */
const poisoned = fc
  .tuple(
    fc.constantFrom<() => unknown>(
      () => undefined,
      () => 10n,
      () => () => 1,
      () => Number.NaN,
      () => Number.POSITIVE_INFINITY,
      () => new Map([[1, 2]]),
      () => Symbol('s'),
      () => new Date(0),
      () => {
        const cycle: Record<string, unknown> = { a: 1 };
        cycle.self = cycle;
        return cycle;
      },
    ),
    fc.array(fc.constantFrom('a', 'b', 0), { maxLength: 3 }),
  )
  .map(([make, path]) => {
    let value: unknown = make();
    for (const step of path.reverse()) value = typeof step === 'number' ? [value] : { [step]: value };
    return value;
  });

type Case = { code: WriteValidationError['code']; input: WriteInput };

const invalid: fc.Arbitrary<Case> = fc.oneof(
  fc
    .tuple(
      validEvent,
      fc.string().filter((t) => t !== 'order' && t !== 'payment'),
    )
    .map(([event, type]) => ({
      code: 'UNROUTED_AGGREGATE_TYPE' as const,
      input: { events: [{ ...event, aggregate: { type, id: event.aggregate.id } }] },
    })),
  fc
    .tuple(
      validEvent,
      // A lone surrogate, control characters and a noncharacter: SNS could never take them as a message attribute.
      fc.constantFrom(
        '',
        '   ',
        undefined,
        42,
        null,
        'order\uD800',
        '\uDC00order',
        'order\u0000placed',
        'order\nplaced',
        'order\u0085',
        'order\uFFFF',
      ),
    )
    .map(([event, type]) => ({
      code: 'MISSING_EVENT_TYPE' as const,
      input: { events: [{ ...event, type } as unknown as EventInput] },
    })),
  fc
    .tuple(
      validEvent,
      fc.constantFrom(undefined, null, {}, { type: 'order' }, { type: 'order', id: '' }, { id: 'x' }, { type: 'order', id: 'o\uD800' }),
    )
    .map(([event, aggregate]) => ({
      code: 'MISSING_AGGREGATE' as const,
      input: { events: [{ ...event, aggregate } as unknown as EventInput] },
    })),
  // A hole in the events array (`events[1] = e` on an empty array, `new Array(2)`) is an event that is not there.
  fc.tuple(validEvent, fc.integer({ min: 1, max: 3 })).map(([event, at]) => {
    const events: EventInput[] = [];
    events[at] = event;
    return { code: 'MISSING_AGGREGATE' as const, input: { events } };
  }),
  fc.integer({ min: 1, max: 3 }).map((length) => ({ code: 'MISSING_AGGREGATE' as const, input: { events: new Array(length) } })),
  fc.tuple(validEvent, poisoned).map(([event, data]) => ({
    code: 'DATA_NOT_SERIALIZABLE' as const,
    input: { events: [{ ...event, data }] },
  })),
  fc
    .tuple(fc.integer({ min: 60, max: 100 }), fc.integer({ min: 1, max: 45 }))
    .map(([ops, aggregates]) => ({
      code: 'TOO_MANY_ACTIONS' as const,
      input: {
        operations: Array.from({ length: ops }, (_, i) => ({ Put: { Item: { pk: `ITEM#${i}`, sk: 'X' } } })),
        events: Array.from({ length: aggregates }, (_, i) => ({ aggregate: { type: 'order', id: `o${i}` }, type: 't', data: i })),
      },
    }))
    .filter((c) => (c.input.operations?.length ?? 0) + c.input.events.length > 100),
  fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.constantFrom('Put', 'Update', 'Delete', 'ConditionCheck')).map(([key, kind]) => {
    const second =
      kind === 'Put'
        ? { Put: { Item: { pk: `BIZ#${key}`, sk: 'A' } } }
        : kind === 'Update'
          ? { Update: { Key: { pk: `BIZ#${key}`, sk: 'A' }, UpdateExpression: 'SET x = :x', ExpressionAttributeValues: { ':x': 1 } } }
          : kind === 'Delete'
            ? { Delete: { Key: { pk: `BIZ#${key}`, sk: 'A' } } }
            : { ConditionCheck: { Key: { pk: `BIZ#${key}`, sk: 'A' }, ConditionExpression: 'attribute_exists(pk)' } };
    return {
      code: 'DUPLICATE_ITEM' as const,
      input: { operations: [{ Put: { Item: { pk: `BIZ#${key}`, sk: 'A', v: 1 } } }, second] as WriteInput['operations'], events: [] },
    };
  }),
  fc.integer({ min: 262_145, max: 300_000 }).map((size) => ({
    code: 'ENVELOPE_TOO_LARGE' as const,
    input: { events: [{ aggregate: { type: 'order', id: 'big' }, type: 'order.placed', data: 'x'.repeat(size) }] },
  })),
  fc.integer({ min: 409_601, max: 500_000 }).map((size) => ({
    code: 'ITEM_TOO_LARGE' as const,
    input: { operations: [{ Put: { Item: { pk: 'FAT#1', sk: 'A', blob: 'z'.repeat(size) } } }], events: [] },
  })),
  fc.integer({ min: 2, max: 4 }).map((count) => ({
    code: 'SLOT_TOO_LARGE' as const,
    input: {
      events: Array.from({ length: count }, () => ({
        aggregate: { type: 'order', id: 'fat' },
        type: 'order.placed',
        data: 'y'.repeat(210_000),
      })),
    },
  })),
  fc.integer({ min: 17, max: 30 }).map((aggregates) => ({
    code: 'REQUEST_TOO_LARGE' as const,
    input: {
      events: Array.from({ length: aggregates }, (_, i) => ({
        aggregate: { type: 'order', id: `wide-${i}` },
        type: 'e',
        data: 'z'.repeat(250_000),
      })),
    },
  })),
  fc
    .constantFrom<unknown>(null, 42, {}, { events: [] }, { operations: [], events: [] }, { events: 'e' }, { operations: {}, events: [] })
    .map((input) => ({ code: 'EMPTY_WRITE' as const, input: input as WriteInput })),
  fc
    .constantFrom<unknown[]>(
      [{}],
      [{ Put: { Item: { pk: 'A', sk: 'B' } }, Delete: { Key: { pk: 'A', sk: 'B' } } }],
      [{ Put: null }],
      [{ Update: { UpdateExpression: 'SET x = :x' } }],
      [{ Put: { Item: { pk: 'OUTBOX#order#o1', sk: 'OUTBOX' } } }],
      [{ Put: { Item: { a: 1 } } }, { Put: { Item: { b: 2 } } }],
      [{ Delete: { Key: { pk: 'A' } } }],
      [{ Put: { Item: { pk: 'A', sk: 'B', at: new Date(0) } } }],
      // Holes: an operation that is not there.
      new Array(1),
      Object.assign(new Array(2), { 1: { Put: { Item: { pk: 'A', sk: 'B' } } } }),
    )
    .map((operations) => ({
      code: 'INVALID_OPERATION' as const,
      input: { operations, events: [] } as unknown as WriteInput,
    })),
  fc
    .tuple(
      validEvent,
      fc.constantFrom<unknown>(
        '',
        'not-a-traceparent',
        '00-xyz-abc-01',
        42,
        // Version 00 has nothing after the flags; version ff is invalid; all-zero ids are invalid.
        '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
        'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
        '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      ),
    )
    .map(([event, traceparent]) => ({
      code: 'INVALID_TRACEPARENT' as const,
      input: { events: [{ ...event, traceparent } as unknown as EventInput] },
    })),
  fc.integer({ min: 360, max: 400 }).map((count) => ({
    code: 'IDEMPOTENCY_RECORD_TOO_LARGE' as const,
    input: {
      events: Array.from({ length: count }, () => ({
        aggregate: { type: 'order', id: 'l'.repeat(1000) },
        type: 'order.placed',
        data: null,
      })),
      idempotencyKey: 'record',
    },
  })),
  // Deeper than DynamoDB's 32 levels, in event data or in an attribute of an operation.
  fc
    .tuple(fc.integer({ min: 32, max: 5000 }), fc.constantFrom('data', 'attribute'), fc.constantFrom('object', 'array'))
    .map(([depth, where, container]) => {
      let value: unknown = 1;
      for (let i = 0; i < depth; i++) value = container === 'object' ? { n: value } : [value];
      const input: WriteInput =
        where === 'data'
          ? { events: [{ aggregate: { type: 'order', id: 'deep' }, type: 'order.placed', data: value }] }
          : { operations: [{ Put: { Item: { pk: 'DEEP#1', sk: 'A', value } } }], events: [] };
      return { code: 'NESTED_TOO_DEEP' as const, input };
    }),
  fc.constantFrom('', 'x'.repeat(37), 'has space', 'tab\there').map((key) => ({
    code: 'INVALID_IDEMPOTENCY_KEY' as const,
    input: { events: [{ aggregate: { type: 'order', id: 'k' }, type: 'order.placed', data: null }], idempotencyKey: key },
  })),
);

describe('write validation (property-based)', () => {
  it('rejects every kind of invalid input with its code, before any request, writing nothing', async () => {
    const send = vi.spyOn(clients.document, 'send');
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(invalid, async ({ code, input }) => {
        const error = await outbox.write(input).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WriteValidationError);
        expect((error as WriteValidationError).code).toBe(code);
        // What was given, then what is allowed.
        expect((error as Error).message).toMatch(/\S.*; allowed: \S/);
        seen.add(code);
      }),
      { numRuns: 250 },
    );
    expect(send).not.toHaveBeenCalled();
    send.mockRestore();
    // Every kind of invalid input came up: between them, the generators cover every code of WriteValidationError.
    expect([...seen].sort()).toEqual(
      [
        'DATA_NOT_SERIALIZABLE',
        'DUPLICATE_ITEM',
        'EMPTY_WRITE',
        'ENVELOPE_TOO_LARGE',
        'IDEMPOTENCY_RECORD_TOO_LARGE',
        'INVALID_IDEMPOTENCY_KEY',
        'INVALID_OPERATION',
        'INVALID_TRACEPARENT',
        'ITEM_TOO_LARGE',
        'MISSING_AGGREGATE',
        'MISSING_EVENT_TYPE',
        'NESTED_TOO_DEEP',
        'REQUEST_TOO_LARGE',
        'SLOT_TOO_LARGE',
        'TOO_MANY_ACTIONS',
        'UNROUTED_AGGREGATE_TYPE',
      ].sort(),
    );
    const { Count } = await clients.document.send(new ScanCommand({ TableName: tableName, Select: 'COUNT' }));
    expect(Count).toBe(0);
  });

  it('accepts any valid JSON data and stores it exactly as JSON.stringify renders it', async () => {
    await fc.assert(
      fc.asyncProperty(json, aggregateId, async (data, id) => {
        const { events } = await outbox.write({ events: [{ aggregate: { type: 'payment', id: `p-${id}` }, type: 'payment.noted', data }] });
        const { Item } = await clients.document.send(
          new GetCommand({ TableName: tableName, Key: { pk: `OUTBOX#payment#p-${id}`, sk: 'OUTBOX' }, ConsistentRead: true }),
        );
        expect(Item?.events).toEqual([expect.objectContaining({ id: events[0]?.id, data: JSON.stringify(data) })]);
        expect(Item?.seq).toBe(events[0]?.sequence);
      }),
      { numRuns: 25 },
    );
  });
});
