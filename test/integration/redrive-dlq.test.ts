import type { PublishBatchCommand } from '@aws-sdk/client-sns';
import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../shared/envelope.js';
import { drainQueue } from '../../shared/redrive/drain-queue.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';
import { redriveQueueDlq } from '../../shared/redrive/queue-dlq.js';
import { redriveRelayDlq } from '../../shared/redrive/relay-dlq.js';
import type { RedriveProgress, RedriveSummary } from '../../shared/redrive/types.js';
import { messageGroupId } from '../../shared/relay/publish-entry.js';
import type { PublishBatchClient } from '../../shared/relay/types.js';
import { aMalformedSlotDeadLetter, aRelayDeadLetter } from '../helpers/dead-letters.js';
import { anEnvelope } from '../helpers/envelopes.js';
import { testConfig } from '../helpers/factories.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';
import { waitFor } from '../helpers/wait.js';

const { server, clients } = await emulatorForFile();

async function sendAll(
  queueUrl: string,
  bodies: readonly string[],
  extra: (i: number) => Record<string, unknown> = () => ({}),
): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies.slice(i, i + 10).map((body, j) => ({ Id: String(j), MessageBody: body, ...extra(i + j) })),
      }),
    );
  }
}

const eventIds = (bodies: readonly string[]) => bodies.map((b) => parseEnvelope(b).id);

