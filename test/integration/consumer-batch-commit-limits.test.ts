import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchCommitFixture, count, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { clients, table, batchConsumer } = batchCommitFixture('consumer-batch-commit-limits');

const blobKey = (id: string, i: number) => ({ pk: `BLOB#${id}#${i}`, sk: 'BLOB' });
const stored = async (id: string, i: number) =>
  (await clients.document.send(new GetCommand({ TableName: table(), Key: blobKey(id, i), ConsistentRead: true }))).Item !== undefined;

describe("consumer, commit: 'batch', DynamoDB's size limits", () => {
  it('commits the group before an event whose writes would take it past 4 MB, sending no transaction DynamoDB refuses', async () => {
    // 6 items of 360,000 bytes: about 2.2 MB an event, so two events are one transaction too many.
    const { consumer, sent, logs } = batchConsumer(
      'big',
      {},
      {
        'order.placed': {
          handle: (event, ctx) => {
            for (let i = 0; i < 6; i++)
              ctx.write({ Put: { TableName: table(), Item: { ...blobKey(event.subject, i), blob: 'b'.repeat(360_000) } } });
          },
        },
      },
    );
    const events = [anEnvelope({ aggregateId: 'b0' }), anEnvelope({ aggregateId: 'b1' })];

    const { outcomes } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect(logs.filter((l) => l.message.startsWith("The batch's group transaction failed"))).toEqual([]);
    expect([await stored('b0', 5), await stored('b1', 5)]).toEqual([true, true]);
  });

  it('fails only the event with an item over 400 KB, on its own commit as commit: event does, and groups the events around it', async () => {
    const { consumer, sent, logs } = batchConsumer(
      'huge-item',
      {},
      {
        'order.placed': {
          handle: (event, ctx) => ctx.write({ Put: { TableName: table(), Item: { ...blobKey(event.subject, 0), blob: 'x' } } }),
        },
        'order.cancelled': {
          handle: (event, ctx) =>
            ctx.write({ Put: { TableName: table(), Item: { ...blobKey(event.subject, 0), blob: 'h'.repeat(500_000) } } }),
        },
      },
    );
    const events = [
      anEnvelope({ aggregateId: 'h0' }),
      anEnvelope({ aggregateId: 'h1', type: 'order.cancelled' }),
      anEnvelope({ aggregateId: 'h2' }),
    ];

    const { outcomes } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(['processed', 'failed', 'processed']);
    expect(outcomes[1]).toMatchObject({ error: { code: 'INVALID_INBOX_WRITE' } });
    // h0's group, h1 alone (refused), h2's group: no group is refused and taken apart.
    expect(count(sent, 'TransactWriteItems')).toBe(3);
    expect(logs.filter((l) => l.message.startsWith("The batch's group transaction failed"))).toEqual([]);
    expect([await stored('h0', 0), await stored('h1', 0), await stored('h2', 0)]).toEqual([true, false, true]);
  });
});

describe("consumer, commit: 'batch', an error no outcome stands for", () => {
  it('fails the messages not settled yet when the metrics sink throws while a group settles, with no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      let processed = 0;
      const broken = new Error('metrics sink down');
      const { consumer, logs } = batchConsumer('broken-metrics', {
        metrics: {
          addMetric: (name) => {
            if (name === 'EventsProcessed' && ++processed === 2) throw broken;
          },
        },
      });
      // m1 and m2 of one FIFO group: m2 waits for m1, which the error fails, and is skipped.
      const events = [anEnvelope({ aggregateId: 'e0' }), anEnvelope({ aggregateId: 'e1' }), anEnvelope({ aggregateId: 'e2' })];

      const { outcomes, batchItemFailures } = await consumer.process(
        messages(
          events.map((e) => e.body),
          ['g0', 'g1', 'g1'],
        ),
      );

      expect(statuses(outcomes)).toEqual(['processed', 'failed', 'skipped']);
      expect(outcomes[1]).toMatchObject({ eventId: events[1]?.id, error: broken });
      expect(batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m1', 'm2']);
      expect(logs.find((l) => l.level === 'error' && l.message.startsWith('Committing or settling a group'))?.attributes).toMatchObject({
        messageIds: ['m1', 'm2'],
        error: broken,
      });
      // Node reports a rejection nobody handled once the microtasks have run: one turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
