import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import type { ConsumerMessage, ConsumerOptions, EventHandler, TransactItem } from '../../shared/consumer/types.js';
import { batchBody } from '../../shared/envelope.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { resetOtelApi } from '../../shared/tracing/otel-api.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-batch-commit'));
});

afterAll(() => clients.destroy());

/** Called as each TransactWriteItems is answered. */
let onCommitted: (() => void) | undefined;

/** A DocumentClient on the run's DynamoDB Local that records the name of every command it sends. */
function countingDocument(): { document: DynamoDBDocumentClient; sent: string[] } {
  const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push((context.commandName ?? 'unknown').replace(/Command$/, ''));
      const result = await next(args);
      if (context.commandName === 'TransactWriteItemsCommand') onCommitted?.();
      return result;
    },
    { step: 'initialize', name: 'countCommands' },
  );
  return { document: DynamoDBDocumentClient.from(client), sent };
}

const counterKey = (scope: string, id: string) => ({ pk: `COUNT#${scope}#${id}`, sk: 'COUNT' });
const addOne = (scope: string, id: string): TransactItem => ({
  Update: {
    TableName: tableName,
    Key: counterKey(scope, id),
    UpdateExpression: 'ADD applied :one',
    ExpressionAttributeValues: { ':one': 1 },
  },
});
const applied = async (scope: string, id: string): Promise<number> => {
  const { Item } = await clients.document.send(new GetCommand({ TableName: tableName, Key: counterKey(scope, id), ConsistentRead: true }));
  return Number(Item?.applied ?? 0);
};

/** A batch consumer named `scope` whose `order.placed` handler adds 1 to its aggregate's counter, unless `handlers` says otherwise. */
function batchConsumer(scope: string, extra: Partial<ConsumerOptions> = {}, handlers: Record<string, EventHandler> = {}) {
  const telemetry = recordingTelemetry();
  const { document, sent } = countingDocument();
  const consumer = createConsumer({
    name: scope,
    sources: [TEST_SOURCE],
    inbox: { document, tableName, legacyKeyCheck: false },
    handlers: { 'order.placed': { handle: (event, ctx) => ctx.write(addOne(scope, event.subject)) }, ...handlers },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    commit: 'batch',
    ...extra,
  });
  return { consumer, sent, ...telemetry };
}

const messages = (bodies: readonly string[], groupIds?: readonly string[]): ConsumerMessage[] =>
  bodies.map((body, i) => ({ messageId: `m${i}`, body, ...(groupIds === undefined ? {} : { messageGroupId: groupIds[i] as string }) }));
