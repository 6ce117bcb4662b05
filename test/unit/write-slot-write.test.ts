import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemSize } from '../../shared/item-size.js';
import { Outbox } from '../../shared/write/index.js';
import { slotItem, slotItemSize } from '../../shared/write/slot-item.js';
import type { SlotPlan, TransactOperation } from '../../shared/write/types.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

type Items = { TransactItems: TransactOperation[] };

/** A DocumentClient that records each transaction sent and answers it with `answer(attempt)`. */
function recordingClient(answer: (attempt: number) => Error | undefined = () => undefined) {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
  );
  const sent: Items[] = [];
  client.send = (async (command: { input: Items }) => {
    sent.push(command.input);
    const error = answer(sent.length);
    if (error) throw error;
    return {};
  }) as typeof client.send;
  return { client, sent };
}

/** DynamoDB's answer when the slot (the action after one business operation) is not as expected. */
const slotFound = (slot: Record<string, unknown>) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: marshall(slot) }],
  });

const at = new Date('2030-01-02T03:04:05.000Z');

describe('the slot write', () => {
  it('puts a slot it assumes new whole, conditional on no slot there', async () => {
    const { client, sent } = recordingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client, clock: () => at });
    await outbox.write({ events: [orderEvent('o-1'), orderEvent('o-1', 'order.priced')] });
    const put = sent[0]?.TransactItems[0]?.Put;
    expect(put?.ConditionExpression).toBe('attribute_not_exists(#seq)');
    expect(put?.Item).toMatchObject({ pk: 'OUTBOX#order#o-1', seq: 2, createdAt: at.toISOString(), kind: 'outbox-slot' });
    expect(sent[0]?.TransactItems[0]?.Update).toBeUndefined();
  });

  it('puts a slot it has seen whole, conditional on its sequence and creation time, and keeps that creation time', async () => {
    const found = { pk: 'OUTBOX#order#o-1', sk: 'OUTBOX', seq: 3, createdAt: '2029-05-05T00:00:00.000Z' };
    const { client, sent } = recordingClient((n) => (n === 1 ? slotFound(found) : undefined));
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client, clock: () => at, retry: { maxSequenceRaces: 0 } });
    const first = await outbox.write({ events: [orderEvent('o-1')] });
    const second = await outbox.write({ events: [orderEvent('o-1')] });
    expect([first.events[0]?.sequence, second.events[0]?.sequence]).toEqual([4, 5]);
    const [retried, next] = [sent[1]?.TransactItems[0]?.Put, sent[2]?.TransactItems[0]?.Put];
    expect(retried?.ConditionExpression).toBe('#seq = :expected AND #createdAt = :createdAt');
    expect(retried?.ExpressionAttributeValues).toEqual({ ':expected': 3, ':createdAt': found.createdAt });
    expect(retried?.Item).toMatchObject({ seq: 4, createdAt: found.createdAt });
    // What the first write committed is remembered whole: the next write needs no answer to learn it.
    expect(next?.ExpressionAttributeValues).toEqual({ ':expected': 4, ':createdAt': found.createdAt });
    expect(next?.Item).toMatchObject({ seq: 5, createdAt: found.createdAt });
  });

  it('updates a slot whose creation time it never saw, keeping whatever creation time the slot has', async () => {
    const { client, sent } = recordingClient((n) => (n === 1 ? slotFound({ pk: 'OUTBOX#order#o-1', sk: 'OUTBOX', seq: 7 }) : undefined));
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client, clock: () => at });
    const result = await outbox.write({ events: [orderEvent('o-1')] });
    expect(result.events[0]?.sequence).toBe(8);
    const update = sent[1]?.TransactItems[0]?.Update;
    expect(update?.ConditionExpression).toBe('#seq = :expected');
    expect(update?.UpdateExpression).toContain('#createdAt = if_not_exists(#createdAt, :now)');
    expect(update?.ExpressionAttributeValues?.[':expected']).toBe(7);
  });
});

describe('the slot size', () => {
  const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 });
  const plan = fc.record({
    type: fc.constantFrom('order', 'payment'),
    id: text,
    events: fc.array(
      fc.record({ id: fc.uuid(), type: text, time: fc.constant(at.toISOString()), data: fc.json() }).chain((event) =>
        fc
          .record({
            traceparent: fc.option(fc.constant('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'), { nil: undefined }),
            dataschema: fc.option(text, { nil: undefined }),
          })
          .map(({ traceparent, dataschema }) => ({
            ...event,
            ...(traceparent === undefined ? {} : { traceparent }),
            ...(dataschema === undefined ? {} : { dataschema }),
          })),
      ),
      { minLength: 1, maxLength: 5 },
    ),
  });

  it('counts what the marshalled slot item counts, for any events, whatever fields they carry', () => {
    fc.assert(
      fc.property(plan, fc.integer({ min: 1, max: 315_360_000 }), ({ type, id, events }, retention) => {
        const config = testConfig({ outboxRetentionSeconds: retention });
        const slot: SlotPlan = { aggregate: { type, id }, pk: `OUTBOX#${type}#${id}`, events, inputIndexes: events.map((_, i) => i) };
        const marshalled = itemSize(marshall(slotItem(slot, Number.MAX_SAFE_INTEGER, at, config), { removeUndefinedValues: true }));
        expect(slotItemSize(slot, at, config)).toBe(marshalled);
      }),
    );
  });
});
