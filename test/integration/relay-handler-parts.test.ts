import {
  type BatchResultErrorEntry,
  PublishBatchCommand,
  type PublishBatchCommandOutput,
  type PublishBatchRequestEntry,
} from '@aws-sdk/client-sns';
import { defineConfig } from 'dynamodb-outbox';
import { createRelayHandler, type RelayBatchSummary, type RelayLogger, type RelayMetrics } from 'dynamodb-outbox/relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toLambdaRecord } from '../../shared/on-failure/lambda-record.js';
import { RELAY_DLQ, type RelayTestStack, startRelayStack, subscriberQueue } from '../helpers/relay-stack.js';
import { readStream } from '../helpers/stream.js';

const config = defineConfig({
  source: 'urn:test:relay-parts',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
  relay: { maxPublishAttempts: 2 },
});

let stack: RelayTestStack;

beforeAll(async () => {
  stack = await startRelayStack(config);
});

afterAll(async () => {
  await stack?.stop();
});

const subjectOf = (entry: PublishBatchRequestEntry): string => (JSON.parse(entry.Message ?? '{}') as { subject: string }).subject;

/**
 * A wrapper around the real (emulator-backed) SNS client, as a tracing or proxy wrapper would be:
 * it counts the entries it forwards and answers for two aggregates itself, p-2's entries failing
 * transiently and p-3's refused for good.
 */
function wrappedSns() {
  const wrapper = {
    forwarded: 0,
    async send(command: PublishBatchCommand, options?: { abortSignal?: AbortSignal }): Promise<PublishBatchCommandOutput> {
      const entries = command.input.PublishBatchRequestEntries ?? [];
      const failed: BatchResultErrorEntry[] = [];
      const passed: PublishBatchRequestEntry[] = [];
      for (const entry of entries) {
        const subject = subjectOf(entry);
        if (subject === 'p-2') failed.push({ Id: entry.Id, Code: 'InternalError', SenderFault: false, Message: 'try again' });
        else if (subject === 'p-3') failed.push({ Id: entry.Id, Code: 'InvalidParameter', SenderFault: true, Message: 'refused' });
        else passed.push(entry);
      }
      wrapper.forwarded += passed.length;
      const output =
        passed.length === 0
          ? { Successful: [], Failed: [], $metadata: {} }
          : await stack.clients.sns.send(new PublishBatchCommand({ ...command.input, PublishBatchRequestEntries: passed }), options);
      return { ...output, Failed: [...(output.Failed ?? []), ...failed] };
    },
  };
  return wrapper;
}

describe('the relay handler built from its parts', () => {
  it('relays a batch from the stream through a wrapped SNS client, with a plain logger and metrics object, and hands its counts to onOutcome', async () => {
    await stack.write({ type: 'order', id: 'o-1' }, [
      { type: 'order.placed', data: { n: 1 } },
      { type: 'order.paid', data: { n: 2 } },
    ]);
    await stack.write({ type: 'payment', id: 'p-1' }, [{ type: 'payment.captured', data: { n: 3 } }]);
    await stack.write({ type: 'payment', id: 'p-2' }, [{ type: 'payment.captured', data: { n: 4 } }]);
    await stack.write({ type: 'payment', id: 'p-2' }, [{ type: 'payment.refunded', data: { n: 5 } }]);
    await stack.write({ type: 'payment', id: 'p-3' }, [{ type: 'payment.captured', data: { n: 6 } }]);
    const records = (await readStream(stack.clients.streams, stack.streamArn)).map((record) => toLambdaRecord(record, stack.streamArn));
    expect(records).toHaveLength(5);

    const lines: { level: string; message: string; attributes: Record<string, unknown> }[] = [];
    const logger: RelayLogger = {
      info: (message, attributes) => lines.push({ level: 'info', message, attributes }),
      warn: (message, attributes) => lines.push({ level: 'warn', message, attributes }),
      error: (message, attributes) => lines.push({ level: 'error', message, attributes }),
    };
    const stored: Record<string, number> = {};
    const published: Record<string, number>[] = [];
    const metrics: RelayMetrics = {
      addMetric: (name, _unit, value) => {
        stored[name] = value;
      },
      publishStoredMetrics: () => {
        published.push({ ...stored });
      },
    };
    const summaries: RelayBatchSummary[] = [];
    const sns = wrappedSns();
    const handler = createRelayHandler({
      config,
      topicArns: stack.topicArns,
      deadLetterQueueUrl: stack.deadLetterQueueUrl,
      sns,
      sqs: stack.clients.sqs,
      backoff: { baseDelayMs: 1, maxDelayMs: 5 },
      logger,
      metrics,
      onOutcome: (summary) => {
        summaries.push(summary);
      },
    });

    const response = await handler({ Records: records });

    const p2First = records[2]!.dynamodb!.SequenceNumber!;
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: p2First }] });
    expect(summaries).toEqual([
      {
        records: 5,
        published: 3,
        retried: 1,
        deadLettered: 1,
        ignored: 0,
        failed: 2,
        failedByReason: { PUBLISH_FAILED: 1, BLOCKED_BY_EARLIER_FAILURE: 1, DEAD_LETTER_FAILED: 0, DEADLINE_REACHED: 0 },
        retryFrom: p2First,
        lagMs: expect.any(Number),
        lagByAggregateType: { order: expect.any(Number), payment: expect.any(Number) },
      },
    ]);
    expect(sns.forwarded).toBe(3);
    expect(stack.envelopes(subscriberQueue('orders.fifo')).map((e) => e.type)).toEqual(['order.placed', 'order.paid']);
    expect(stack.envelopes(subscriberQueue('payments')).map((e) => e.subject)).toEqual(['p-1']);
    expect(stack.bodies(RELAY_DLQ).map((body) => JSON.parse(body))).toEqual([
      expect.objectContaining({ reason: 'PUBLISH_REJECTED', aggregateType: 'payment', aggregateId: 'p-3' }),
    ]);
    expect(published).toEqual([{ published: 3, retried: 1, deadLettered: 1, failedRecords: 2, lag: summaries[0]!.lagMs! }]);
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.attributes.reason)).toEqual([
      'PUBLISH_FAILED',
      'BLOCKED_BY_EARLIER_FAILURE',
    ]);
    expect(lines.at(-1)).toEqual({
      level: 'info',
      message: 'batch relayed',
      attributes: { records: 5, published: 3, retried: 1, deadLettered: 1, ignored: 0, failed: 2, retryFrom: p2First },
    });
  });
});