describe('relay DLQ redrive', () => {
  it('moves every dead letter under concurrent producers, none lost or doubled, and leaves the unrepublishable ones', async () => {
    const { topicArn } = server.createTopic('payments-redrive');
    server.createQueue('payments-redrive-target');
    server.subscribe({ topic: 'payments-redrive', queue: 'payments-redrive-target', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-concurrent');
    const topicArns = { payments: topicArn };

    const initial = Array.from({ length: 30 }, () => aRelayDeadLetter({ topic: 'payments' }));
    await sendAll(queueUrl, [...initial.map((l) => l.body), aMalformedSlotDeadLetter(), aMalformedSlotDeadLetter()]);
    const produced = [...initial];
    const producer = async (count: number) => {
      for (let i = 0; i < count; i += 5) {
        const letters = Array.from({ length: 5 }, () => aRelayDeadLetter({ topic: 'payments' }));
        produced.push(...letters);
        await sendAll(
          queueUrl,
          letters.map((l) => l.body),
        );
      }
    };

    const summaries: RedriveSummary[] = [];
    const [first] = await Promise.all([
      redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns }),
      producer(60),
      producer(60),
    ]);
    summaries.push(first);
    // A second pass takes what the producers added after the first pass found the queue empty.
    summaries.push(await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns }));

    const moved = summaries.reduce((sum, s) => sum + s.moved, 0);
    expect(produced).toHaveLength(150);
    expect(moved).toBe(150);
    expect(first.before).toBe(32);
    const delivered = eventIds(queueBodies(server, 'payments-redrive-target'));
    expect(delivered).toHaveLength(150);
    expect(new Set(delivered)).toEqual(new Set(produced.map((l) => l.eventId)));
    expect(queueDepth(server, 'relay-dlq-concurrent')).toBe(2);
    expect(summaries.at(-1)?.after).toBe(2);
    expect(summaries.at(-1)?.skipped.map((s) => s.reason)).toEqual([
      expect.stringContaining('MALFORMED_SLOT'),
      expect.stringContaining('MALFORMED_SLOT'),
    ]);
  });

  it('republishes to a FIFO topic with the aggregate group and the event id as dedup id', async () => {
    const { topicArn } = server.createTopic('orders-redrive.fifo', { attributes: { FifoTopic: 'true' } });
    server.createQueue('orders-redrive-target.fifo', { attributes: { FifoQueue: 'true' } });
    server.subscribe({ topic: 'orders-redrive.fifo', queue: 'orders-redrive-target.fifo', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-fifo');
    const letters = [1, 2, 3].map((sequence) =>
      aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: 'A', sequence }),
    );
    await sendAll(queueUrl, [...letters.map((l) => l.body), letters[0]?.body ?? '']);

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: { 'orders.fifo': topicArn } });

    expect(summary.moved).toBe(4);
    const state = server.inspectQueue('orders-redrive-target.fifo');
    const messages = [...(state?.messages.ready ?? [])];
    expect(messages.map((m) => parseEnvelope(m.body).aggregatesequence)).toEqual([1, 2, 3]);
    expect(messages.map((m) => m.messageGroupId)).toEqual(['order#A', 'order#A', 'order#A']);
    expect(queueDepth(server, 'relay-dlq-fifo')).toBe(0);
  });

  it("republishes with the envelope's trace context as traceparent and tracestate attributes, as the relay does", async () => {
    const { topicArn } = server.createTopic('payments-trace');
    server.createQueue('payments-trace-target');
    server.subscribe({ topic: 'payments-trace', queue: 'payments-trace-target', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-trace');
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const letter = aRelayDeadLetter({ topic: 'payments' });
    const withTrace = JSON.stringify({ ...JSON.parse(letter.envelope), traceparent, tracestate: 'vendor=abc' });
    await sendAll(queueUrl, [JSON.stringify({ ...JSON.parse(letter.body), envelope: withTrace })]);

    await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: { payments: topicArn } });

    const [message] = server.inspectQueue('payments-trace-target')?.messages.ready ?? [];
    expect(message?.body).toBe(withTrace);
    expect(message?.messageAttributes.traceparent?.StringValue).toBe(traceparent);
    expect(message?.messageAttributes.tracestate?.StringValue).toBe('vendor=abc');
  });

  it('routes a dead letter written without a topic (no route then) by its aggregate type once the config has the route', async () => {
    const { topicArn } = server.createTopic('orders-routed.fifo', { attributes: { FifoTopic: 'true' } });
    server.createQueue('orders-routed-target.fifo', { attributes: { FifoQueue: 'true' } });
    server.subscribe({ topic: 'orders-routed.fifo', queue: 'orders-routed-target.fifo', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-unrouted');
    const routed = aRelayDeadLetter({ aggregateType: 'order', aggregateId: 'R', sequence: 1 });
    const unrouted = aRelayDeadLetter({ aggregateType: 'invoice', aggregateId: 'I', sequence: 1 });
    await sendAll(queueUrl, [routed.body, unrouted.body]);
    const topicArns = { 'orders.fifo': topicArn };

    // Without the config, nothing says where either goes: both stay.
    const blind = await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns });
    expect(blind.moved).toBe(0);
    expect(blind.skipped.map((p) => p.reason)).toEqual([
      expect.stringMatching(
        /^UNKNOWN_ROUTE: no topic recorded \(.*\); give the redrive the config that routes it: add the route, then redrive$/,
      ),
      expect.stringMatching(/^UNKNOWN_ROUTE: no topic recorded/),
    ]);

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns, config: testConfig() });

    expect(summary.moved).toBe(1);
    expect(summary.skipped).toHaveLength(1);
    expect(summary.skipped[0]?.reason).toMatch(/aggregate type "invoice" has no route in the config either: add the route, then redrive$/);
    const delivered = [...(server.inspectQueue('orders-routed-target.fifo')?.messages.ready ?? [])];
    expect(delivered.map((m) => [parseEnvelope(m.body).id, m.messageGroupId])).toEqual([[routed.eventId, 'order#R']]);
    expect(queueBodies(server, 'relay-dlq-unrouted')).toEqual([unrouted.body]);
  });

  it('republishes an envelope a dead letter carries gzip’d byte for byte, in the group the relay gives its aggregate', async () => {
    const { topicArn } = server.createTopic('orders-gzip.fifo', { attributes: { FifoTopic: 'true' } });
    server.createQueue('orders-gzip-target.fifo', { attributes: { FifoQueue: 'true' } });
    server.subscribe({ topic: 'orders-gzip.fifo', queue: 'orders-gzip-target.fifo', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-gzip');
    const letter = aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: 'Zürich 1', gzip: true });
    expect(JSON.parse(letter.body).envelope).toBeUndefined();
    await sendAll(queueUrl, [letter.body]);

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: { 'orders.fifo': topicArn } });

    expect(summary.moved).toBe(1);
    const messages = [...(server.inspectQueue('orders-gzip-target.fifo')?.messages.ready ?? [])];
    expect(messages.map((m) => m.body)).toEqual([letter.envelope]);
    expect(messages.map((m) => m.messageGroupId)).toEqual([messageGroupId({ aggregateType: 'order', aggregateId: 'Zürich 1' })]);
    expect(messages[0]?.messageGroupId).toMatch(/^sha256:/);
  });

  it('changes nothing in a dry run but reports what it would move, with progress', async () => {
    const { topicArn } = server.createTopic('payments-dry');
    server.createQueue('payments-dry-target');
    server.subscribe({ topic: 'payments-dry', queue: 'payments-dry-target', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-dry');
    await sendAll(
      queueUrl,
      Array.from({ length: 12 }, () => aRelayDeadLetter({ topic: 'payments' }).body),
    );
    const progress: RedriveProgress[] = [];

    const summary = await redriveRelayDlq({
      sqs: clients.sqs,
      sns: clients.sns,
      queueUrl,
      topicArns: { payments: topicArn },
      dryRun: true,
      onProgress: (p) => progress.push(p),
    });

    expect(summary).toMatchObject({ status: 'dry-run', before: 12, after: 12, moved: 12, processed: 12 });
    expect(queueDepth(server, 'relay-dlq-dry')).toBe(12);
    expect(queueDepth(server, 'payments-dry-target')).toBe(0);
    expect(progress.at(-1)).toMatchObject({ processed: 12, total: 12, moved: 12 });
  });

  it('fails the messages whose republish fails and keeps them in the DLQ', async () => {
    const { topicArn } = server.createTopic('payments-half');
    server.createQueue('payments-half-target');
    server.subscribe({ topic: 'payments-half', queue: 'payments-half-target', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-half');
    const good = Array.from({ length: 4 }, () => aRelayDeadLetter({ topic: 'payments' }));
    const orphaned = Array.from({ length: 3 }, () => aRelayDeadLetter({ topic: 'gone' }));
    await sendAll(
      queueUrl,
      [...good, ...orphaned].map((l) => l.body),
    );

    const summary = await redriveRelayDlq({
      sqs: clients.sqs,
      sns: clients.sns,
      queueUrl,
      topicArns: { payments: topicArn, gone: 'arn:aws:sns:us-east-1:000000000000:deleted-topic' },
    });

    expect(summary).toMatchObject({ moved: 4, before: 7, after: 3 });
    expect(summary.failed).toHaveLength(3);
    expect(summary.failed[0]?.reason).toContain('PublishBatch failed');
    expect(queueDepth(server, 'relay-dlq-half')).toBe(3);
    expect(eventIds(queueBodies(server, 'payments-half-target')).sort()).toEqual(good.map((l) => l.eventId).sort());
  });

  it('keeps every later dead letter of an aggregate whose event failed in an earlier receive of the run', async () => {
    const { topicArn } = server.createTopic('orders-blocked.fifo', { attributes: { FifoTopic: 'true' } });
    server.createQueue('orders-blocked-target.fifo', { attributes: { FifoQueue: 'true' } });
    server.subscribe({ topic: 'orders-blocked.fifo', queue: 'orders-blocked-target.fifo', attributes: { RawMessageDelivery: 'true' } });
    const { queueUrl } = server.createQueue('relay-dlq-blocked');
    // Eleven events of one aggregate: the first receive takes ten, the second the eleventh.
    const letters = Array.from({ length: 11 }, (_, i) =>
      aRelayDeadLetter({ topic: 'orders.fifo', aggregateType: 'order', aggregateId: 'B', sequence: i + 1 }),
    );
    await sendAll(
      queueUrl,
      letters.map((l) => l.body),
    );
    let requests = 0;
    // Refused for a reason no retry fixes, once: a throttle would be sent again in the run.
    const refusedOnce: PublishBatchClient = {
      send: (command: PublishBatchCommand) =>
        ++requests === 1
          ? Promise.reject(
              Object.assign(new Error('Authorization error'), { name: 'AuthorizationErrorException', $metadata: { httpStatusCode: 403 } }),
            )
          : clients.sns.send(command),
    };

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns: refusedOnce, queueUrl, topicArns: { 'orders.fifo': topicArn } });

    expect(summary).toMatchObject({ processed: 11, moved: 0, after: 11 });
    expect(summary.failed).toHaveLength(11);
    expect(summary.failed.at(-1)?.reason).toContain(`earlier event ${letters[0]?.eventId} of aggregate order#B failed`);
    expect(requests).toBe(1);
    expect(queueDepth(server, 'orders-blocked-target.fifo')).toBe(0);
    expect(queueDepth(server, 'relay-dlq-blocked')).toBe(11);
  });

  it('rejects a redrive without topic ARNs before reading anything', async () => {
    const { queueUrl } = server.createQueue('relay-dlq-no-topics');
    await sendAll(queueUrl, [aRelayDeadLetter({ topic: 'payments' }).body]);
    await expect(redriveRelayDlq({ sqs: clients.sqs, sns: clients.sns, queueUrl, topicArns: {} })).rejects.toThrow(RedriveOptionsError);
    expect(queueDepth(server, 'relay-dlq-no-topics')).toBe(1);
  });
});

