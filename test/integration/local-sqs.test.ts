import { PublishCommand } from '@aws-sdk/client-sns';
import { ReceiveMessageCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SqsBatchReport, SqsPoller, type SqsPollerClient } from '../../shared/local/event-source/sqs-event-source.js';
import { watchDeadLetterDepths } from '../../shared/local/stack/dead-letter-depths.js';
import { createLocalResources, type LocalResources } from '../../shared/local/stack/resources.js';
import { testConfig } from '../helpers/factories.js';
import { queueBodies, queueDepth } from '../helpers/fauxqs.js';
import { emulatorForFile } from '../helpers/local.js';
import { waitFor } from '../helpers/wait.js';

const { server, clients } = await emulatorForFile();
const pollers: SqsPoller[] = [];

afterAll(async () => {
  await Promise.all(pollers.map((p) => p.stop()));
});

/** A standard queue whose failed messages come back after one second, with a DLQ after `maxReceiveCount` receives. */
function queueWithDlq(name: string, maxReceiveCount: number): { queueUrl: string; queueArn: string; dlqUrl: string } {
  const dlq = server.createQueue(`${name}-dlq`);
  const queue = server.createQueue(name, {
    attributes: {
      VisibilityTimeout: '1',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: String(maxReceiveCount) }),
    },
  });
  return { queueUrl: queue.queueUrl, queueArn: queue.queueArn, dlqUrl: dlq.queueUrl };
}

function poll(
  queue: { url: string; arn: string },
  handler: (event: SQSEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>,
) {
  const reports: SqsBatchReport[] = [];
  const poller = new SqsPoller({
    sqs: clients.sqs,
    queue,
    handler,
    visibilityTimeoutSeconds: 1,
    waitTimeSeconds: 1,
    onBatch: (r) => reports.push(r),
  });
  pollers.push(poller);
  poller.start();
  return { reports, poller };
}

describe('local SQS event source', () => {
  it('invokes the handler with the SQSEvent shape and deletes only the messages not reported as failed', async () => {
    const { queueUrl, queueArn } = queueWithDlq('poller-partial', 2);
    const events: SQSEvent[] = [];
    const { reports } = poll({ url: queueUrl, arn: queueArn }, async (event) => {
      events.push(event);
      return { batchItemFailures: event.Records.filter((r) => r.body === 'poison').map((r) => ({ itemIdentifier: r.messageId })) };
    });

    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: ['a', 'poison', 'b'].map((body, i) => ({
          Id: String(i),
          MessageBody: body,
          MessageAttributes: { type: { DataType: 'String', StringValue: `t-${body}` } },
        })),
      }),
    );

    await waitFor(() => queueDepth(server, `poller-partial-dlq`) === 1, { timeoutMs: 20_000, what: 'the poison message in the DLQ' });
    expect(queueBodies(server, 'poller-partial-dlq')).toEqual(['poison']);
    expect(queueDepth(server, 'poller-partial')).toBe(0);
    const acknowledged = reports.flatMap((r) => r.acknowledged.map((m) => m.body)).sort();
    expect(acknowledged).toEqual(['a', 'b']);
    expect(reports.flatMap((r) => r.failed.map((m) => m.body))).toEqual(['poison', 'poison']);
    const record = events[0]?.Records.find((r) => r.body === 'a');
    expect(record).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
      attributes: { ApproximateReceiveCount: '1' },
      messageAttributes: { type: { dataType: 'String', stringValue: 't-a', stringListValues: [], binaryListValues: [] } },
    });
    expect(record?.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
  });

  it('fails the whole batch when the handler throws or reports an identifier not in the batch, as Lambda does', async () => {
    const { queueUrl, queueArn } = queueWithDlq('poller-throws', 2);
    let calls = 0;
    const { reports } = poll({ url: queueUrl, arn: queueArn }, async () => {
      calls++;
      if (calls === 1) throw new Error('handler crashed');
      return { batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] };
    });

    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' }));

    await waitFor(() => reports.length >= 1, { timeoutMs: 10_000, what: 'the first batch' });
    expect(reports[0]).toMatchObject({ batchFailed: true, acknowledged: [] });
    await waitFor(() => queueDepth(server, 'poller-throws-dlq') === 1, { timeoutMs: 20_000, what: 'the message in the DLQ' });
    expect(reports.every((r) => r.batchFailed && r.acknowledged.length === 0)).toBe(true);
  });
});

