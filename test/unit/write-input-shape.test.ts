import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

const put = { Put: { Item: { pk: 'ORDER#o-1', sk: 'ORDER' } } };

describe('write() given null for its operations or events', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['events: null beside operations', { operations: [put], events: null }, 'write() got events null; allowed: an array, or leave it out'],
    [
      'operations: null beside events',
      { operations: null, events: [orderEvent('o-1')] },
      'write() got operations null; allowed: an array, or leave it out',
    ],
  ])('refuses %s with EMPTY_WRITE, sending nothing', async (_, input, message) => {
    // Taken as "none", events: null would commit the business write without the events it meant.
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const error = await outbox.write(input as unknown as WriteInput).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'EMPTY_WRITE', message });
    expect(bodies).toHaveLength(0);
  });

  it('still names the type of another value that is not an array', async () => {
    const { document } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const error = await outbox.write({ events: 'order.placed' } as unknown as WriteInput).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EMPTY_WRITE', message: 'write() got events of type string; allowed: an array, or leave it out' });
  });
});

describe('write() with a clock that does not return a valid Date', () => {
  it("takes a Date of another realm (a test runner's context)", async () => {
    const { document, bodies } = capturingClient();
    const foreign = runInNewContext('new Date(Date.UTC(2026, 2, 1))') as Date;
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document, clock: () => foreign });
    const { events } = await outbox.write({ events: [orderEvent('o-1')] });
    expect(events[0]?.time).toBe('2026-03-01T00:00:00.000Z');
    expect(bodies).toHaveLength(1);
  });

  it.each<[string, () => unknown, string]>([
    ['Date.now, which returns a number', () => 1_767_225_600_000, 'options.clock returned 1767225600000'],
    ['an invalid Date', () => new Date(Number.NaN), 'options.clock returned an invalid Date'],
    ['a string', () => '2026-01-01T00:00:00Z', 'options.clock returned "2026-01-01T00:00:00Z"'],
  ])('refuses the write with INVALID_OPERATION saying what the clock returned: %s', async (_, clock, returned) => {
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document, clock: clock as () => Date });
    const error = await outbox.write({ events: [orderEvent('o-1')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({
      code: 'INVALID_OPERATION',
      message: `${returned}; allowed: a function returning a valid Date, e.g. () => new Date()`,
    });
    expect(bodies).toHaveLength(0);
  });
});
