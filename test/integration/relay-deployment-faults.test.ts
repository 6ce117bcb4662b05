import { defineConfig } from 'dynamodb-outbox';
import { createRelayHandler, type RelayBatchSummary } from 'dynamodb-outbox/relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toLambdaRecord } from '../../shared/on-failure/lambda-record.js';
import { RELAY_DLQ, type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';
import { readStream } from '../helpers/stream.js';

const config = defineConfig({
  source: 'urn:test:relay-deployment-faults',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  relay: { maxPublishAttempts: 2 },
});

const silent = { info() {}, warn() {}, error() {} };
let stack: RelayTestStack;

beforeAll(async () => {
  stack = await startRelayStack(config);
});

afterAll(async () => {
  await stack?.stop();
});

/** A handler over the stack with these ARNs and DLQ URL, and the summaries of its batches. */
function handlerWith(topicArns: Record<string, string>, deadLetterQueueUrl: string, relayConfig = config) {
  const summaries: RelayBatchSummary[] = [];
  const handler = createRelayHandler({
    config: relayConfig,
    topicArns,
    deadLetterQueueUrl,
    sns: stack.clients.sns,
    sqs: stack.clients.sqs,
    backoff: { baseDelayMs: 1, maxDelayMs: 5 },
    logger: silent,
    metrics: { addMetric() {} },
    onOutcome: (summary) => {
      summaries.push(summary);
    },
  });
  return { handler, summaries };
}

// Well-formed values the cold start cannot tell from right ones: the emulator answers as SNS and SQS do.
describe('a relay deployed with a topic or DLQ that does not exist', () => {
  it('fails the records of a topic that does not exist, and acknowledges none of them, nor dead-letters them', async () => {
    const before = (await readStream(stack.clients.streams, stack.streamArn)).length;
    await stack.write({ type: 'payment', id: 'p-1' }, [{ type: 'payment.captured', data: { n: 1 } }]);
    await stack.write({ type: 'order', id: 'o-1' }, [{ type: 'order.placed', data: { n: 2 } }]);
    const records = (await readStream(stack.clients.streams, stack.streamArn))
      .slice(before)
      .map((record) => toLambdaRecord(record, stack.streamArn));
    const missing = stack.topicArns.payments!.replace(/:payments$/, ':payments-gone');
    const { handler, summaries } = handlerWith({ ...stack.topicArns, payments: missing }, stack.deadLetterQueueUrl);

    const response = await handler({ Records: records });

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber! }] });
    expect(summaries[0]).toMatchObject({ published: 1, deadLettered: 0, failed: 1, failedByReason: { PUBLISH_FAILED: 1 } });
    expect(stack.envelopes(subscriberQueue('orders.fifo')).map((e) => e.subject)).toEqual(['o-1']);
    expect(stack.bodies(subscriberQueue('payments'))).toEqual([]);
    expect(stack.bodies(RELAY_DLQ)).toEqual([]);
  });

  it('fails a record whose event would be dead-lettered to a queue that does not exist', async () => {
    const before = (await readStream(stack.clients.streams, stack.streamArn)).length;
    await stack.write({ type: 'payment', id: 'p-2' }, [{ type: 'payment.captured', data: { n: 3 } }]);
    const records = (await readStream(stack.clients.streams, stack.streamArn))
      .slice(before)
      .map((record) => toLambdaRecord(record, stack.streamArn));
    const missingQueue = stack.deadLetterQueueUrl.replace(/relay-dlq$/, 'relay-dlq-gone');
    // A relay whose config has no route for payments: their events are for the relay DLQ.
    const ordersOnly = defineConfig({ ...config, topics: [config.topics[0]!], routes: { order: 'orders.fifo' } });
    const { handler, summaries } = handlerWith(stack.topicArns, missingQueue, ordersOnly);

    const response = await handler({ Records: records });

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber! }] });
    expect(summaries[0]).toMatchObject({ deadLettered: 0, failed: 1, failedByReason: { DEAD_LETTER_FAILED: 1 } });
  });
});