describe('local SQS event source, a handler that runs past the visibility timeout', () => {
  it('keeps its batch hidden until it answers, so no other invocation runs the same messages meanwhile', async () => {
    const { queueUrl, queueArn } = queueWithDlq('poller-slow', 2);
    let extensions = 0;
    const sqs = {
      send: ((command: { constructor: { name: string } }, options?: object) => {
        if (command.constructor.name === 'ChangeMessageVisibilityBatchCommand') extensions++;
        return clients.sqs.send(command as never, options as never);
      }) as SqsPollerClient['send'],
    };
    let release = (): void => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runs: string[] = [];
    const errors: unknown[] = [];
    const reports: SqsBatchReport[] = [];
    // Two receivers on the queue, as the local stack runs several: the second must not get the batch.
    for (let i = 0; i < 2; i++) {
      const poller = new SqsPoller({
        sqs,
        queue: { url: queueUrl, arn: queueArn },
        visibilityTimeoutSeconds: 1,
        waitTimeSeconds: 1,
        handler: async (event) => {
          runs.push(...event.Records.map((r) => r.body));
          await released;
          return { batchItemFailures: [] };
        },
        onBatch: (r) => reports.push(r),
        onError: (error) => errors.push(error),
      });
      pollers.push(poller);
      poller.start();
    }
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'slow' }));

    // Three extensions of a 1 s visibility, half a second apart: the message would have come back by then.
    await waitFor(() => extensions >= 3, { timeoutMs: 10_000, what: 'the batch in flight kept hidden three times' });
    release();
    await waitFor(() => reports.length === 1, { timeoutMs: 10_000, what: 'the slow batch to be reported' });

    expect(runs).toEqual(['slow']);
    expect(reports[0]?.acknowledged.map((r) => r.body)).toEqual(['slow']);
    expect(String(errors[0])).toMatch(/has run \d+\.\d s on a batch of 1, past the time its context gave it; its messages are kept hidden/);
    expect(queueDepth(server, 'poller-slow')).toBe(0);
    expect(queueDepth(server, 'poller-slow-dlq')).toBe(0);
  });
});

describe('local resources', () => {
  let resources: LocalResources;

  beforeAll(async () => {
    resources = await createLocalResources(clients, {
      config: testConfig(),
      subscriptions: [
        { name: 'res-orders', topic: 'orders.fifo' },
        { name: 'res-payments', topic: 'payments', eventTypes: ['payment.captured'], maxReceiveCount: 3 },
      ],
      visibilityTimeoutSeconds: 1,
    });
  });

  it('creates FIFO queues for FIFO topics, DLQs with maxReceiveCount, and a topic ARN per config topic', () => {
    const [orders, payments] = resources.subscriptions;

    expect(Object.keys(resources.topicArns)).toEqual(['orders.fifo', 'payments']);
    expect(orders).toMatchObject({ fifo: true, queue: { name: 'res-orders.fifo' }, deadLetterQueue: { name: 'res-orders-dlq.fifo' } });
    expect(payments).toMatchObject({ fifo: false, queue: { name: 'res-payments' }, deadLetterQueue: { name: 'res-payments-dlq' } });
    const attributes = server.inspectQueue('res-payments')?.attributes ?? {};
    expect(JSON.parse(attributes.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: payments?.deadLetterQueue.arn,
      maxReceiveCount: '3',
    });
    expect(attributes.VisibilityTimeout).toBe('1');
    expect(server.inspectQueue('res-orders.fifo')?.attributes.FifoQueue).toBe('true');
  });

  it('delivers raw envelopes and applies the filter policy on the type attribute', async () => {
    const publish = (type: string) =>
      clients.sns.send(
        new PublishCommand({
          TopicArn: resources.topicArns.payments,
          Message: JSON.stringify({ type }),
          MessageAttributes: { type: { DataType: 'String', StringValue: type } },
        }),
      );

    await publish('payment.refunded');
    await publish('payment.captured');

    await waitFor(() => queueDepth(server, 'res-payments') >= 1, { timeoutMs: 5000, what: 'the captured payment' });
    expect(queueBodies(server, 'res-payments')).toEqual([JSON.stringify({ type: 'payment.captured' })]);
  });

  it('rejects a subscription to a topic the config does not have, naming the allowed topics', async () => {
    await expect(createLocalResources(clients, { config: testConfig(), subscriptions: [{ name: 'x', topic: 'refunds' }] })).rejects.toThrow(
      /subscribers\[0\]\.topic is "refunds"; allowed: a topic of the config \(orders\.fifo, payments\)/,
    );
  });
});