describe('subscriber DLQ redrive', () => {
  it('moves messages back to the source queue with their attributes, deleting each only after it was sent', async () => {
    const source = server.createQueue('billing');
    const dlq = server.createQueue('billing-dlq');
    const bodies = Array.from({ length: 23 }, (_, i) => anEnvelope({ aggregateId: `b-${i}` }).body);
    await sendAll(dlq.queueUrl, bodies, () => ({ MessageAttributes: { type: { DataType: 'String', StringValue: 'order.placed' } } }));

    const summary = await redriveQueueDlq({
      sqs: clients.sqs,
      queueUrl: dlq.queueUrl,
      targetQueueUrl: source.queueUrl,
      ratePerSecond: 1000,
    });

    expect(summary).toMatchObject({ status: 'completed', before: 23, after: 0, moved: 23 });
    expect(queueDepth(server, 'billing-dlq')).toBe(0);
    const state = server.inspectQueue('billing');
    expect(state?.messages.ready.map((m) => m.body).sort()).toEqual([...bodies].sort());
    expect(state?.messages.ready.every((m) => m.messageAttributes.type?.StringValue === 'order.placed')).toBe(true);
  });

  it('keeps FIFO message groups and their order', async () => {
    const source = server.createQueue('shipping.fifo', { attributes: { FifoQueue: 'true' } });
    const dlq = server.createQueue('shipping-dlq.fifo', { attributes: { FifoQueue: 'true' } });
    const bodies = [1, 2, 3].map((sequence) => anEnvelope({ aggregateId: 'S', sequence }).body);
    await sendAll(dlq.queueUrl, bodies, (i) => ({ MessageGroupId: 'order#S', MessageDeduplicationId: `d-${i}` }));

    const summary = await redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: source.queueUrl });

    expect(summary.moved).toBe(3);
    const ready = server.inspectQueue('shipping.fifo')?.messages.ready ?? [];
    expect(ready.map((m) => parseEnvelope(m.body).aggregatesequence)).toEqual([1, 2, 3]);
    expect(ready.map((m) => m.messageGroupId)).toEqual(['order#S', 'order#S', 'order#S']);
  });

  it('moves a FIFO DLQ into a standard queue (a standard queue on a FIFO topic has a FIFO SNS DLQ), in order, without groups', async () => {
    const source = server.createQueue('billing-standard');
    const dlq = server.createQueue('billing-sns-dlq.fifo', { attributes: { FifoQueue: 'true' } });
    const bodies = [1, 2, 3].map((sequence) => anEnvelope({ aggregateId: 'B', sequence }).body);
    await sendAll(dlq.queueUrl, bodies, (i) => ({ MessageGroupId: 'order#B', MessageDeduplicationId: `b-${i}` }));

    const summary = await redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: source.queueUrl });

    expect(summary).toMatchObject({ moved: 3, failed: [], skipped: [] });
    expect(queueDepth(server, 'billing-sns-dlq.fifo')).toBe(0);
    const ready = server.inspectQueue('billing-standard')?.messages.ready ?? [];
    expect(ready.map((m) => parseEnvelope(m.body).aggregatesequence)).toEqual([1, 2, 3]);
  });

  it('moves a batch message whole when a later event of it matches --type or --since, counting its events', async () => {
    const source = server.createQueue('batched');
    const dlq = server.createQueue('batched-dlq');
    const event = (aggregateId: string, sequence: number, type: string, time: string) => ({
      ...JSON.parse(anEnvelope({ aggregateId, sequence, type }).body),
      time,
    });
    const byType = JSON.stringify([
      event('B1', 1, 'order.placed', '2026-02-01T10:00:00Z'),
      event('B1', 2, 'order.shipped', '2026-02-01T10:01:00Z'),
    ]);
    const byTime = JSON.stringify([
      event('B2', 1, 'order.placed', '2026-02-01T10:00:00Z'),
      event('B2', 2, 'order.placed', '2026-02-01T13:00:00Z'),
    ]);
    const neither = JSON.stringify([
      event('B3', 1, 'order.placed', '2026-02-01T10:00:00Z'),
      event('B3', 2, 'order.placed', '2026-02-01T10:01:00Z'),
    ]);
    await sendAll(dlq.queueUrl, [byType, byTime, neither]);

    const dryRun = await redriveQueueDlq({
      sqs: clients.sqs,
      queueUrl: dlq.queueUrl,
      targetQueueUrl: source.queueUrl,
      filter: { types: ['order.shipped'] },
      dryRun: true,
    });
    expect(dryRun).toMatchObject({ moved: 1, republished: 2, unmatched: 2 });
    await waitFor(() => queueDepth(server, 'batched-dlq') === 3, { timeoutMs: 5_000 });

    const typed = await redriveQueueDlq({
      sqs: clients.sqs,
      queueUrl: dlq.queueUrl,
      targetQueueUrl: source.queueUrl,
      filter: { types: ['order.shipped'] },
    });
    const timed = await redriveQueueDlq({
      sqs: clients.sqs,
      queueUrl: dlq.queueUrl,
      targetQueueUrl: source.queueUrl,
      filter: { since: new Date('2026-02-01T12:00:00Z') },
    });

    expect(typed).toMatchObject({ moved: 1, republished: 2 });
    expect(timed).toMatchObject({ moved: 1, republished: 2 });
    expect(queueBodies(server, 'batched').sort()).toEqual([byType, byTime].sort());
    await waitFor(() => queueDepth(server, 'batched-dlq') === 1, { timeoutMs: 5_000 });
  });

  it('splits sends by size, so large messages do not make the whole batch too long', async () => {
    const source = server.createQueue('large');
    const dlq = server.createQueue('large-dlq');
    // Ten messages of 150 KB: 1.5 MB in all, over the 1 MiB SQS takes in one batch.
    const bodies = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(150_000, 'x'));
    for (const body of bodies) await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.queueUrl, MessageBody: body }));

    const summary = await redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: source.queueUrl });

    expect(summary).toMatchObject({ moved: 10, before: 10, after: 0, failed: [] });
    expect(queueBodies(server, 'large').sort()).toEqual([...bodies].sort());
  });

  it('fails and keeps the messages of a send the queue refuses, and goes on', async () => {
    const dlq = server.createQueue('orphan-dlq');
    await sendAll(dlq.queueUrl, ['a', 'b', 'c']);
    const missing = dlq.queueUrl.replace(/orphan-dlq$/, 'orphan-gone');

    const summary = await redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: missing });

    expect(summary).toMatchObject({ status: 'completed', processed: 3, moved: 0, after: 3 });
    expect(summary.failed.map((f) => f.reason)).toEqual(Array(3).fill(expect.stringContaining('SendMessageBatch failed')));
    expect(queueDepth(server, 'orphan-dlq')).toBe(3);
  });

  it('rejects a redrive into the DLQ itself, or from a standard DLQ into a FIFO queue, before reading anything', async () => {
    const dlq = server.createQueue('loop-dlq');
    const fifo = server.createQueue('loop.fifo', { attributes: { FifoQueue: 'true' } });
    await sendAll(dlq.queueUrl, ['x']);
    await expect(redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: dlq.queueUrl })).rejects.toThrow(
      /is the DLQ itself/,
    );
    await expect(redriveQueueDlq({ sqs: clients.sqs, queueUrl: dlq.queueUrl, targetQueueUrl: fifo.queueUrl })).rejects.toThrow(
      /is a FIFO queue and the DLQ .* a standard one, whose messages carry no message group; allowed: a standard queue, or a FIFO queue from a FIFO DLQ/,
    );
    expect(queueDepth(server, 'loop-dlq')).toBe(1);
  });
});

