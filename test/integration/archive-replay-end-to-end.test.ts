import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { defineConfig, Outbox } from 'dynamodb-outbox';
import { createConsumer, createPoller, type MessageOutcome, type PollError } from 'dynamodb-outbox/consumer';
import { replayArchive } from 'dynamodb-outbox/redrive';
import { type OutboxTestStack, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WrittenEvent } from '../../shared/write/index.js';
import { waitFor } from '../helpers/wait.js';

/*
 * §5 of the archive issue on the real local parts: 2,000 events written over four days of
 * simulated time go through the relay and the archiver into the emulator's S3; a replay of two
 * types over a day and a half, stopped half-way and started again, reaches a fresh FIFO queue,
 * and a real consumer handles exactly the matching events, each once, in per-aggregate order.
 */

const config = defineConfig({
  source: 'urn:test:replay',
  topics: [{ name: 'orders.fifo', fifo: true, batching: { maxEvents: 10 } }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  archive: { retentionDays: 30 },
});

const HOUR = 3_600_000;
const START = Date.parse('2026-03-01T00:00:00.000Z');
const ORDER_TYPES = ['order.placed', 'order.paid', 'order.shipped', 'order.changed'];

let stack: OutboxTestStack;
const written: WrittenEvent[] = [];
const backgroundErrors: unknown[] = [];

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  stack = await startOutboxTestStack({ config, onError: (source, error) => backgroundErrors.push({ source, error }) });
  let now = START;
  const outbox = new Outbox({ config, tableName: stack.tableName, client: stack.clients.document, clock: () => new Date(now) });
  // 400 writes, one every 14 min 24 s over four days: four events of one of 25 orders (a batch
  // message on the FIFO topic), and a payment.
  for (let i = 0; i < 400; i++) {
    now = START + (i * (96 * HOUR)) / 400;
    const order = { type: 'order', id: `o-${i % 25}` };
    const result = await outbox.write({
      events: [
        ...Array.from({ length: 4 }, (_, j) => ({ aggregate: order, type: ORDER_TYPES[(i + j) % 4] as string, data: { i, j } })),
        { aggregate: { type: 'payment', id: `p-${i % 7}` }, type: 'payment.captured', data: { i } },
      ],
    });
    written.push(...result.events);
  }
  expect(await stack.archive!.waitForArchived(written.length, { timeoutMs: 120_000 })).toBeGreaterThanOrEqual(written.length);
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

async function freshQueue(name: string): Promise<string> {
  const fifo = name.endsWith('.fifo');
  const created = await stack.clients.sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '5', ...(fifo ? { FifoQueue: 'true' } : {}) } }),
  );
  return created.QueueUrl as string;
}

/** A real consumer on the stack's table, polling `queueUrl`; what it handled, in order. */
function consumerOn(queueUrl: string) {
  const handled: { id: string; subject: string; position: string; replayId: string | undefined }[] = [];
  // A slot quiet past its retention starts again with a new epoch: (epoch, sequence) orders an aggregate.
  const handle = (
    event: { id: string; subject: string; sequenceepoch: string; aggregatesequence: number },
    context: { replayId?: string },
  ) =>
    void handled.push({
      id: event.id,
      subject: event.subject,
      position: `${event.sequenceepoch}#${String(event.aggregatesequence).padStart(10, '0')}`,
      replayId: context.replayId,
    });
  const consumer = createConsumer({
    name: 'billing-backfill',
    sources: [config.source],
    handlers: { 'order.placed': { handle }, 'order.paid': { handle } },
    inbox: { document: stack.clients.document, tableName: stack.tableName },
  });
  const outcomes: MessageOutcome[] = [];
  const errors: PollError[] = [];
  const poller = createPoller({
    sqs: stack.clients.sqs,
    queueUrl,
    consumer,
    waitTimeSeconds: 1,
    onBatch: (result) => void outcomes.push(...result.result.outcomes),
    onError: (error) => void errors.push(error),
  });
  poller.start();
  return { handled, outcomes, errors, stop: () => poller.stop({ timeoutMs: 10_000 }) };
}

describe('replay from the archive the real pipeline wrote', () => {
  it('gives a fresh queue exactly the matching events, handled once each in per-aggregate order, across a stop and a restart', async () => {
    expect(written).toHaveLength(2_000);
    const from = new Date(START + 30 * HOUR);
    const to = new Date(START + 66 * HOUR);
    const types = ['order.placed', 'order.paid'];
    const expected = written.filter(
      (e) => types.includes(e.type) && Date.parse(e.time) >= from.getTime() && Date.parse(e.time) < to.getTime(),
    );
    expect(expected.length).toBeGreaterThanOrEqual(300);
    const queueUrl = await freshQueue('billing-backfill.fifo');
    const consumer = consumerOn(queueUrl);
    const options = { from, to, types, queueUrl, checkpointPath: join(mkdtempSync(join(tmpdir(), 'replay-')), 'e2e.checkpoint') };

    const stop = new AbortController();
    const first = await stack.archive!.replay({
      ...options,
      signal: stop.signal,
      onProgress: (p) => p.sent >= expected.length / 2 && stop.abort(),
    });
    const second = await stack.archive!.replay(options);
    await waitFor(() => consumer.handled.length >= expected.length, { timeoutMs: 60_000, what: 'every replayed event handled' });
    await consumer.stop();

    expect(first.status).toBe('interrupted');
    expect(second).toMatchObject({ status: 'completed', replayId: first.replayId, corrupt: [], refused: [] });
    expect(first.sent + second.sent).toBe(expected.length);
    const ids = consumer.handled.map((h) => h.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(expected.map((e) => e.id).sort());
    expect(new Set(consumer.handled.map((h) => h.replayId))).toEqual(new Set([first.replayId]));
    const byAggregate = new Map<string, string[]>();
    for (const h of consumer.handled) byAggregate.set(h.subject, [...(byAggregate.get(h.subject) ?? []), h.position]);
    for (const [aggregate, positions] of byAggregate) expect(positions, aggregate).toEqual([...positions].sort());
    expect(consumer.errors).toEqual([]);
    expect(backgroundErrors).toEqual([]);

    // The same events again, by another replay to another queue of the same consumer: its inbox has them all.
    const againUrl = await freshQueue('billing-again');
    const again = consumerOn(againUrl);
    const repeat = await replayArchive({
      s3: stack.clients.s3,
      sqs: stack.clients.sqs,
      bucket: stack.archive!.bucket,
      from,
      to,
      types,
      queueUrl: againUrl,
    });
    await waitFor(() => again.outcomes.length >= repeat.sent, { timeoutMs: 60_000, what: 'every replayed event acknowledged' });
    await again.stop();

    expect(repeat.replayId).not.toBe(first.replayId);
    expect(repeat.sent).toBe(expected.length);
    expect(again.handled).toEqual([]);
    expect(new Set(again.outcomes.map((o) => o.status))).toEqual(new Set(['duplicate']));
  }, 240_000);
});