const statuses = (outcomes: readonly { status: string }[]) => outcomes.map((o) => o.status);
const count = (sent: readonly string[], name: string) => sent.filter((n) => n === name).length;

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
            const { Item } = await clients.document.send(new GetCommand({ TableName: tableName, Key: view(event), ConsistentRead: true }));
            const count = Number(Item?.count ?? 0);
            seen.push(count);
            ctx.write({ Put: { TableName: tableName, Item: { ...view(event), count: count + 1 } } });
          },
        },
      },
    );
    const [first, second] = [anEnvelope({ aggregateId: 'x', sequence: 1 }), anEnvelope({ aggregateId: 'x', sequence: 2 })];

    const { outcomes } = await consumer.process(messages([first.body, second.body]));

    expect(statuses(outcomes)).toEqual(['processed', 'processed']);
    expect(seen).toEqual([0, 1]);
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    const { Item } = await clients.document.send(new GetCommand({ TableName: tableName, Key: view({ subject: 'x' }) }));
    expect(Item?.count).toBe(2);
  });

  it('fails only the message whose ConditionCheck fails in a group of several, committing each other event on its own, once', async () => {
    const { consumer, sent, logs } = batchConsumer(
      'check',
      {},
      {
        'order.checked': {
          handle: (event, ctx) => {
            ctx.write(addOne('check', event.subject));
            ctx.write({
              ConditionCheck: { TableName: tableName, Key: { pk: 'MISSING#check', sk: 'X' }, ConditionExpression: 'attribute_exists(pk)' },
            });
          },
        },
      },
    );
    const events = [
      anEnvelope({ aggregateId: 'c0' }),
      anEnvelope({ aggregateId: 'c1' }),
      anEnvelope({ aggregateId: 'c2', type: 'order.checked' }),
      anEnvelope({ aggregateId: 'c3' }),
    ];

    const { outcomes, batchItemFailures } = await consumer.process(messages(events.map((e) => e.body)));

    expect(statuses(outcomes)).toEqual(['processed', 'processed', 'failed', 'processed']);
    expect(batchItemFailures).toEqual([{ itemIdentifier: 'm2' }]);
    expect((outcomes[2] as { error: Error }).error.name).toBe('TransactionFailedError');
    // The group's transaction, cancelled, then each event's own.
    expect(count(sent, 'TransactWriteItems')).toBe(5);
    expect(logs.some((l) => l.message.startsWith("The batch's group transaction failed"))).toBe(true);
    expect(await Promise.all(['c0', 'c1', 'c2', 'c3'].map((id) => applied('check', id)))).toEqual([1, 1, 0, 1]);

    const again = await consumer.process(messages(events.map((e) => e.body)));
    expect(statuses(again.outcomes)).toEqual(['duplicate', 'duplicate', 'failed', 'duplicate']);
    expect(await Promise.all(['c0', 'c1', 'c2', 'c3'].map((id) => applied('check', id)))).toEqual([1, 1, 0, 1]);
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

  it('skips the later messages of a FIFO group whose commit failed, committing none of their writes, and goes on with other groups', async () => {
    const { consumer } = batchConsumer(
      'fifo',
      {},
      {
        'order.checked': {
          handle: (event, ctx) => {
            ctx.write(addOne('fifo', event.subject));
            ctx.write({
              ConditionCheck: { TableName: tableName, Key: { pk: 'MISSING#fifo', sk: 'X' }, ConditionExpression: 'attribute_exists(pk)' },
            });
          },
        },
      },
    );
    const events = [
      anEnvelope({ aggregateId: 'f0', type: 'order.checked' }),
      anEnvelope({ aggregateId: 'f1' }),
      anEnvelope({ aggregateId: 'f2' }),
    ];

    const { outcomes, batchItemFailures } = await consumer.process(
      messages(
        events.map((e) => e.body),
        ['g1', 'g1', 'g2'],
      ),
    );

    expect(statuses(outcomes)).toEqual(['failed', 'skipped', 'processed']);
    expect(outcomes[1]).toMatchObject({ failedMessageId: 'm0' });
    expect(batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m0', 'm1']);
    expect(await Promise.all(['f0', 'f1', 'f2'].map((id) => applied('fifo', id)))).toEqual([0, 0, 1]);
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

  it('ends a batch message at the event whose commit fails: the earlier events stay committed, the later ones do not run', async () => {
    const ran: string[] = [];
    const { consumer, sent } = batchConsumer(
      'events',
      {},
      {
        'order.placed': {
          handle: (event, ctx) => {
            ran.push(event.id);
            ctx.write(addOne('events', event.subject));
          },
        },
        'order.checked': {
          handle: (event, ctx) => {
            ran.push(event.id);
            ctx.write(addOne('events', event.subject));
            ctx.write({
              ConditionCheck: { TableName: tableName, Key: { pk: 'MISSING#events', sk: 'X' }, ConditionExpression: 'attribute_exists(pk)' },
            });
          },
        },
      },
    );
    // A batch message carries one aggregate's events in order, so each waits for the one before it to commit.
    const x = [
      anEnvelope({ id: 'x1', aggregateId: 'x', sequence: 1 }),
      anEnvelope({ id: 'x2', aggregateId: 'x', sequence: 2, type: 'order.checked' }),
      anEnvelope({ id: 'x3', aggregateId: 'x', sequence: 3 }),
    ];
    const y = anEnvelope({ id: 'y1', aggregateId: 'y' });

    const { outcomes } = await consumer.process(messages([y.body, batchBody(x.map((e) => e.body))]));

    expect(statuses(outcomes)).toEqual(['processed', 'failed']);
    expect(statuses((outcomes[1] as unknown as { events: { status: string }[] }).events)).toEqual(['processed', 'failed']);
    expect(ran).toEqual(['y1', 'x1', 'x2']);
    // y1 and x1 together, then x2 alone (cancelled by its condition).
    expect(count(sent, 'TransactWriteItems')).toBe(2);
    expect([await applied('events', 'y'), await applied('events', 'x')]).toEqual([1, 1]);
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
      onCommitted = () => finishedAtCommit.push(exporter.getFinishedSpans().length);

      await consumer.process(messages([anEnvelope({ aggregateId: 't0' }).body, anEnvelope({ aggregateId: 't1' }).body]));

      const spans = exporter.getFinishedSpans();
      expect(spans.map((span) => span.attributes['outbox.outcome'])).toEqual(['processed', 'processed']);
      expect(spans.map((span) => span.spanContext().spanId).sort()).toEqual([...activeInHandler].sort());
      // One commit for both, and neither span had ended when it was answered.
      expect(finishedAtCommit).toEqual([0]);
    } finally {
      onCommitted = undefined;
      trace.disable();
      context.disable();
      resetOtelApi();
    }
  });
});
