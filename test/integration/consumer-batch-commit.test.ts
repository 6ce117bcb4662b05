import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { resetOtelApi } from '../../shared/tracing/otel-api.js';
import { batchCommitFixture, count, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { clients, hooks, table, addOne, applied, batchConsumer } = batchCommitFixture('consumer-batch-commit');

describe("consumer, commit: 'batch'", () => {
  it('handles a batch of 10 events of 10 aggregates with one inbox read and one TransactWriteItems, each effect once', async () => {
    const { consumer, sent, counts } = batchConsumer('ten');
    const events = Array.from({ length: 10 }, (_, i) => anEnvelope({ aggregateId: `a${i}` }));

    const { outcomes, batchItemFailures } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(Array(10).fill('processed'));
    expect(batchItemFailures).toEqual([]);
    expect(sent).toEqual(['TransactGetItems', 'TransactWriteItems']);
    expect(counts.get('EventsProcessed')).toBe(10);
    for (let i = 0; i < 10; i++) expect(await applied('ten', `a${i}`)).toBe(1);

    sent.length = 0;
    const again = await consumer.process(messages(events.map((e) => e.body)));
    expect(statuses(again.outcomes)).toEqual(Array(10).fill('duplicate'));
    expect(sent).toEqual(['TransactGetItems']);
  });

  it("commits an aggregate's event before the next event of that aggregate runs, so its handler sees the earlier write", async () => {
    const seen: number[] = [];
    const view = (event: { subject: string }) => ({ pk: `VIEW#same#${event.subject}`, sk: 'VIEW' });
    const { consumer, sent } = batchConsumer(
      'same',
      {},
      {
        'order.placed': {
          handle: async (event, ctx) => {
            const { Item } = await clients.document.send(new GetCommand({ TableName: table(), Key: view(event), ConsistentRead: true }));
            const count = Number(Item?.count ?? 0);
            seen.push(count);
            ctx.write({ Put: { TableName: table(), Item: { ...view(event), count: count + 1 } } });
          },
        },
      },
    );
    const [first, second] = [anEnvelope({ aggregateId: 'x', sequence: 1 }), anEnvelope({ aggregateId: 'x', sequence: 2 })];

    const { outcomes } = await consumer.process(messages([first.body, second.body]));

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    expect(seen).toEqual([0, 1]);
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    const { Item } = await clients.document.send(new GetCommand({ TableName: table(), Key: view({ subject: 'x' }) }));
    expect(Item?.count).toBe(2);
  });

  it('takes an event delivered twice in the batch, one already in the inbox and one committed meanwhile by another worker for duplicates', async () => {
    const { consumer: earlier } = batchConsumer('twice');
    const done = anEnvelope({ aggregateId: 'd0' });
    const racing = anEnvelope({ aggregateId: 'd1' });
    const twice = anEnvelope({ aggregateId: 'd2' });
    await earlier.process(messages([done.body]));
    let runs = 0;
    const { consumer } = batchConsumer(
      'twice',
      {},
      {
        'order.placed': {
          handle: async (event, ctx) => {
            runs++;
            ctx.write(addOne('twice', event.subject));
            // Another worker commits the racing event while this batch's group, which holds it, is still open.
            if (event.id === twice.id && runs === 2) await earlier.process(messages([racing.body]));
          },
        },
      },
    );

    const { outcomes } = await consumer.process(messages([racing.body, twice.body, done.body, twice.body]));

    expect(statuses(outcomes)).toEqual(['duplicate', 'processed', 'duplicate', 'duplicate']);
    expect(runs).toBe(2);
    expect(await Promise.all(['d0', 'd1', 'd2'].map((id) => applied('twice', id)))).toEqual([1, 1, 1]);
  });

  it('commits the group before a claim handler runs, so its side effect follows the committed writes', async () => {
    let seenByClaim: number | undefined;
    const { consumer, sent } = batchConsumer(
      'claim',
      {},
      {
        'order.shipped': {
          idempotency: 'claim',
          handle: async () => {
            seenByClaim = await applied('claim', 'k0');
          },
        },
      },
    );
    const events = [
      anEnvelope({ aggregateId: 'k0' }),
      anEnvelope({ aggregateId: 'k1', type: 'order.shipped' }),
      anEnvelope({ aggregateId: 'k2' }),
    ];

    const { outcomes } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(['processed', 'processed', 'processed']);
    expect(seenByClaim).toBe(1);
    expect(sent).toEqual(['TransactGetItems', 'TransactWriteItems', 'PutItem', 'UpdateItem', 'TransactWriteItems']);
  });

  it('splits a group before it passes 100 actions or names an item already in it', async () => {
    const { consumer, sent } = batchConsumer(
      'split',
      {},
      {
        'order.placed': {
          handle: (event, ctx) => {
            for (let i = 0; i < 30; i++) ctx.write(addOne('split', `${event.subject}-${i}`));
          },
        },
        // Every event of this type adds to one shared item: two of them cannot be in one transaction.
        'order.counted': { handle: (_event, ctx) => ctx.write(addOne('split', 'shared')) },
      },
    );
    const wide = Array.from({ length: 4 }, (_, i) => anEnvelope({ aggregateId: `w${i}` }));
    const counted = Array.from({ length: 3 }, (_, i) => anEnvelope({ aggregateId: `s${i}`, type: 'order.counted' }));

    const first = await consumer.process(messages(wide.map((e) => e.body)));
    expect(statuses(first.outcomes)).toEqual(Array(4).fill('processed'));
    // 31 actions each: three make 93, the fourth would pass 100.
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect(await applied('split', 'w3-29')).toBe(1);

    sent.length = 0;
    const second = await consumer.process(messages(counted.map((e) => e.body)));
    expect(statuses(second.outcomes)).toEqual(Array(3).fill('processed'));
    expect(count(sent, 'TransactWriteItems')).toBe(3);
    expect(await applied('split', 'shared')).toBe(3);
  });

  it('gives each worker of concurrency 2 a group of its own, committed at the end of its messages', async () => {
    const { consumer, sent } = batchConsumer('workers', { concurrency: 2 });
    const events = Array.from({ length: 6 }, (_, i) => anEnvelope({ aggregateId: `p${i}` }));

    const { outcomes } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(Array(6).fill('processed'));
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect(await Promise.all(events.map((_, i) => applied('workers', `p${i}`)))).toEqual(Array(6).fill(1));
  });

  it("ends each message's span, which holds its handler, once its group has committed, with the message's outcome", async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const activeInHandler: (string | undefined)[] = [];
      const { consumer } = batchConsumer(
        'spans',
        {},
        {
          'order.placed': {
            handle: (event, ctx) => {
              activeInHandler.push(trace.getActiveSpan()?.spanContext().spanId);
              ctx.write(addOne('spans', event.subject));
            },
          },
        },
      );
      const finishedAtCommit: number[] = [];
      hooks.onCommitted = () => finishedAtCommit.push(exporter.getFinishedSpans().length);

      await consumer.process(messages([anEnvelope({ aggregateId: 't0' }).body, anEnvelope({ aggregateId: 't1' }).body]));

      // The messages' spans; the group's commit has one of its own (consumer-batch-commit-tracing.test.ts).
      const spans = exporter.getFinishedSpans().filter((span) => span.name !== 'commit');
      expect(spans.map((span) => span.attributes['outbox.outcome'])).toEqual(['processed', 'processed']);
      expect(spans.map((span) => span.spanContext().spanId).sort()).toEqual([...activeInHandler].sort());
      // One commit for both, and neither span had ended when it was answered.
      expect(finishedAtCommit).toEqual([0]);
    } finally {
      hooks.onCommitted = undefined;
      trace.disable();
      context.disable();
      resetOtelApi();
    }
  });
});
