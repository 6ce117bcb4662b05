import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetSubscriptionAttributesCommand, ListSubscriptionsByTopicCommand } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { defineConfig, Outbox } from 'dynamodb-outbox';
import { LocalStackError, type OutboxTestStack, startOutboxTestStack } from 'dynamodb-outbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeArchiveObject, parseArchiveObjectKey } from '../../shared/archive/layout.js';
import type { OutboxEnvelope } from '../../shared/envelope.js';
import type { WrittenEvent } from '../../shared/write/index.js';

/*
 * Events written over several days of simulated time go through the real pipeline of the test
 * stack (DynamoDB Local, the relay, fauxqs's topics) into the archive queue, and the real
 * archiver writes them to the emulator's S3: the objects hold exactly those envelopes, each in
 * the partition of its aggregate type, type and hour.
 */

const config = defineConfig({
  source: 'urn:test:archive',
  topics: [{ name: 'orders.fifo', fifo: true, batching: { maxEvents: 10 } }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  archive: { retentionDays: 30 },
});

const DAY_MS = 24 * 3600 * 1000;
const START = Date.parse('2026-03-01T09:30:00.000Z');

let stack: OutboxTestStack;
const backgroundErrors: unknown[] = [];

beforeAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  stack = await startOutboxTestStack({
    config,
    subscribers: [{ name: 'orders-audit', topic: 'orders.fifo' }],
    onError: (source, error) => backgroundErrors.push({ source, error }),
  });
});

afterAll(async () => {
  await stack?.stop();
});

/** Every envelope in the archive bucket, with the partition of the object that holds it. */
async function archived(): Promise<{ key: string; envelope: OutboxEnvelope }[]> {
  const found: { key: string; envelope: OutboxEnvelope }[] = [];
  let token: string | undefined;
  do {
    const page = await stack.clients.s3.send(
      new ListObjectsV2Command({ Bucket: stack.archive!.bucket, Prefix: 'events/v1/', ContinuationToken: token }),
    );
    for (const { Key } of page.Contents ?? []) {
      const object = await stack.clients.s3.send(new GetObjectCommand({ Bucket: stack.archive!.bucket, Key }));
      const decoded = decodeArchiveObject(Key!, await object.Body!.transformToByteArray());
      expect(decoded.malformed).toEqual([]);
      for (const { record } of decoded.lines) found.push({ key: Key!, envelope: record as OutboxEnvelope });
    }
    token = page.NextContinuationToken;
  } while (token !== undefined);
  return found;
}

describe('the archive on the test stack', () => {
  it('holds exactly the events published through the real relay, each in the partition of its aggregate type, type and hour, batches unpacked', async () => {
    let now = START;
    const outbox = new Outbox({ config, tableName: stack.tableName, client: stack.clients.document, clock: () => new Date(now) });
    const written: WrittenEvent[] = [];
    // Three days, a write every seven hours: orders with runs of events (batch messages), payments one by one.
    for (let i = 0; i < 11; i++) {
      now = START + i * 7 * 3600 * 1000 + (i % 3) * 60_000;
      const order = { type: 'order', id: `o-${i % 4}` };
      const result = await outbox.write({
        events: [
          { aggregate: order, type: 'order.changed', data: { i, step: 1 } },
          { aggregate: order, type: 'order.changed', data: { i, step: 2 } },
          { aggregate: order, type: i % 2 === 0 ? 'order.placed' : 'order.changed', data: { i, step: 3 } },
          { aggregate: { type: 'payment', id: `p-${i}` }, type: 'payment.captured', data: { i } },
        ],
      });
      written.push(...result.events);
    }
    expect(now - START).toBeGreaterThan(2 * DAY_MS);

    expect(await stack.archive!.waitForArchived(written.length, { timeoutMs: 60_000 })).toBe(written.length);
    const found = await archived();

    // Exactly the written events, each once (no write of the archiver failed), as published.
    expect(found.map((f) => f.envelope.id).sort()).toEqual(written.map((e) => e.id).sort());
    const byId = new Map(written.map((e) => [e.id, e]));
    for (const { key, envelope } of found) {
      const event = byId.get(envelope.id)!;
      expect(envelope).toMatchObject({
        type: event.type,
        subject: event.aggregate.id,
        aggregatesequence: event.sequence,
        time: event.time,
      });
      const { partition } = parseArchiveObjectKey(key);
      expect(partition).toEqual({ aggregateType: envelope.aggregatetype, type: envelope.type, hour: envelope.time.slice(0, 13) });
    }
    const hours = new Set(found.map((f) => f.envelope.time.slice(0, 13)));
    expect(hours.size).toBe(11);
    expect([...hours].sort()[0]).toBe('2026-03-01T09');
    expect([...hours].sort().at(-1)).toBe('2026-03-04T07');
    // The orders topic batches: its subscriber got batch messages, and the archive one line per event of them.
    const messages = await stack.receive('orders-audit', { count: 1000, timeoutMs: 2_000 });
    expect(messages.some((m) => (m.envelopes?.length ?? 0) > 1)).toBe(true);
    expect(messages.flatMap((m) => m.envelopes ?? []).length).toBe(written.filter((e) => e.aggregate.type === 'order').length);
    const archivedById = new Map(found.map((f) => [f.envelope.id, f.envelope]));
    for (const envelope of messages.flatMap((m) => m.envelopes ?? [])) expect(archivedById.get(envelope.id)).toEqual(envelope);
    expect(backgroundErrors).toEqual([]);
  });

  it("exposes the FIFO topics' archive DLQ, the one the FIFO topic's archive subscription dead-letters to", async () => {
    const archive = stack.archive!;
    expect(archive.fifoDeadLetterQueueUrl).toMatch(/\/outbox-archive-dlq\.fifo$/);
    const { Attributes } = await stack.clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: archive.fifoDeadLetterQueueUrl, AttributeNames: ['QueueArn', 'FifoQueue'] }),
    );
    expect(Attributes?.FifoQueue).toBe('true');
    const { Subscriptions = [] } = await stack.clients.sns.send(
      new ListSubscriptionsByTopicCommand({ TopicArn: stack.topicArns['orders.fifo'] }),
    );
    const toArchive = Subscriptions.find((s) => s.Endpoint?.endsWith(':outbox-archive'));
    const subscription = await stack.clients.sns.send(
      new GetSubscriptionAttributesCommand({ SubscriptionArn: toArchive?.SubscriptionArn as string }),
    );
    expect(JSON.parse(subscription.Attributes?.RedrivePolicy ?? '{}').deadLetterTargetArn).toBe(Attributes?.QueueArn);
  });

  it('rejects a wait for no events or with a timeout out of range, naming the option', async () => {
    await expect(stack.archive!.waitForArchived(0)).rejects.toThrow(LocalStackError);
    await expect(stack.archive!.waitForArchived(0)).rejects.toThrow(
      /archive\.waitForArchived\(\) count is 0; allowed: a whole number from 1/,
    );
    await expect(stack.archive!.waitForArchived(1, { timeoutMs: -1 })).rejects.toThrow(/archive\.waitForArchived\(\) timeoutMs is -1/);
  });

  it('resolves a wait at its timeout with the count reached, when fewer events were archived', async () => {
    const archivedSoFar = stack.archive!.archivedEvents();
    expect(await stack.archive!.waitForArchived(archivedSoFar + 1, { timeoutMs: 200 })).toBe(archivedSoFar);
  });
});