describe('local SQS event source, a message SQS would not send', () => {
  it('leaves it in its queue, so it moves to the DLQ after maxReceiveCount receives, and hands the handler the rest', async () => {
    const { queueUrl, queueArn } = queueWithDlq('poller-malformed', 2);
    // The queue is real; its answers lose the body of the message "lost", as a faulty emulator or client could.
    const sqs: SqsPollerClient = {
      send: (async (command: object, options?: object) => {
        const output = await clients.sqs.send(command as never, options as never);
        if (!(command instanceof ReceiveMessageCommand)) return output;
        const { Messages = [] } = output as { Messages?: { Body?: string }[] };
        return { ...output, Messages: Messages.map((m) => (m.Body === 'lost' ? { ...m, Body: undefined } : m)) };
      }) as SqsPollerClient['send'],
    };
    const handled: string[] = [];
    const errors: unknown[] = [];
    const poller = new SqsPoller({
      sqs,
      queue: { url: queueUrl, arn: queueArn },
      handler: async (event) => {
        handled.push(...event.Records.map((r) => r.body));
        return { batchItemFailures: [] };
      },
      visibilityTimeoutSeconds: 1,
      waitTimeSeconds: 1,
      onError: (error) => errors.push(error),
    });
    pollers.push(poller);
    poller.start();

    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: ['kept', 'lost'].map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );

    await waitFor(() => queueDepth(server, 'poller-malformed-dlq') === 1, { timeoutMs: 20_000, what: 'the message in the DLQ' });
    expect(queueBodies(server, 'poller-malformed-dlq')).toEqual(['lost']);
    expect(queueDepth(server, 'poller-malformed')).toBe(0);
    expect(handled).toEqual(['kept']);
    expect(errors).toEqual([
      expect.objectContaining({ code: 'MALFORMED_MESSAGE', message: expect.stringContaining('its Body is undefined') }),
      expect.objectContaining({ code: 'MALFORMED_MESSAGE' }),
    ]);
  });
});

describe('dead-letter depths', () => {
  it('counts messages ready, in flight and delayed on each DLQ, and keeps counting in the background', async () => {
    const relay = server.createQueue('depth-relay-dlq');
    const billing = server.createQueue('depth-billing-dlq');
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: relay.queueUrl, MessageBody: 'ready' }));
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: relay.queueUrl, MessageBody: 'delayed', DelaySeconds: 60 }));
    const watch = await watchDeadLetterDepths(clients.sqs, { relay: relay.queueUrl, subscribers: [['billing', billing.queueUrl]] }, 50);
    try {
      expect(watch.current()).toEqual({ relay: 2, subscribers: { billing: 0 } });
      await clients.sqs.send(new SendMessageCommand({ QueueUrl: billing.queueUrl, MessageBody: 'poison' }));
      await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: billing.queueUrl, VisibilityTimeout: 60 }));
      await waitFor(() => watch.current().subscribers.billing === 1, { timeoutMs: 5000, what: 'the in-flight message counted' });
    } finally {
      watch.stop();
    }
  });
});
