import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConfig } from '../../shared/config.js';
import {
  deadLetterEnvelope,
  deadLetterRawImage,
  isRelayDeadLetter,
  MAX_DEAD_LETTER_MESSAGE_BYTES,
  type RelayDeadLetter,
} from '../../shared/dead-letter.js';
import type { StreamRunner } from '../../shared/local/event-source/stream-runner.js';
import { SLOT_KIND, slotKey } from '../../shared/slot.js';
import { deliveryReport } from '../helpers/delivery.js';
import { RELAY_DLQ, type RelayTestStack, startRelayRunner, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';
import { type CommittedEvent, commitRawSlot, inParallel } from '../helpers/slot-writer.js';
import { slotRecord } from '../helpers/stream-records.js';
import { captureWarnings } from '../helpers/warnings.js';

const config = defineConfig({
  source: 'urn:test:relay',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
});
const ORDERS = subscriberQueue('orders.fifo');

let stack: RelayTestStack;
let runner: StreamRunner;

beforeAll(async () => {
  stack = await startRelayStack(config);
  runner = startRelayRunner(stack, config);
});

afterAll(async () => {
  await runner?.stop();
  await stack?.stop();
});

describe('relay end to end (DynamoDB Local → runner → handler → fauxqs)', () => {
  it('delivers 1,000 events over 50 aggregates written concurrently, each exactly once after dedup by event id, in per-aggregate order', async () => {
    // Round-robin over aggregates so concurrent commits hit many slots, and sometimes the same one, at once.
    const commits = Array.from({ length: 10 }, (_, c) => c).flatMap((c) =>
      Array.from(
        { length: 50 },
        (_, a) => () =>
          stack.write({ type: 'order', id: `o-${a}` }, [
            { type: 'order.changed', data: { a, c, step: 0 } },
            { type: 'order.changed', data: { a, c, step: 1 } },
          ]),
      ),
    );
    const committed = (await inParallel(16, commits)).flat();
    expect(committed).toHaveLength(1000);

    await expect.poll(() => new Set(stack.envelopes(ORDERS).map((e) => e.id)).size, { timeout: 180_000, interval: 200 }).toBe(1000);
    const report = deliveryReport(committed, stack.envelopes(ORDERS));
    expect(report.missing).toEqual([]);
    expect(report.unexpected).toEqual([]);
    expect(report.outOfOrder).toEqual([]);
    const received = stack.envelopes(ORDERS);
    expect(received[0]).toMatchObject({
      specversion: '1.0',
      source: 'urn:test:relay',
      aggregatetype: 'order',
      datacontenttype: 'application/json',
    });
  }, 300_000);

  it('fails a poison event over to the relay DLQ with its full envelope and reason while other aggregates keep flowing', async () => {
    const before = stack.bodies(subscriberQueue('payments')).length;
    const huge = 'x'.repeat(300_000);
    const poison = await commitRawSlot(stack.clients.document, stack.tableName, { type: 'payment', id: 'p-poison' }, [
      { type: 'payment.captured', data: { note: huge } },
    ]);
    const after = await stack.write({ type: 'payment', id: 'p-poison' }, [{ type: 'payment.refunded', data: { ok: true } }]);
    const others: CommittedEvent[] = (
      await inParallel(
        8,
        Array.from(
          { length: 20 },
          (_, i) => () => stack.write({ type: 'payment', id: `p-${i}` }, [{ type: 'payment.captured', data: { i } }]),
        ),
      )
    ).flat();

    await expect.poll(() => stack.bodies(RELAY_DLQ).length, { timeout: 120_000, interval: 200 }).toBe(1);
    const letter: unknown = JSON.parse(stack.bodies(RELAY_DLQ)[0]!);
    expect(isRelayDeadLetter(letter)).toBe(true);
    expect(letter).toMatchObject({
      reason: 'PUBLISH_REJECTED',
      eventId: poison[0]!.id,
      aggregateType: 'payment',
      aggregateId: 'p-poison',
      sequence: 1,
      topic: 'payments',
      record: { eventSourceArn: stack.streamArn },
    });
    const envelope = JSON.parse(deadLetterEnvelope(letter as RelayDeadLetter)!);
    expect(envelope).toMatchObject({ id: poison[0]!.id, type: 'payment.captured', data: { note: huge } });
    expect((letter as { detail: string }).detail).toMatch(/bytes; allowed: at most 262144 bytes/);

    const expected = [...after, ...others].map((e) => e.id).sort();
    await expect
      .poll(
        () =>
          stack
            .envelopes(subscriberQueue('payments'))
            .slice(before)
            .map((e) => e.id)
            .sort(),
        { timeout: 120_000, interval: 200 },
      )
      .toEqual(expected);
  }, 300_000);

  it('delivers and dead-letters events holding U+FFFE and U+FFFF, which SQS refuses raw, as escapes that read back the same', async () => {
    const before = stack.bodies(RELAY_DLQ).length;
    const note = 'x\uFFFFy\uFFFEz';
    const delivered = await stack.write({ type: 'payment', id: 'p-nonchar' }, [{ type: 'payment.captured', data: { note } }]);
    // No route for its type: its dead letter, small enough to go as plain JSON, holds the same characters.
    const rejected = await commitRawSlot(stack.clients.document, stack.tableName, { type: 'invoice', id: 'i-nonchar' }, [
      { type: 'invoice.raised', data: { note } },
    ]);

    await expect
      .poll(() => stack.envelopes(subscriberQueue('payments')).find((e) => e.id === delivered[0]!.id)?.data, {
        timeout: 120_000,
        interval: 200,
      })
      .toEqual({ note });
    await expect.poll(() => stack.bodies(RELAY_DLQ).length, { timeout: 120_000, interval: 200 }).toBe(before + 1);
    const body = stack.bodies(RELAY_DLQ)[before]!;
    expect(body).not.toMatch(/[\uFFFE\uFFFF]/);
    const letter = JSON.parse(body) as RelayDeadLetter;
    expect(letter).toMatchObject({ reason: 'UNKNOWN_ROUTE', eventId: rejected[0]!.id });
    expect((JSON.parse(deadLetterEnvelope(letter)!) as { data: { note: string } }).data.note).toBe(note);
  }, 300_000);

  it('dead-letters a malformed slot whose raw image is too large for SQS in plain JSON, gzip’d, and goes on', async () => {
    const before = stack.bodies(RELAY_DLQ).length;
    // 350,000 control characters: JSON escapes each as six, a 2 MB dead letter in plain text.
    const garbage = '\u0001'.repeat(350_000);
    const item = {
      ...slotKey({ type: 'payment', id: 'p-garbled' }),
      kind: SLOT_KIND,
      aggregateType: 'payment',
      aggregateId: 'p-garbled',
      events: garbage,
    };
    await stack.clients.document.send(new PutCommand({ TableName: stack.tableName, Item: item }));
    const after = await stack.write({ type: 'payment', id: 'p-after-garbled' }, [{ type: 'payment.captured', data: { ok: true } }]);

    await expect.poll(() => stack.bodies(RELAY_DLQ).length, { timeout: 120_000, interval: 200 }).toBe(before + 1);
    const body = stack.bodies(RELAY_DLQ)[before]!;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_DEAD_LETTER_MESSAGE_BYTES);
    const letter: unknown = JSON.parse(body);
    expect(isRelayDeadLetter(letter)).toBe(true);
    expect(letter).toMatchObject({ reason: 'MALFORMED_SLOT', record: { eventSourceArn: stack.streamArn } });
    expect((letter as { rawImage?: unknown }).rawImage).toBeUndefined();
    expect(deadLetterRawImage(letter as RelayDeadLetter)).toMatchObject({ aggregateId: { S: 'p-garbled' }, events: { S: garbage } });
    await expect
      .poll(() => stack.envelopes(subscriberQueue('payments')).map((e) => e.id), { timeout: 120_000, interval: 200 })
      .toContain(after[0]!.id);
  }, 300_000);

  it('keeps more than 10 requests in flight on the invocation’s signal without Node’s listener-leak warning', async () => {
    const capture = captureWarnings();
    try {
      const handler = stack.handler({ publishConcurrency: 16 });
      // 200 aggregates of a standard topic: 20 PublishBatch requests, 16 of them in flight at once.
      const records = Array.from({ length: 200 }, (_, i) => slotRecord({ type: 'payment', id: `p-many-${i}` }));
      const response = await handler({ Records: records }, { getRemainingTimeInMillis: () => 60_000 });
      expect(response.batchItemFailures).toEqual([]);
      expect(capture.warnings).toEqual([]);
    } finally {
      capture.stop();
    }
  });
});