describe('draining a queue', () => {
  /** Moves `ok-*` bodies (into `moved`), skips `junk-*` ones; `onFirstRepublish` runs inside the first republish. */
  function drain(queueUrl: string, onFirstRepublish: () => Promise<void>, visibilityTimeoutSeconds?: number) {
    const moved: string[] = [];
    let first = true;
    const summary = drainQueue<string>({
      sqs: clients.sqs,
      queueUrl,
      target: 'test',
      ...(visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds }),
      plan: (message) =>
        message.Body?.startsWith('junk') ? { status: 'skip', reason: 'junk' } : { status: 'republish', item: message.Body ?? '', units: 1 },
      republish: async (items) => {
        if (first) {
          first = false;
          await onFirstRepublish();
        }
        moved.push(...items.map((i) => i.item));
        return { succeeded: items.map((i) => i.messageId), failed: [] };
      },
    });
    return { summary, moved };
  }
  const inflightJunk = (name: string) =>
    (server.inspectQueue(name)?.messages.inflight ?? []).filter((e) => e.message.body.startsWith('junk'));

  it('goes on past a receive of only messages it kept back, until a receive comes back empty', async () => {
    const { queueUrl } = server.createQueue('drain-seen-again');
    const junk = Array.from({ length: 10 }, (_, i) => `junk-${i}`);
    const ok = Array.from({ length: 10 }, (_, i) => `ok-${i}`);
    const late = Array.from({ length: 5 }, (_, i) => `late-${i}`);
    await sendAll(queueUrl, [...junk, ...ok]);

    const run = drain(queueUrl, async () => {
      // The kept messages' visibility runs out (as in a long run), and new messages arrive behind them:
      // the next receive gets only messages the run has already seen.
      for (const entry of inflightJunk('drain-seen-again')) {
        await clients.sqs.send(
          new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: entry.receiptHandle, VisibilityTimeout: 0 }),
        );
      }
      await sendAll(queueUrl, late);
    });
    const summary = await run.summary;

    expect(summary).toMatchObject({ status: 'completed', processed: 25, moved: 15, after: 10 });
    expect(summary.skipped.map((s) => s.id)).toHaveLength(10);
    expect(run.moved.sort()).toEqual([...ok, ...late].sort());
    expect(queueBodies(server, 'drain-seen-again').sort()).toEqual([...junk].sort());
  });

  it('keeps the messages it kept back hidden for as long as the run lasts, so none comes back to be received again', async () => {
    const { queueUrl } = server.createQueue('drain-keep-hidden');
    await sendAll(queueUrl, [...Array.from({ length: 10 }, (_, i) => `junk-${i}`), ...Array.from({ length: 10 }, (_, i) => `ok-${i}`)]);

    const run = drain(
      queueUrl,
      // The run holds its batch past the kept messages' first visibility timeout (2 s): by then they
      // must have been hidden again, and must still be (fauxqs expires lazily: its deadlines say).
      () => {
        const firstDeadline = Math.max(...inflightJunk('drain-keep-hidden').map((e) => e.visibilityDeadline));
        return waitFor(
          () => Date.now() > firstDeadline + 200 && inflightJunk('drain-keep-hidden').every((e) => e.visibilityDeadline > Date.now()),
          { timeoutMs: 5000, what: 'the kept messages to outlast their first visibility timeout, hidden again' },
        );
      },
      2,
    );
    const summary = await run.summary;

    expect(summary).toMatchObject({ processed: 20, moved: 10, after: 10 });
    const kept = server.inspectQueue('drain-keep-hidden')?.messages.ready ?? [];
    expect(kept).toHaveLength(10);
    expect(kept.map((m) => m.approximateReceiveCount)).toEqual(Array(10).fill(1));
  });

  it('rejects a visibility timeout that would hide nothing, before reading anything', async () => {
    const { queueUrl } = server.createQueue('drain-no-visibility');
    await sendAll(queueUrl, ['ok-1']);
    const run = drain(queueUrl, async () => {}, 0);
    await expect(run.summary).rejects.toThrow(
      /Invalid redrive option visibilityTimeoutSeconds: got 0; allowed: a whole number of seconds from 1 to 43200/,
    );
    expect(server.inspectQueue('drain-no-visibility')?.messages.ready.map((m) => m.approximateReceiveCount)).toEqual([0]);
  });
});

describe('redrive rate', () => {
  it('reads a queue no more messages at a time than one second of the rate holds, so no batch bursts past it', async () => {
    const { topicArn } = server.createTopic('payments-rate');
    const { queueUrl } = server.createQueue('relay-dlq-rate');
    await sendAll(
      queueUrl,
      Array.from({ length: 5 }, () => aRelayDeadLetter({ topic: 'payments' }).body),
    );
    const batches: number[] = [];
    const sns: PublishBatchClient = {
      send: (command: PublishBatchCommand) => {
        batches.push(command.input.PublishBatchRequestEntries?.length ?? 0);
        return clients.sns.send(command);
      },
    };

    const summary = await redriveRelayDlq({ sqs: clients.sqs, sns, queueUrl, topicArns: { payments: topicArn }, ratePerSecond: 2.5 });

    expect(summary).toMatchObject({ moved: 5, republished: 5 });
    expect(Math.max(...batches)).toBeLessThanOrEqual(2);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(5);
  });
});
