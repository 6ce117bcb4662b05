import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConsumerMessage } from '../../shared/consumer/types.js';
import { resetOtelApi } from '../../shared/tracing/otel-api.js';
import { batchCommitFixture, messages, statuses } from '../helpers/batch-commit.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { hooks, failingCheck, batchConsumer } = batchCommitFixture('consumer-batch-commit-tracing');

let exporter: InMemorySpanExporter;
beforeEach(() => {
  exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterEach(() => {
  hooks.onSend = undefined;
  trace.disable();
  context.disable();
  resetOtelApi();
});

/** Processes the messages inside an `invocation` span (as under a traced Lambda), noting the span active at each TransactWriteItems and UpdateItem. */
async function tracedRun(
  consumer: { process(messages: readonly ConsumerMessage[]): Promise<{ outcomes: { status: string }[] }> },
  batch: ConsumerMessage[],
) {
  const activeAtCommit: (string | undefined)[] = [];
  const activeAtUpdate: (string | undefined)[] = [];
  hooks.onSend = (command) => {
    const active = trace.getActiveSpan()?.spanContext().spanId;
    if (command === 'TransactWriteItems') activeAtCommit.push(active);
    if (command === 'UpdateItem') activeAtUpdate.push(active);
  };
  const { outcomes } = await trace.getTracer('test').startActiveSpan('invocation', async (span) => {
    try {
      return await consumer.process(batch);
    } finally {
      span.end();
    }
  });
  const spans = exporter.getFinishedSpans();
  const byName = (name: string) => spans.filter((span) => span.name === name);
  const processOf = (messageId: string) => spans.find((span) => span.attributes['messaging.message.id'] === messageId) as ReadableSpan;
  return { outcomes, activeAtCommit, activeAtUpdate, byName, processOf, invocation: byName('invocation')[0] as ReadableSpan };
}

const id = (span: ReadableSpan | undefined) => span?.spanContext().spanId;
const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;

describe("consumer, commit: 'batch', tracing", () => {
  it("commits a group in a span of its own linked to each of its messages' spans, outside the span of the message that made it commit", async () => {
    const { consumer } = batchConsumer('group-span', { sequenceTracking: true });
    // x2 repeats x1's aggregate: the group of x1 and y commits before x2 runs, inside x2's span.
    const batch = messages([
      anEnvelope({ aggregateId: 'x', sequence: 1 }).body,
      anEnvelope({ aggregateId: 'y' }).body,
      anEnvelope({ aggregateId: 'x', sequence: 2 }).body,
    ]);

    const { outcomes, activeAtCommit, activeAtUpdate, byName, processOf, invocation } = await tracedRun(consumer, batch);

    expect(statuses(outcomes)).toEqual(['processed', 'processed', 'processed']);
    const [commit, ...more] = byName('commit');
    expect(more).toEqual([]);
    expect(commit?.links.map((link) => link.context.spanId)).toEqual([id(processOf('m0')), id(processOf('m1'))]);
    expect(commit?.attributes).toMatchObject({ 'messaging.batch.message_count': 2, 'outbox.events': 2 });
    expect(parentOf(commit)).toBe(id(invocation));
    // The group's transaction in the commit span; x2, a group of one, in its own message's span.
    expect(activeAtCommit).toEqual([id(commit), id(processOf('m2'))]);
    // Each event's position is tracked in its own message's span, though x2's run made the group commit.
    expect(activeAtUpdate).toEqual([id(processOf('m0')), id(processOf('m1')), id(processOf('m2'))]);
  });

  it("records a failed group transaction on its span and makes each event's own commit in its own message's span", async () => {
    const { consumer } = batchConsumer('fallback-span', {}, { 'order.checked': failingCheck('fallback-span') });
    const batch = messages([anEnvelope({ aggregateId: 'f0' }).body, anEnvelope({ aggregateId: 'f1', type: 'order.checked' }).body]);

    const { outcomes, activeAtCommit, byName, processOf } = await tracedRun(consumer, batch);

    expect(statuses(outcomes)).toEqual(['processed', 'failed']);
    const [commit] = byName('commit');
    expect(commit?.status.code).toBe(SpanStatusCode.ERROR);
    expect(commit?.events.map((event) => event.name)).toEqual(['exception']);
    expect(activeAtCommit).toEqual([id(commit), id(processOf('m0')), id(processOf('m1'))]);
  });
});
